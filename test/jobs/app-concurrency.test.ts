import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { setTimeout as delay } from "node:timers/promises";
import { sineWav } from "../helpers/audio.ts";
import { describeOrSkip } from "../helpers/backends.ts";
import { startStallingFixture } from "../helpers/http-fixture.ts";
import { assertNoneRunning, BACKENDS, Mixdown } from "../helpers/mixdown.ts";

const wav = sineWav(0.5);

for (const { backend, skip } of BACKENDS)
  describeOrSkip(`MIXDOWN_APP_CONCURRENCY caps one application's running jobs [${backend}]`, skip, () => {
    let input: Awaited<ReturnType<typeof startStallingFixture>>;
    before(async () => {
      input = await startStallingFixture(wav);
    });
    after(async () => {
      await input.close();
      assertNoneRunning();
    });

    test("with a cap of 1 and three free job slots, an application's second job waits; another's runs", async () => {
      // One process with three job slots (embedded: the only node; distributed: one worker process).
      const server = await Mixdown.start(
        { MIXDOWN_APP_CONCURRENCY: "1", MIXDOWN_WORKERS: "3", MIXDOWN_ALLOW_PRIVATE_URLS: "true" },
        { backend, workers: 1 },
      );
      try {
        const [busy, other] = [await server.createApp("busy"), await server.createApp("other")];
        const job = (key: string, name: string) =>
          server.createJob(key, "mixdown/convert", { inputUrl: `${input.url}/${name}.wav`, format: "wav" });
        const first = await job(busy.apiKey, "busy-1");
        const second = await job(busy.apiKey, "busy-2");
        const single = await job(other.apiKey, "other-1");
        for (let i = 0; i < 300 && input.state.requests.length < 2; i++) await delay(50);
        // Give the free slot time to take the busy application's second job, were it allowed to.
        await delay(2000);
        assert.deepEqual(input.state.requests.map((r) => r.path).sort(), ["/busy-1.wav", "/other-1.wav"]);
        const status = async (key: string, id: string) =>
          (await server.api("GET", `/v1/job/${id}/status`, { key })).body.status;
        assert.equal(await status(busy.apiKey, second), "QUEUED");
        input.resume();
        for (const [key, id] of [
          [busy.apiKey, first],
          [busy.apiKey, second],
          [other.apiKey, single],
        ] as const) {
          const done = await server.waitForJob(key, id);
          assert.equal(done.status, "SUCCEEDED", JSON.stringify(done.error));
        }
        assert.equal(input.state.requests.length, 3, "each job read its input once");
      } finally {
        await server.dispose();
      }
    });
  });
