import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, before, test } from "node:test";
import { setTimeout as delay } from "node:timers/promises";
import { sineWav } from "../helpers/audio.ts";
import { describeOrSkip } from "../helpers/backends.ts";
import { startFixture, startStallingFixture } from "../helpers/http-fixture.ts";
import { scratchFiles, storedKeys } from "../helpers/inspect.ts";
import { assertNoneRunning, BACKENDS, Mixdown } from "../helpers/mixdown.ts";
import { processesMatching, waitFor } from "../helpers/processes.ts";

const ENV = { MIXDOWN_ALLOW_PRIVATE_URLS: "true", MIXDOWN_FETCH_TIMEOUT_MS: "60000", MIXDOWN_APP_CONCURRENCY: "1" };

/**
 * Inputs: `/stall/…` stalls while `stalling.state.stall` is set; `/long.wav` is ten minutes of 8 kHz mono;
 * `/speech.wav` a minute of espeak-ng speech (transcribed by pocketsphinx from a module process).
 */
let stalling: Awaited<ReturnType<typeof startStallingFixture>>;
let long: Awaited<ReturnType<typeof startFixture>>;
before(async () => {
  stalling = await startStallingFixture(sineWav(1));
  const longWav = sineWav(600, { rate: 8000, channels: 1 });
  const speechFile = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "mixdown-cancel-")), "speech.wav");
  const sentence = "The quick brown fox jumps over the lazy dog while the band plays on through the night.";
  execFileSync("espeak-ng", ["-s", "160", "-w", speechFile, Array(12).fill(sentence).join(" ")]);
  const speech = fs.readFileSync(speechFile);
  fs.rmSync(path.dirname(speechFile), { recursive: true, force: true });
  long = await startFixture((request, response) => {
    const body = request.url === "/speech.wav" ? speech : longWav;
    response.writeHead(200, { "content-type": "audio/wav", "content-length": String(body.length) });
    response.end(body);
  });
});
after(async () => {
  await stalling.close();
  await long.close();
});

async function waitForStatus(server: Mixdown, key: string, id: string, status: string): Promise<void> {
  for (let i = 0; i < 600; i++) {
    if ((await server.api("GET", `/v1/job/${id}/status`, { key })).body.status === status) return;
    await delay(50);
  }
  throw new Error(`job ${id} never reached ${status}`);
}

