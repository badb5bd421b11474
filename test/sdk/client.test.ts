import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { Readable } from "node:stream";
import { after, before, describe, test } from "node:test";
import { JobTimeoutError, MixdownClient, MixdownError, type TransferProgress } from "../../sdk/src/index.ts";
import { sineWav } from "../helpers/audio.ts";
import { describeOrSkip } from "../helpers/backends.ts";
import { probe } from "../helpers/media.ts";
import { assertNoneRunning, BACKENDS, Mixdown } from "../helpers/mixdown.ts";
import { startTlsMixdown, type TestCertificate, testCertificate } from "../helpers/tls.ts";

const rejectsWith = (status: number, code: string) => (error: unknown) =>
  error instanceof MixdownError && error.status === status && error.code === code && error.message.length > 0;

for (const { backend, skip } of BACKENDS)
  describeOrSkip(`SDK against a real Mixdown [${backend}]`, skip, () => {
    const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "mixdown-sdk-"));
    const wav = sineWav(2, { rate: 44100, channels: 2 });
    const wavFile = path.join(tmp, "tone.wav");
    /** Runs jobs. */
    let http: Mixdown;
    /** No workers: jobs stay QUEUED (listing, pagination, waiting that times out). */
    let idle: Mixdown;
    let client: MixdownClient;
    let idleClient: MixdownClient;

    before(async () => {
      fs.writeFileSync(wavFile, wav);
      [http, idle] = await Promise.all([
        Mixdown.start({}, { backend }),
        Mixdown.start({ MIXDOWN_WORKERS: "0" }, { backend, workers: 0 }),
      ]);
      client = new MixdownClient({ baseUrl: http.url, apiKey: (await http.createApp("sdk-app")).apiKey });
      idleClient = new MixdownClient({ baseUrl: `${idle.url}/api/`, apiKey: (await idle.createApp()).apiKey });
    });
    after(async () => {
      await Promise.all([http, idle].map((s) => s?.dispose()));
      fs.rmSync(tmp, { recursive: true, force: true });
      assertNoneRunning();
    });

    test("the base URL gets /v1 unless it names /v1 or /api", () => {
      assert.equal(client.baseUrl, `${http.url}/v1`);
      assert.equal(idleClient.baseUrl, `${idle.url}/api`);
    });

    test("uploadFile from a path: progress up to the file size, content type from the extension, bytes intact", async () => {
      const progress: TransferProgress[] = [];
      const url = await client.uploadFile(wavFile, { onProgress: (p) => progress.push(p) });
      assert.deepEqual(progress.at(-1), { loaded: wav.length, total: wav.length });
      assert.ok(progress.length > 2, "several progress events");
      const response = await fetch(url);
      assert.equal(response.headers.get("content-type"), "audio/wav");
      assert.deepEqual(Buffer.from(await response.arrayBuffer()), wav);
    });

    test("uploadFile from bytes, a Node stream and a web stream, with an explicit content type", async () => {
      const bytes = randomBytes(200_000);
      const sources = [
        () => bytes,
        () => Readable.from([bytes.subarray(0, 1000), bytes.subarray(1000)]),
        () => new Blob([bytes]).stream(),
      ];
      for (const source of sources) {
        let last: TransferProgress | undefined;
        const url = await client.uploadFile(source(), {
          contentType: "audio/mpeg",
          size: bytes.length,
          onProgress: (p) => (last = p),
        });
        assert.deepEqual(last, { loaded: bytes.length, total: bytes.length });
        const response = await fetch(url);
        assert.equal(response.headers.get("content-type"), "audio/mpeg");
        assert.deepEqual(Buffer.from(await response.arrayBuffer()), bytes);
      }
    });

    test("upload → addJob → waitForJobCompletion → downloadJobResults over HTTP (file and inline results)", async () => {
      const inputUrl = await client.uploadFile(wavFile);
      const id = await client.addJob({
        name: "normalize",
        workflow: "mixdown/loudness-normalize",
        params: { inputUrl, format: "flac" },
        metadata: { user: "u1", take: 3, final: true },
        batchName: "album",
      });
      const statuses: string[] = [];
      const job = await client.waitForJobCompletion(id, {
        timeoutMs: 60_000,
        intervalMs: 50,
        onStatus: (s) => statuses.push(s),
      });
      assert.equal(job.status, "SUCCEEDED", JSON.stringify(job.error));
      assert.equal(statuses.at(-1), "SUCCEEDED");
      assert.equal(job.app, "sdk-app");
      assert.equal(job.batchName, "album");
      assert.deepEqual(job.metadata, { user: "u1", take: 3, final: true });
      assert.equal(job.workflow, "mixdown/loudness-normalize");
      assert.deepEqual(await client.getJobStatus(id), { id, status: "SUCCEEDED", progress: 1, step: null });

      const dir = path.join(tmp, "normalize");
      const seen = new Set<string>();
      const downloaded = await client.downloadJobResults(job, dir, { onProgress: (p) => seen.add(p.key) });
      assert.deepEqual(Object.keys(downloaded.files), ["output"]);
      assert.equal(downloaded.files.output, path.join(dir, "output.flac"));
      assert.deepEqual([...seen], ["output"]);
      assert.equal((await probe(path.join(dir, "output.flac"))).streams[0]?.codec_name, "flac");
      assert.deepEqual(Object.keys(downloaded.values).sort(), ["integratedLoudness", "loudnessRange", "truePeak"]);
      const summary = JSON.parse(fs.readFileSync(downloaded.summaryFile, "utf8"));
      assert.equal(summary.id, id);
      assert.equal(summary.result.output, "./output.flac");
      assert.equal(summary.result.integratedLoudness, job.result?.integratedLoudness);
      assert.ok(
        Math.abs(Number(summary.result.integratedLoudness) + 14) < 1,
        `${summary.result.integratedLoudness} LUFS`,
      );
      assert.deepEqual(fs.readdirSync(dir).sort(), ["output.flac", "result.mixdown.json"]);
    });

    test("a failing job: FAILED with its error; its results cannot be downloaded", async () => {
      const inputUrl = await client.uploadFile(randomBytes(4096), { contentType: "audio/mpeg" });
      const id = await client.addJob({ name: "bad", workflow: "mixdown/convert", params: { inputUrl, format: "mp3" } });
      const job = await client.waitForJobCompletion(id, { timeoutMs: 60_000 });
      assert.equal(job.status, "FAILED");
      assert.equal(job.error?.code, "BAD_INPUT");
      assert.match(job.error?.message ?? "", /not a media file|no audio stream/);
      await assert.rejects(client.downloadJobResults(job, path.join(tmp, "bad")), rejectsWith(0, "JOB_NOT_SUCCEEDED"));
    });

    test("downloads check the HTTP status and leave no partial file", async () => {
      const inputUrl = await client.uploadFile(wavFile);
      const id = await client.addJob({ name: "c", workflow: "mixdown/convert", params: { inputUrl, format: "wav" } });
      const job = await client.waitForJobCompletion(id, { timeoutMs: 60_000 });
      const forged = {
        ...job,
        result: { output: String(job.result?.output).replace(/(signature=)[^&]+/i, "$1forged") },
      };
      // Result files are served by Mixdown (embedded) or by the S3 store (distributed), each with its own codes.
      const codes =
        backend === "embedded"
          ? { forged: "INVALID_SIGNATURE", deleted: "FILE_NOT_FOUND" }
          : { forged: "SignatureDoesNotMatch", deleted: "NoSuchKey" };
      const dir = path.join(tmp, "forged");
      await assert.rejects(client.downloadJobResults(forged, dir), rejectsWith(403, codes.forged));
      assert.deepEqual(fs.existsSync(dir) ? fs.readdirSync(dir) : [], []);
      await client.deleteJob(id);
      await assert.rejects(client.downloadJobResults(job, dir), rejectsWith(404, codes.deleted));
    });

    test("listJobs pages with filters; iterateJobs walks every page, newest first", async () => {
      const inputUrl = "https://example.com/a.wav";
      const ids: string[] = [];
      for (let i = 0; i < 5; i++) {
        const workflow = i % 2 === 0 ? "mixdown/convert" : "mixdown/probe";
        const params = workflow === "mixdown/convert" ? { inputUrl, format: "mp3" } : { inputUrl };
        ids.push(await idleClient.addJob({ name: `j${i}`, workflow, params, batchName: i < 3 ? "b1" : "b2" }));
      }
      const newestFirst = [...ids].reverse();
      const first = await idleClient.listJobs({ size: 2 });
      assert.deepEqual(
        first.jobs.map((j) => j.id),
        newestFirst.slice(0, 2),
      );
      assert.equal(first.total, 5);
      assert.equal(first.nextPage, 1);
      const last = await idleClient.listJobs({ size: 2, page: 2 });
      assert.deepEqual(
        last.jobs.map((j) => j.id),
        newestFirst.slice(4),
      );
      assert.equal(last.nextPage, null);

      const all: string[] = [];
      for await (const job of idleClient.iterateJobs({ size: 2 })) all.push(job.id);
      assert.deepEqual(all, newestFirst);

      const collect = async (filters: Parameters<MixdownClient["iterateJobs"]>[0]) => {
        const found: string[] = [];
        for await (const job of idleClient.iterateJobs({ ...filters, size: 1 })) found.push(job.id);
        return found;
      };
      assert.deepEqual(await collect({ workflow: "mixdown/probe" }), [ids[3], ids[1]]);
      assert.deepEqual(await collect({ workflow: ["mixdown/probe", "mixdown/convert"], batchName: "b2" }), [
        ids[4],
        ids[3],
      ]);
      assert.deepEqual(await collect({ status: ["QUEUED"], batchName: "b1" }), [ids[2], ids[1], ids[0]]);
      assert.deepEqual(await collect({ status: ["SUCCEEDED", "FAILED"] }), []);
    });

    test("waitForJobCompletion: JobTimeoutError after timeoutMs, an abort signal stops it", async () => {
      const id = await idleClient.addJob({
        name: "w",
        workflow: "mixdown/probe",
        params: { inputUrl: "https://example.com/x.wav" },
      });
      await assert.rejects(
        idleClient.waitForJobCompletion(id, { timeoutMs: 300, intervalMs: 50 }),
        (error: unknown) => {
          assert.ok(error instanceof JobTimeoutError);
          assert.equal(error.jobId, id);
          assert.equal(error.lastStatus, "QUEUED");
          return true;
        },
      );
      const controller = new AbortController();
      setTimeout(() => controller.abort(new Error("stop waiting")), 200);
      await assert.rejects(idleClient.waitForJobCompletion(id, { signal: controller.signal }), /stop waiting/);
    });

    test("getJob, deleteJob, getApplication, listWorkflows, iterateWorkflows and getWorkflow", async () => {
      const id = await idleClient.addJob({
        name: "d",
        workflow: "mixdown/probe",
        params: { inputUrl: "https://example.com/y.wav" },
      });
      const job = await idleClient.getJob(id);
      assert.equal(job.status, "QUEUED");
      assert.equal(job.startedAt, null);
      assert.equal(job.result, null);
      assert.equal(await idleClient.deleteJob(id), id);
      await assert.rejects(idleClient.getJob(id), rejectsWith(404, "JOB_NOT_FOUND"));

      assert.equal((await client.getApplication()).name, "sdk-app");

      const page = await client.listWorkflows({ size: 2 });
      assert.equal(page.workflows.length, 2);
      assert.ok(page.total !== null && page.total > 2);
      const slugs: string[] = [];
      for await (const workflow of client.iterateWorkflows()) slugs.push(workflow.slug);
      assert.equal(slugs.length, page.total);
      assert.ok(slugs.includes("mixdown/convert"));

      const convert = await client.getWorkflow("mixdown/convert");
      assert.equal(convert.slug, "mixdown/convert");
      assert.equal(convert.outputs?.output?.kind, "file URL");
      assert.ok(convert.inputSchema && "properties" in convert.inputSchema);
      await assert.rejects(client.getWorkflow("acme/none"), rejectsWith(404, "WORKFLOW_NOT_FOUND"));
    });

    test("errors are typed: status, code and the server's message (and details)", async () => {
      const bad = new MixdownClient({ baseUrl: http.url, apiKey: "mxd_wrong" });
      await assert.rejects(bad.getApplication(), rejectsWith(401, "UNAUTHORIZED"));
      await assert.rejects(client.getJob("not-a-uuid"), rejectsWith(400, "INVALID_JOB_ID"));
      await assert.rejects(
        client.addJob({
          name: "x",
          workflow: "mixdown/convert",
          params: { inputUrl: "https://example.com/a.wav", format: "xyz" },
        }),
        (error: unknown) => {
          assert.ok(rejectsWith(422, "INVALID_WORKFLOW_PARAMS")(error));
          assert.ok((error as MixdownError).details?.some((d) => /format/.test(`${d.field} ${d.message}`)));
          return true;
        },
      );
      const unreachable = new MixdownClient({ baseUrl: "http://127.0.0.1:1", apiKey: "k" });
      await assert.rejects(unreachable.getApplication(), rejectsWith(0, "NETWORK_ERROR"));
    });
  });

