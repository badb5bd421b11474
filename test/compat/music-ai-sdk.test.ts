import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, before, test } from "node:test";
import { promisify } from "node:util";
import { sineWav } from "../helpers/audio.ts";
import { describeOrSkip, s3TlsUnavailable, TEST_S3_TLS } from "../helpers/backends.ts";
import { probe } from "../helpers/media.ts";
import { type AppInfo, assertNoneRunning, BACKENDS, type Mixdown } from "../helpers/mixdown.ts";
import { startTlsMixdown, type TestCertificate, testCertificate } from "../helpers/tls.ts";

const execFileAsync = promisify(execFile);
const SCENARIO = path.join(import.meta.dirname, "music-ai-scenario.ts");

/** The SDK downloads only https:// result URLs: in distributed mode the store must speak HTTPS too. */
const backends = BACKENDS.map(({ backend, skip }) => ({
  backend,
  skip: skip ?? (backend === "distributed" ? s3TlsUnavailable : undefined),
}));

for (const { backend, skip } of backends)
  describeOrSkip(
    `the official Music.AI JavaScript SDK (@music.ai/sdk), unmodified, against Mixdown over HTTPS [${backend}]`,
    skip,
    () => {
      let certificate: TestCertificate;
      let server: Mixdown;
      let app: AppInfo;
      /** Where the files' URLs point: Mixdown itself, or (distributed) the S3 store's bucket. */
      let filesOrigin: string;
      const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "mixdown-compat-"));

      before(async () => {
        certificate = testCertificate();
        // The SDK PUTs uploads with a body of unknown length, which S3 refuses: they go through the API node.
        const env: Record<string, string> = backend === "distributed" ? { MIXDOWN_S3_UPLOAD_URLS: "mixdown" } : {};
        server = await startTlsMixdown(certificate, env, backend);
        filesOrigin =
          backend === "distributed" ? `${TEST_S3_TLS.endpoint}/${server.env.MIXDOWN_S3_BUCKET}/` : `${server.url}/`;
        app = await server.createApp("compat-app");
      });
      after(async () => {
        await server.dispose();
        fs.rmSync(tmp, { recursive: true, force: true });
        fs.rmSync(certificate.dir, { recursive: true, force: true });
        assertNoneRunning();
      });

      /** Runs the scenario script in a child process; `trust` sets NODE_EXTRA_CA_CERTS to the test certificate. */
      async function runSdk(env: Record<string, string>, trust = true): Promise<any> {
        const { NODE_EXTRA_CA_CERTS: _, ...inherited } = process.env;
        const { stdout } = await execFileAsync(process.execPath, [SCENARIO], {
          env: {
            ...inherited,
            ...(trust ? { NODE_EXTRA_CA_CERTS: certificate.trustFile } : {}),
            MUSICAI_KEY: app.apiKey,
            MUSICAI_ENDPOINT: `https://127.0.0.1:${server.port}/v1`,
            ...env,
          },
          timeout: 120_000,
        });
        return JSON.parse(stdout);
      }

      test("upload → job → wait → download → get → list → workflows → application → delete, and a failing job", async () => {
        const input = path.join(tmp, "tone.wav");
        fs.writeFileSync(input, sineWav(2, { rate: 44100, channels: 2 }));
        const bad = path.join(tmp, "noise.mp3");
        // Text, not random bytes: 32 KB of random bytes now and then hold enough MP3 frame syncs for ffmpeg to decode.
        fs.writeFileSync(bad, "this is a text file, not audio\n".repeat(1024));
        const outDir = path.join(tmp, "out");
        const r = await runSdk({ INPUT_FILE: input, BAD_FILE: bad, OUT_DIR: outDir });

        // uploadFile (PUT without Content-Type, response ignored) gave a download URL that holds the file.
        assert.ok(r.downloadUrl.startsWith(filesOrigin), r.downloadUrl);
        assert.deepEqual(Buffer.from(await (await fetch(r.downloadUrl)).arrayBuffer()), fs.readFileSync(input));

        // waitForJobCompletion → SUCCEEDED; result files are https URLs, so the SDK downloads them.
        assert.equal(r.finished.id, r.jobId);
        assert.equal(r.finished.status, "SUCCEEDED", JSON.stringify(r.finished.error));
        assert.equal(r.finished.workflow, "mixdown/convert");
        assert.deepEqual(r.finished.metadata, { client: "music.ai" });
        assert.ok(r.finished.result.output.startsWith(filesOrigin), r.finished.result.output);
        const downloaded = path.join(outDir, "good", "output.mp3");
        assert.deepEqual(r.downloaded.result, { output: "./output.mp3" });
        const audio = await probe(downloaded);
        assert.equal(audio.streams[0]?.codec_name, "mp3");
        assert.ok(Math.abs(audio.duration - 2) < 0.15, `duration ${audio.duration}`);
        const summary = JSON.parse(fs.readFileSync(path.join(outDir, "good", "result.music-ai.json"), "utf8"));
        assert.deepEqual(summary, { id: r.jobId, name: "compat", result: { output: "./output.mp3" } });

        // getJob: the same job, in the string-slug form.
        assert.equal(r.job.id, r.jobId);
        assert.equal(r.job.app, "compat-app");
        assert.equal(r.job.status, "SUCCEEDED");
        assert.equal(r.job.error, null);
        assert.deepEqual(r.job.workflowParams, { inputUrl: r.downloadUrl, format: "mp3" });

        // The failing job: FAILED with its error; the SDK refuses to download its results.
        assert.equal(r.failed.id, r.badId);
        assert.equal(r.failed.status, "FAILED");
        assert.equal(r.failed.error.code, "BAD_INPUT");
        assert.equal(r.failed.error.title, "Invalid input");
        assert.match(r.failed.error.message, /not a media file|no audio stream/);
        assert.match(r.failedDownload.message, /failed/);
        assert.ok(!fs.existsSync(path.join(outDir, "bad", "output.mp3")));

        // listJobs with array filters (repeated query parameters).
        const ids = (jobs: { id: string }[]) => jobs.map((j) => j.id).sort();
        assert.deepEqual(ids(r.listedFinished), [r.jobId, r.badId].sort());
        assert.deepEqual(ids(r.listedFailed), [r.badId]);
        assert.deepEqual(r.listedOtherWorkflow, []);

        // listWorkflows, with and without page/size.
        const slugs = r.workflows.workflows.map((w: { slug: string }) => w.slug);
        assert.ok(slugs.includes("mixdown/convert"), slugs.join(", "));
        for (const w of r.workflows.workflows)
          assert.deepEqual(Object.keys(w).sort(), ["createdAt", "description", "id", "name", "slug", "updatedAt"]);
        assert.deepEqual(
          r.workflowsPage.workflows.map((w: { slug: string }) => w.slug),
          slugs.slice(2, 4),
        );

        assert.deepEqual(r.application, { id: app.id, name: "compat-app" });

        // An API error reaches the SDK's caller with the server's message.
        assert.equal(r.unknownWorkflow.name, "MusicAiSdkError");
        assert.match(r.unknownWorkflow.message, /no\/such-workflow.*not found/i);

        // deleteJob, then the job is gone.
        assert.deepEqual(r.deleted, { id: r.jobId });
        assert.equal(r.afterDelete.name, "MusicAiSdkError");
        assert.match(r.afterDelete.message, /not found/i);
        assert.equal((await server.api("GET", `/v1/job/${r.jobId}`, { key: app.apiKey })).status, 404);
      });

      test("the certificate is really checked: without NODE_EXTRA_CA_CERTS the SDK refuses the server", async () => {
        const refused = await runSdk({ SCENARIO: "application" }, false);
        assert.match(refused.application.message, /self.signed|certificate/i);
        const trusted = await runSdk({ SCENARIO: "application" });
        assert.deepEqual(trusted.application.returned, { id: app.id, name: "compat-app" });
      });
    },
  );
