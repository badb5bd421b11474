import assert from "node:assert/strict";
import { after, test } from "node:test";
import pg from "pg";
import { sineWav } from "../helpers/audio.ts";
import { describeOrSkip, distributedUnavailable } from "../helpers/backends.ts";
import { startFixture } from "../helpers/http-fixture.ts";
import { storedKeys } from "../helpers/inspect.ts";
import { assertNoneRunning, Mixdown, type NodeProcess } from "../helpers/mixdown.ts";
import { waitFor } from "./wait-for.ts";

/** How long each run of the job takes: its input arrives over this long, whichever worker reads it. */
const JOB_MS = 60_000;
const CHUNKS = 120;

/** Serves `body` on every path, in CHUNKS pieces spread over JOB_MS; records when each request came. */
async function startTricklingFixture(body: Buffer) {
  const requests: number[] = [];
  const fixture = await startFixture((_request, response) => {
    requests.push(Date.now());
    response.writeHead(200, { "content-length": String(body.length), "content-type": "audio/wav" });
    const size = Math.ceil(body.length / CHUNKS);
    let sent = 0;
    const timer = setInterval(() => {
      response.write(body.subarray(sent, sent + size));
      sent += size;
      if (sent >= body.length) {
        clearInterval(timer);
        response.end();
      }
    }, JOB_MS / CHUNKS);
    response.on("close", () => clearInterval(timer));
  });
  return { ...fixture, requests };
}

/** The attempt each "job started" line of a worker's log gives. */
function attemptsLogged(worker: NodeProcess): number[] {
  return worker.output
    .split("\n")
    .filter((line) => line.includes('"job started"'))
    .map((line) => JSON.parse(line).attempt as number);
}

describeOrSkip("distributed mode: deploys and crashes during a long job", distributedUnavailable, () => {
  after(() => assertNoneRunning());

  test("three rolling restarts (SIGTERM) cost a 60 s job no attempt; a crash (SIGKILL) costs one; it succeeds once", async (t) => {
    const input = await startTricklingFixture(sineWav(1));
    t.after(() => input.close());
    const server = await Mixdown.start(
      {
        MIXDOWN_ALLOW_PRIVATE_URLS: "true",
        MIXDOWN_SHUTDOWN_GRACE_MS: "200",
        // pg-boss's smallest heartbeat window (10 s), so that the crash's takeover costs the test little.
        MIXDOWN_JOB_LEASE_MS: "15000",
        MIXDOWN_LOG_LEVEL: "info",
      },
      { backend: "distributed", workers: 1 },
    );
    const db = new pg.Client({ connectionString: server.env.MIXDOWN_DATABASE_URL });
    await db.connect();
    t.after(async () => {
      await db.end();
      await server.dispose();
    });
    /** pg-boss's count of the job's counted attempts beyond the first. */
    const retries = async (id: string) =>
      (await db.query<{ retry_count: number }>("SELECT retry_count FROM pgboss.job WHERE id = $1", [id])).rows[0]
        ?.retry_count;
    const started = Date.now();
    const { apiKey } = await server.createApp();
    const id = await server.createJob(apiKey, "mixdown/convert", {
      inputUrl: `${input.url}/long.wav`,
      format: "wav",
    });
    await waitFor("the job to start", () => (input.requests.length === 1 ? true : undefined));
    let running = server.workers[0] as NodeProcess;

    for (let restart = 1; restart <= 3; restart++) {
      // A rolling restart: the new worker comes up, then the old one is told to stop.
      const next = await server.startWorker();
      assert.equal(await running.stop("SIGTERM"), 0);
      assert.match(running.output, /job returned to the queue at shutdown/);
      const attempts = await waitFor(`the new worker to start the job (restart ${restart})`, () =>
        input.requests.length === restart + 1 && attemptsLogged(next).length > 0 ? attemptsLogged(next) : undefined,
      );
      assert.deepEqual(attempts, [1], `restart ${restart}: the job started again at attempt 1`);
      assert.equal(await retries(id), 0, `restart ${restart}: pg-boss counted no retry`);
      running = next;
    }

    const survivor = await server.startWorker();
    const killedAt = Date.now();
    await running.stop("SIGKILL");
    const attempts = await waitFor("another worker to take the job after the crash", () =>
      input.requests.length === 5 && attemptsLogged(survivor).length > 0 ? attemptsLogged(survivor) : undefined,
    );
    t.diagnostic(`taken over ${((Date.now() - killedAt) / 1000).toFixed(1)} s after SIGKILL`);
    assert.deepEqual(attempts, [2], "the crash counted an attempt");
    assert.equal(await retries(id), 1);

    const job = await server.waitForJob(apiKey, id, JOB_MS + 60_000);
    assert.equal(job.status, "SUCCEEDED", JSON.stringify(job.error));
    assert.equal((await storedKeys(server, `results/${id}/`)).length, 1, "one result written");
    assert.equal(await retries(id), 1, "attempts: the crash's only");
    assert.equal(input.requests.length, 5, "five runs: four interrupted, one to the end");
    const lastRun = (Date.now() - (input.requests[4] as number)) / 1000;
    t.diagnostic(`the last run took ${lastRun.toFixed(1)} s; the test ${((Date.now() - started) / 1000).toFixed(1)} s`);
  });
});
