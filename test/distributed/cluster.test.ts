import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { after, test } from "node:test";
import { setTimeout as delay } from "node:timers/promises";
import pg from "pg";
import { sineWav } from "../helpers/audio.ts";
import { describeOrSkip, distributedUnavailable, provisionDistributed } from "../helpers/backends.ts";
import { startStallingFixture } from "../helpers/http-fixture.ts";
import { storedKeys } from "../helpers/inspect.ts";
import { assertNoneRunning, freePort, MIXDOWN_BIN, Mixdown, NodeProcess } from "../helpers/mixdown.ts";
import { waitFor } from "./wait-for.ts";

const wav = sineWav(0.5);

describeOrSkip("distributed mode: API and worker nodes on Postgres, pg-boss and S3", distributedUnavailable, () => {
  after(() => assertNoneRunning());

  test("a worker killed mid-job (SIGKILL) loses it to another worker within 30 s; it finishes once", async (t) => {
    const input = await startStallingFixture(wav);
    const server = await Mixdown.start({ MIXDOWN_ALLOW_PRIVATE_URLS: "true" }, { backend: "distributed", workers: 1 });
    try {
      const { apiKey } = await server.createApp();
      const id = await server.createJob(apiKey, "mixdown/convert", { inputUrl: `${input.url}/a.wav`, format: "wav" });
      await waitFor("the job to start", async () => (input.state.requests.length > 0 ? true : undefined));
      const [first] = server.workers as [NodeProcess];
      await server.startWorker();
      input.state.stall = false;
      const killedAt = Date.now();
      await first.stop("SIGKILL");
      await waitFor(
        "another worker to take the job",
        async () => (input.state.requests.length > 1 ? true : undefined),
        60_000,
      );
      const takeover = ((input.state.requests[1]?.at as number) - killedAt) / 1000;
      t.diagnostic(`taken over ${takeover.toFixed(1)} s after SIGKILL (default lease: 30 s)`);
      assert.ok(takeover <= 30, `taken over after ${takeover} s`);
      const job = await server.waitForJob(apiKey, id);
      assert.equal(job.status, "SUCCEEDED", JSON.stringify(job.error));
      assert.equal((await storedKeys(server, `results/${id}/`)).length, 1, "one result written");
      await delay(1000);
      assert.equal(
        (await server.api("GET", `/v1/job/${id}`, { key: apiKey })).body.completedAt,
        job.completedAt,
        "written once",
      );
    } finally {
      await server.dispose();
      await input.close();
    }
  });

  test("SIGTERM on a worker: it stops claiming, returns its unfinished job within the grace period and exits 0", async () => {
    const input = await startStallingFixture(wav);
    const server = await Mixdown.start(
      { MIXDOWN_ALLOW_PRIVATE_URLS: "true", MIXDOWN_SHUTDOWN_GRACE_MS: "500" },
      { backend: "distributed", workers: 1 },
    );
    try {
      const { apiKey } = await server.createApp();
      const id = await server.createJob(apiKey, "mixdown/convert", { inputUrl: `${input.url}/b.wav`, format: "wav" });
      await waitFor("the job to start", async () => (input.state.requests.length > 0 ? true : undefined));
      assert.equal(await (server.workers[0] as NodeProcess).stop("SIGTERM"), 0);
      const status = (await server.api("GET", `/v1/job/${id}/status`, { key: apiKey })).body.status;
      assert.equal(status, "QUEUED", "returned to the queue");
      input.resume();
      await server.startWorker();
      const job = await server.waitForJob(apiKey, id);
      assert.equal(job.status, "SUCCEEDED", JSON.stringify(job.error));
    } finally {
      await server.dispose();
      await input.close();
    }
  });

  test("restarting the API node under load loses no job", async () => {
    const server = await Mixdown.start({}, { backend: "distributed" });
    try {
      const { apiKey } = await server.createApp();
      const inputUrl = await server.upload(apiKey, wav, "audio/wav");
      const created: string[] = [];
      let stop = false;
      const load = (async () => {
        while (!stop) {
          try {
            created.push(await server.createJob(apiKey, "mixdown/probe", { inputUrl }));
          } catch {
            await delay(50); // the API node is down for a moment
          }
        }
      })();
      await waitFor("some jobs", async () => (created.length >= 5 ? true : undefined));
      assert.equal(await server.apiNode.stop("SIGTERM"), 0);
      await server.apiNode.start(server.env, `${server.url}/healthz`);
      const before = created.length;
      await waitFor("more jobs after the restart", async () => (created.length >= before + 5 ? true : undefined));
      stop = true;
      await load;
      for (const id of created) {
        const job = await server.waitForJob(apiKey, id);
        assert.equal(job.status, "SUCCEEDED", `${id}: ${JSON.stringify(job.error)}`);
      }
      const listed = await server.api("GET", "/v1/job?size=1000", { key: apiKey });
      assert.equal(Number(listed.headers.get("x-total-count")), created.length);
    } finally {
      await server.dispose();
    }
  });

  test("three nodes started at once on a fresh database all come up; migrations run once", async () => {
    const { env, teardown } = await provisionDistributed();
    const nodes: NodeProcess[] = [];
    try {
      const ports = await Promise.all([freePort(), freePort(), freePort()]);
      await Promise.all(
        ports.map((port) => {
          const node = new NodeProcess("all");
          nodes.push(node);
          const dataDir = `/tmp/mixdown-three-${port}`;
          return node.start(
            { ...env, PORT: String(port), MIXDOWN_DATA_DIR: dataDir, MIXDOWN_LOG_LEVEL: "warn" },
            `http://127.0.0.1:${port}/healthz`,
          );
        }),
      );
      const client = new pg.Client({ connectionString: env.MIXDOWN_DATABASE_URL });
      await client.connect();
      const migrations = await client.query("SELECT name, count(*)::int AS n FROM schema_migrations GROUP BY name");
      await client.end();
      assert.ok(migrations.rows.length >= 1);
      assert.ok(migrations.rows.every((row) => row.n === 1));
      const created = await new Promise<{ code: number | null; out: string }>((resolve) => {
        const child = spawn(MIXDOWN_BIN, ["app", "create", "--name", "three", "--json"], {
          env: { ...process.env, ...env },
        });
        let out = "";
        child.stdout.on("data", (d) => (out += d));
        child.on("exit", (code) => resolve({ code, out }));
      });
      assert.equal(created.code, 0);
      const { apiKey } = JSON.parse(created.out);
      for (const port of ports) {
        const response = await fetch(`http://127.0.0.1:${port}/v1/application`, { headers: { authorization: apiKey } });
        assert.equal(response.status, 200, `node on ${port}`);
      }
    } finally {
      await Promise.all(nodes.map((node) => node.stop("SIGKILL")));
      await teardown();
    }
  });

  test("one application queueing 1,000 jobs does not starve another's single job", async (t) => {
    const server = await Mixdown.start({}, { backend: "distributed" });
    try {
      const [a, b] = [await server.createApp("busy"), await server.createApp("patient")];
      const inputA = await server.upload(a.apiKey, wav, "audio/wav");
      const inputB = await server.upload(b.apiKey, wav, "audio/wav");
      const ids: string[] = [];
      for (let batch = 0; batch < 1000; batch += 25) {
        const created = await Promise.all(
          Array.from({ length: 25 }, () => server.createJob(a.apiKey, "mixdown/probe", { inputUrl: inputA })),
        );
        ids.push(...created);
      }
      const single = await server.createJob(b.apiKey, "mixdown/probe", { inputUrl: inputB });
      const job = await server.waitForJob(b.apiKey, single, 120_000);
      assert.equal(job.status, "SUCCEEDED");
      const listed = await server.api("GET", "/v1/job?status=SUCCEEDED&size=1", { key: a.apiKey });
      const doneA = Number(listed.headers.get("x-total-count"));
      t.diagnostic(`the other application's job finished when ${doneA} of the 1,000 had`);
      assert.ok(doneA < 900, `${doneA} of the busy application's jobs had finished first`);
    } finally {
      await server.dispose();
    }
  });
});
