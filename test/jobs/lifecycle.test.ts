import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import { setTimeout as delay } from "node:timers/promises";
import { sineWav } from "../helpers/audio.ts";
import { describeOrSkip } from "../helpers/backends.ts";
import { startStallingFixture } from "../helpers/http-fixture.ts";
import { scratchFiles, storedKeys } from "../helpers/inspect.ts";
import { assertNoneRunning, BACKENDS, Mixdown } from "../helpers/mixdown.ts";

const wav = sineWav(1);

async function waitForStatus(server: Mixdown, key: string, id: string, status: string) {
  for (let i = 0; i < 300; i++) {
    const response = await server.api("GET", `/v1/job/${id}/status`, { key });
    if (response.body.status === status) return;
    await delay(50);
  }
  throw new Error(`job ${id} never reached ${status}`);
}

const ENV = {
  MIXDOWN_ALLOW_PRIVATE_URLS: "true",
  MIXDOWN_FETCH_TIMEOUT_MS: "60000",
  MIXDOWN_JOB_LEASE_MS: "1500",
};

/** The input every job here reads: it stalls (the job stays STARTED) while `fixture.state.stall` is set. */
let fixture: Awaited<ReturnType<typeof startStallingFixture>>;
before(async () => {
  fixture = await startStallingFixture(wav);
});
after(() => fixture.close());

// The distributed counterparts of the crash and shutdown tests (a worker process killed or stopped while
// other nodes run on) are in test/distributed/cluster.test.ts.
describe("job lifecycle: crashes and shutdown [embedded]", () => {
  after(() => assertNoneRunning());

  test("a STARTED job whose process died is picked up again after a restart and finishes once", async () => {
    fixture.state.stall = true;
    const server = await Mixdown.start(ENV);
    try {
      const { apiKey } = await server.createApp();
      const id = await server.createJob(apiKey, "mixdown/convert", {
        inputUrl: `${fixture.url}/a.wav`,
        format: "wav",
      });
      await waitForStatus(server, apiKey, id, "STARTED");
      await server.stop("SIGKILL");
      fixture.state.stall = false;
      await server.launch();
      const job = await server.waitForJob(apiKey, id);
      assert.equal(job.status, "SUCCEEDED", JSON.stringify(job.error));
      assert.equal((await fetch(job.result.output)).status, 200);
      const results = fs.readdirSync(path.join(server.dataDir, "blobs/results", id));
      assert.equal(results.length, 1, "one result written");
    } finally {
      await server.dispose();
    }
  });

  test("SIGTERM: stops accepting, returns an unfinished job to the queue after the grace period, exits 0", async () => {
    fixture.state.stall = true;
    const server = await Mixdown.start({ ...ENV, MIXDOWN_SHUTDOWN_GRACE_MS: "300" });
    try {
      const { apiKey } = await server.createApp();
      const id = await server.createJob(apiKey, "mixdown/convert", {
        inputUrl: `${fixture.url}/b.wav`,
        format: "wav",
      });
      await waitForStatus(server, apiKey, id, "STARTED");
      assert.equal(await server.stop("SIGTERM"), 0);
      fixture.state.stall = false;
      await server.launch();
      // Released, not leased: it runs at once rather than after the lease expires.
      const job = await server.waitForJob(apiKey, id);
      assert.equal(job.status, "SUCCEEDED", JSON.stringify(job.error));
    } finally {
      await server.dispose();
    }
  });

  test("SIGTERM lets a job finish within the grace period", async () => {
    fixture.state.stall = true;
    const server = await Mixdown.start({ ...ENV, MIXDOWN_SHUTDOWN_GRACE_MS: "20000" });
    try {
      const { apiKey } = await server.createApp();
      const id = await server.createJob(apiKey, "mixdown/convert", {
        inputUrl: `${fixture.url}/c.wav`,
        format: "wav",
      });
      await waitForStatus(server, apiKey, id, "STARTED");
      const exit = server.stop("SIGTERM");
      await delay(300);
      fixture.resume();
      assert.equal(await exit, 0);
      const db = new (await import("node:sqlite")).DatabaseSync(path.join(server.dataDir, "mixdown.sqlite"));
      const row = db.prepare("SELECT status, result FROM jobs WHERE id = ?").get(id) as {
        status: string;
        result: string;
      };
      db.close();
      assert.equal(row.status, "SUCCEEDED");
      assert.match(row.result, /output\.wav/);
    } finally {
      await server.dispose();
    }
  });
});

for (const { backend, skip } of BACKENDS)
  describeOrSkip(`job lifecycle: deleting a running job [${backend}]`, skip, () => {
    after(() => assertNoneRunning());

    test("DELETE of a running job stops it; it leaves no job, no result and no scratch files", async () => {
      fixture.state.stall = true;
      const server = await Mixdown.start(ENV, { backend });
      try {
        const { apiKey } = await server.createApp();
        const id = await server.createJob(apiKey, "mixdown/convert", {
          inputUrl: `${fixture.url}/d.wav`,
          format: "wav",
        });
        await waitForStatus(server, apiKey, id, "STARTED");
        assert.deepEqual((await server.api("DELETE", `/v1/job/${id}`, { key: apiKey })).body, { id });
        assert.equal((await server.api("GET", `/v1/job/${id}`, { key: apiKey })).status, 404);
        // The stopped job's scratch directory goes once its worker has unwound (bounded wait).
        for (let i = 0; i < 100 && scratchFiles(server).length > 0; i++) await delay(100);
        assert.deepEqual(scratchFiles(server), []);
        assert.deepEqual(await storedKeys(server, `results/${id}/`), []);
        // The worker is free again: a new job runs.
        fixture.state.stall = false;
        const next = await server.waitForJob(
          apiKey,
          await server.createJob(apiKey, "mixdown/convert", {
            inputUrl: `${fixture.url}/e.wav`,
            format: "wav",
          }),
        );
        assert.equal(next.status, "SUCCEEDED");
      } finally {
        await server.dispose();
      }
    });
  });