// Over HTTPS, on the embedded node: in distributed mode files are served by the S3 endpoint (plain HTTP here),
// and the API node's TLS is the same code as the embedded node's.
describe("SDK over HTTPS [embedded]", () => {
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "mixdown-sdk-tls-"));
  const wav = sineWav(2, { rate: 44100, channels: 2 });
  let certificate: TestCertificate;
  let https: Mixdown;
  let tlsClient: MixdownClient;
  before(async () => {
    certificate = testCertificate();
    https = await startTlsMixdown(certificate);
    tlsClient = new MixdownClient({ baseUrl: `${https.url}/v1`, apiKey: (await https.createApp()).apiKey });
  });
  after(async () => {
    await https?.dispose();
    fs.rmSync(tmp, { recursive: true, force: true });
    if (certificate) fs.rmSync(certificate.dir, { recursive: true, force: true });
    assertNoneRunning();
  });

  test("upload → addJob → waitForJobCompletion → downloadJobResults by job id, over HTTPS", async () => {
    assert.equal(tlsClient.baseUrl, `${https.url}/v1`);
    const inputUrl = await tlsClient.uploadFile(wav, { contentType: "audio/wav" });
    assert.ok(inputUrl.startsWith("https://"));
    const id = await tlsClient.addJob({
      name: "tls",
      workflow: "mixdown/convert",
      params: { inputUrl, format: "mp3" },
    });
    const job = await tlsClient.waitForJobCompletion(id, { timeoutMs: 60_000 });
    assert.equal(job.status, "SUCCEEDED", JSON.stringify(job.error));
    const dir = path.join(tmp, "tls");
    const downloaded = await tlsClient.downloadJobResults(id, dir);
    const info = await probe(downloaded.files.output ?? "");
    assert.equal(info.streams[0]?.codec_name, "mp3");
    assert.ok(Math.abs(info.duration - 2) < 0.15);
  });
});