for (const { backend, skip } of BACKENDS)
  describeOrSkip(`POST /job/:id/cancel [${backend}]`, skip, () => {
    let server: Mixdown;
    let key: string;
    let otherKey: string;

    before(async () => {
      server = await Mixdown.start(ENV, { backend, workers: 1 });
      key = (await server.createApp("cancel-app")).apiKey;
      otherKey = (await server.createApp("other-app")).apiKey;
    });
    after(async () => {
      await server.dispose();
      assertNoneRunning();
    });

    test("a STARTED job ends FAILED/CANCELLED; a QUEUED one never starts; both leave nothing behind", async () => {
      stalling.state.stall = true;
      const running = await server.createJob(key, "mixdown/convert", {
        inputUrl: `${stalling.url}/stall/a.wav`,
        format: "wav",
      });
      await waitForStatus(server, key, running, "STARTED");
      // MIXDOWN_APP_CONCURRENCY=1: the application's second job waits behind the first.
      const queued = await server.createJob(key, "mixdown/convert", {
        inputUrl: `${stalling.url}/b.wav`,
        format: "wav",
      });
      assert.equal((await server.api("GET", `/v1/job/${queued}/status`, { key })).body.status, "QUEUED");

      const cancelledQueued = await server.api("POST", `/v1/job/${queued}/cancel`, { key });
      assert.equal(cancelledQueued.status, 200, JSON.stringify(cancelledQueued.body));
      assert.equal(cancelledQueued.body.status, "FAILED");
      assert.equal(cancelledQueued.body.startedAt, null);
      assert.deepEqual(cancelledQueued.body.error, {
        code: "CANCELLED",
        title: "Cancelled",
        message: "The job was cancelled at the request of its application.",
      });

      const cancelled = await server.api("POST", `/v1/job/${running}/cancel`, { key });
      assert.equal(cancelled.status, 200, JSON.stringify(cancelled.body));
      assert.equal(cancelled.body.id, running);
      assert.equal(cancelled.body.status, "FAILED");
      assert.equal(cancelled.body.error.code, "CANCELLED");
      assert.equal(cancelled.body.result, null);
      assert.ok(cancelled.body.completedAt);
      assert.deepEqual((await server.api("GET", `/v1/job/${running}`, { key })).body, cancelled.body);

      // Idempotent: cancelling again returns the same job.
      const again = await server.api("POST", `/v1/job/${running}/cancel`, { key });
      assert.equal(again.status, 200);
      assert.deepEqual(again.body, cancelled.body);

      // The worker let go of it (its scratch directory goes as it unwinds) and runs the next job.
      for (let i = 0; i < 100 && scratchFiles(server).length > 0; i++) await delay(100);
      assert.deepEqual(scratchFiles(server), []);
      assert.deepEqual(await storedKeys(server, `results/${running}/`), []);
      stalling.state.stall = false;
      const next = await server.waitForJob(
        key,
        await server.createJob(key, "mixdown/convert", { inputUrl: `${stalling.url}/c.wav`, format: "wav" }),
      );
      assert.equal(next.status, "SUCCEEDED", JSON.stringify(next.error));
      // The cancelled jobs stayed cancelled (the stalled input's late bytes did not revive the first).
      assert.equal((await server.api("GET", `/v1/job/${running}`, { key })).body.error.code, "CANCELLED");
      assert.equal((await server.api("GET", `/v1/job/${queued}`, { key })).body.startedAt, null);

      // DELETE keeps its meaning: the cancelled job is removed.
      assert.equal((await server.api("DELETE", `/v1/job/${running}`, { key })).status, 200);
      assert.equal((await server.api("POST", `/v1/job/${running}/cancel`, { key })).status, 404);
    });

    test("a finished job cannot be cancelled (409, with why); unknown or another application's job is 404", async () => {
      stalling.state.stall = false;
      const done = await server.runJob(key, "mixdown/convert", { inputUrl: `${stalling.url}/d.wav`, format: "wav" });
      const refused = await server.api("POST", `/v1/job/${done.id}/cancel`, { key });
      assert.equal(refused.status, 409);
      assert.equal(refused.body.code, "JOB_ALREADY_FINISHED");
      assert.match(refused.body.message, /already ended \(SUCCEEDED\); only QUEUED or STARTED jobs can be cancelled/);
      assert.equal((await server.api("GET", `/v1/job/${done.id}`, { key })).body.status, "SUCCEEDED");

      const foreign = await server.api("POST", `/v1/job/${done.id}/cancel`, { key: otherKey });
      assert.equal(foreign.status, 404);
      assert.equal(foreign.body.code, "JOB_NOT_FOUND");
      assert.equal((await server.api("POST", "/v1/job/not-a-uuid/cancel", { key })).body.code, "INVALID_JOB_ID");
      assert.equal((await server.api("POST", `/v1/job/${done.id}/cancel`)).status, 401);
    });

    test("cancelling a job whose step runs ffmpeg ends the ffmpeg process", async (t) => {
      // Ten minutes of 8 kHz mono to 48 kHz stereo MP3: ffmpeg runs for seconds on this machine.
      const id = await server.createJob(key, "mixdown/convert", {
        inputUrl: `${long.url}/long.wav`,
        format: "mp3",
        sampleRate: 48000,
        channels: 2,
      });
      // The step's scratch directory (and so ffmpeg's arguments) carries the job id.
      const [pid] = await waitFor("the job's ffmpeg encoding", () => processesMatching(id, "libmp3lame"));
      const asked = performance.now();
      const cancelled = await server.api("POST", `/v1/job/${id}/cancel`, { key });
      assert.equal(cancelled.body.error?.code, "CANCELLED", JSON.stringify(cancelled.body));
      for (let i = 0; i < 100 && processesMatching(id).length > 0; i++) await delay(50);
      // Timing is reported, not asserted (the goal, under 1 s, is a measured figure).
      t.diagnostic(`process gone ${Math.round(performance.now() - asked)} ms after the cancel was sent`);
      assert.deepEqual(processesMatching(id), [], `ffmpeg (pid ${pid}) still runs`);
      for (let i = 0; i < 100 && scratchFiles(server).length > 0; i++) await delay(100);
      assert.deepEqual(scratchFiles(server), []);
      assert.deepEqual(await storedKeys(server, `results/${id}/`), []);
    });

    test("cancelling a job whose step runs in a module process ends the tool that process started", async (t) => {
      // mixdown/transcribe runs in a module process, which starts pocketsphinx_batch on the speech it found.
      const id = await server.createJob(key, "mixdown/transcribe", { inputUrl: `${long.url}/speech.wav` });
      const [pid] = await waitFor("the job's pocketsphinx", () => processesMatching(id, "pocketsphinx_batch"), 180_000);
      const asked = performance.now();
      const cancelled = await server.api("POST", `/v1/job/${id}/cancel`, { key });
      assert.equal(cancelled.body.error?.code, "CANCELLED", JSON.stringify(cancelled.body));
      for (let i = 0; i < 100 && processesMatching(id).length > 0; i++) await delay(50);
      // Timing is reported, not asserted (the goal, under 1 s, is a measured figure).
      t.diagnostic(`process gone ${Math.round(performance.now() - asked)} ms after the cancel was sent`);
      assert.deepEqual(processesMatching(id), [], `pocketsphinx (pid ${pid}) still runs`);
      for (let i = 0; i < 100 && scratchFiles(server).length > 0; i++) await delay(100);
      assert.deepEqual(scratchFiles(server), []);
    });
  });
