import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import fs from "node:fs";
import type http from "node:http";
import os from "node:os";
import path from "node:path";
import { after, before, test } from "node:test";
import {
  CreateBucketCommand,
  DeleteBucketCommand,
  DeleteObjectCommand,
  GetObjectCommand,
  PutObjectCommand,
  S3Client,
} from "@aws-sdk/client-s3";
import { getSignedUrl } from "@aws-sdk/s3-request-presigner";
import { MixdownClient } from "../../sdk/src/index.ts";
import { sineWav } from "../helpers/audio.ts";
import { describeOrSkip, distributedUnavailable, TEST_S3 } from "../helpers/backends.ts";
import { startFixture } from "../helpers/http-fixture.ts";
import { storedKeys } from "../helpers/inspect.ts";
import { type AppInfo, assertNoneRunning, BACKENDS, Mixdown } from "../helpers/mixdown.ts";

interface Put {
  path: string;
  headers: http.IncomingHttpHeaders;
  body: Buffer;
}

/** A storage server on loopback: keeps each PUT; paths under /deny/ answer 403. */
async function startStorage() {
  const puts: Put[] = [];
  const fixture = await startFixture((request, response) => {
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("end", () => {
      puts.push({ path: request.url ?? "", headers: request.headers, body: Buffer.concat(chunks) });
      response.writeHead(request.url?.startsWith("/deny/") ? 403 : 200).end();
    });
  });
  return { ...fixture, puts };
}

