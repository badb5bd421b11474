import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import { setTimeout as delay } from "node:timers/promises";
import { sineWav } from "../helpers/audio.ts";
import { startFixture } from "../helpers/http-fixture.ts";
import { assertNoneRunning, Mixdown } from "../helpers/mixdown.ts";

const wav = sineWav(1);

/**
 * Serves the WAV; while `stall` is set, sends the headers and a few bytes, then waits (the job stays
 * STARTED) until resume() sends the rest.
 */
async function stallableFixture() {
  const state = { stall: true };
  const stalled = new Set<import("node:http").ServerResponse>();
  const fixture = await startFixture((_request, response) => {
    if (state.stall) {
      response.writeHead(200, { "content-length": String(wav.length), "content-type": "audio/wav" });
      response.write(wav.subarray(0, 100));
      stalled.add(response);
      return;
    }
    response.writeHead(200, { "content-type": "audio/wav" }).end(wav);
  });
  const resume = () => {
    for (const response of stalled) if (!response.destroyed) response.end(wav.subarray(100));
    stalled.clear();
  };
  return { ...fixture, state, resume };
}

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

describe("job lifecycle: crashes, shutdown, deletion", () => {
  let fixture: Awaited<ReturnType<typeof stallableFixture>>;
  before(async () => {
    fixture = await stallableFixture();
  });
  after(async () => {
    await fixture.close();
    assertNoneRunning();
  });

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

  test("DELETE of a running job stops it; it leaves no job, no result and no scratch files", async () => {
    fixture.state.stall = true;
    const server = await Mixdown.start(ENV);
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
      for (let i = 0; i < 100 && fs.readdirSync(path.join(server.dataDir, "scratch")).length > 0; i++) await delay(100);
      assert.deepEqual(fs.readdirSync(path.join(server.dataDir, "scratch")), []);
      assert.equal(fs.existsSync(path.join(server.dataDir, "blobs/results", id)), false);
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