for (const { backend, skip } of BACKENDS)
  describeOrSkip(`copyResultsTo [${backend}]`, skip, () => {
    let server: Mixdown;
    let app: AppInfo;
    let wavUrl: string;
    let storage: Awaited<ReturnType<typeof startStorage>>;

    before(async () => {
      storage = await startStorage();
      server = await Mixdown.start({ MIXDOWN_ALLOW_PRIVATE_URLS: "true" }, { backend });
      app = await server.createApp();
      wavUrl = await server.upload(app.apiKey, sineWav(1), "audio/wav");
    });
    after(async () => {
      await server.dispose();
      await storage.close();
      assertNoneRunning();
    });

    const convert = (copyResultsTo?: Record<string, string>) =>
      server.createJob(app.apiKey, "mixdown/convert", { inputUrl: wavUrl, format: "wav" }, { copyResultsTo });

    test("each named output is PUT to its URL (Content-Length, Content-Type) and its value becomes [custom storage]", async () => {
      const kept = await server.runJob(app.apiKey, "mixdown/convert", { inputUrl: wavUrl, format: "wav" });
      const expected = Buffer.from(await (await fetch(kept.result.output)).arrayBuffer());
      const id = await convert({ output: `${storage.url}/bucket/song.wav?sig=abc` });
      const job = await server.waitForJob(app.apiKey, id);
      assert.equal(job.status, "SUCCEEDED", JSON.stringify(job.error));
      assert.deepEqual(job.result, { output: "[custom storage]" });
      const put = storage.puts.find((p) => p.path === "/bucket/song.wav?sig=abc");
      assert.ok(put, "the file was PUT to the URL as given");
      assert.equal(put.headers["content-type"], "audio/wav");
      assert.equal(put.headers["content-length"], String(expected.length));
      assert.equal(put.headers["transfer-encoding"], undefined);
      assert.ok(put.body.equals(expected), "the bytes of the output");
      assert.deepEqual(await storedKeys(server, `results/${id}/`), [], "no stored copy kept");
    });

    test("a refused PUT fails the job, naming the output and the HTTP status, and keeps no file", async () => {
      const id = await convert({ output: `${storage.url}/deny/song.wav` });
      const job = await server.waitForJob(app.apiKey, id);
      assert.equal(job.status, "FAILED");
      assert.equal(job.error.code, "BAD_INPUT");
      assert.match(job.error.message, /"output"/);
      assert.match(job.error.message, /HTTP 403/);
      assert.equal(job.result, null);
      assert.deepEqual(await storedKeys(server, `results/${id}/`), []);
    });

    test("mixdown run --copy-result NAME=URL passes copyResultsTo on", async () => {
      const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "mixdown-copy-")), "song.wav");
      fs.writeFileSync(file, sineWav(0.5));
      const target = `${storage.url}/cli/song.wav`;
      const out = path.join(path.dirname(file), "out");
      const args = ["run", "mixdown/convert", file, "--param", "format=wav", "--copy-result", `output=${target}`];
      const env = { MIXDOWN_URL: server.url, MIXDOWN_API_KEY: app.apiKey };
      const run = await server.cli([...args, "--out", out, "--json"], env);
      assert.equal(run.code, 0, run.stderr);
      assert.deepEqual(fs.readdirSync(out), ["result.mixdown.json"], "nothing to download: the value is kept");
      assert.equal(JSON.parse(run.stdout).job.result.output, "[custom storage]");
      assert.ok(storage.puts.some((p) => p.path === "/cli/song.wav" && p.body.subarray(0, 4).toString() === "RIFF"));
      fs.rmSync(path.dirname(file), { recursive: true });
    });

    test("copyResultsTo is checked at creation: unknown outputs, inline values and bad URLs get a 400 naming them", async () => {
      const post = (workflow: string, params: object, copyResultsTo: unknown) =>
        server.api("POST", "/v1/job", { key: app.apiKey, body: { name: "x", workflow, params, copyResultsTo } });
      const unknown = await post("mixdown/convert", { inputUrl: wavUrl, format: "wav" }, { vocals: storage.url });
      assert.equal(unknown.status, 400);
      assert.equal(unknown.body.details[0].field, "copyResultsTo.vocals");
      assert.match(unknown.body.details[0].message, /not an output of the workflow \(its outputs: output\)/);
      const inline = await post("mixdown/probe", { inputUrl: wavUrl }, { metadata: storage.url });
      assert.equal(inline.status, 400);
      assert.match(inline.body.details[0].message, /inline value/);
      const badUrl = await post("mixdown/convert", { inputUrl: wavUrl, format: "wav" }, { output: "ftp://x/y" });
      assert.equal(badUrl.status, 400);
      assert.match(badUrl.body.message, /copyResultsTo\.output must be an http or https URL/);
      const notAString = await post("mixdown/convert", { inputUrl: wavUrl, format: "wav" }, { output: 3 });
      assert.equal(notAString.status, 400);
    });

    describeOrSkip("to presigned S3 URLs", distributedUnavailable, () => {
      const s3 = new S3Client({
        endpoint: TEST_S3.endpoint,
        region: "us-east-1",
        forcePathStyle: true,
        credentials: { accessKeyId: TEST_S3.accessKeyId, secretAccessKey: TEST_S3.secretAccessKey },
      });
      const bucket = `mixdown-copy-${randomBytes(6).toString("hex")}`;
      before(() => s3.send(new CreateBucketCommand({ Bucket: bucket })));
      after(async () => {
        await s3.send(new DeleteObjectCommand({ Bucket: bucket, Key: "out/song.wav" })).catch(() => undefined);
        await s3.send(new DeleteBucketCommand({ Bucket: bucket }));
        s3.destroy();
      });

      test("the output lands in the bucket with its content type", async () => {
        const url = await getSignedUrl(s3, new PutObjectCommand({ Bucket: bucket, Key: "out/song.wav" }), {
          expiresIn: 600,
        });
        // Through our SDK, which passes copyResultsTo on.
        const sdk = new MixdownClient({ baseUrl: server.url, apiKey: app.apiKey });
        const id = await sdk.addJob({
          name: "to s3",
          workflow: "mixdown/convert",
          params: { inputUrl: wavUrl, format: "wav" },
          copyResultsTo: { output: url },
        });
        const job = await server.waitForJob(app.apiKey, id);
        assert.equal(job.status, "SUCCEEDED", JSON.stringify(job.error));
        assert.equal(job.result.output, "[custom storage]");
        const object = await s3.send(new GetObjectCommand({ Bucket: bucket, Key: "out/song.wav" }));
        assert.equal(object.ContentType, "audio/wav");
        const bytes = Buffer.from(
          await (object.Body as { transformToByteArray(): Promise<Uint8Array> }).transformToByteArray(),
        );
        assert.equal(bytes.subarray(0, 4).toString(), "RIFF");
        assert.equal(bytes.length, object.ContentLength);
      });
    });
  });

describeOrSkip("copyResultsTo: internal addresses [embedded]", undefined, () => {
  let server: Mixdown;
  before(async () => {
    server = await Mixdown.start();
  });
  after(async () => {
    await server.dispose();
    assertNoneRunning();
  });

  test("a copyResultsTo URL on an internal address is refused at creation unless MIXDOWN_ALLOW_PRIVATE_URLS", async () => {
    const app = await server.createApp();
    const wav = await server.upload(app.apiKey, sineWav(0.2), "audio/wav");
    const response = await server.api("POST", "/v1/job", {
      key: app.apiKey,
      body: {
        name: "x",
        workflow: "mixdown/convert",
        params: { inputUrl: wav, format: "wav" },
        copyResultsTo: { output: "http://127.0.0.1:9/put" },
      },
    });
    assert.equal(response.status, 400);
    assert.equal(response.body.details[0].field, "copyResultsTo.output");
    assert.match(response.body.details[0].message, /internal address/);
  });
});
