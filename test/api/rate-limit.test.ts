import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { setTimeout as delay } from "node:timers/promises";
import { MixdownClient } from "../../sdk/src/index.ts";
import { describeOrSkip } from "../helpers/backends.ts";
import { type AppInfo, assertNoneRunning, BACKENDS, freePort, Mixdown, NodeProcess } from "../helpers/mixdown.ts";

const JOB = { name: "q", workflow: "mixdown/probe", params: { inputUrl: "https://example.com/a.wav" } };

for (const { backend, skip } of BACKENDS)
  describeOrSkip(`rate limits and the queued-jobs cap [${backend}]`, skip, () => {
    let server: Mixdown;
    let app: AppInfo;
    let other: AppInfo;
    /** Distributed: a second API node on the same database. */
    let secondApi: NodeProcess | undefined;

    before(async () => {
      // 1 request/s, a burst of 3; no workers, so jobs stay QUEUED.
      const env = { MIXDOWN_WORKERS: "0", MIXDOWN_RATE_LIMIT: "1/s,burst=3", MIXDOWN_MAX_QUEUED_JOBS: "2" };
      server = await Mixdown.start(env, { backend, workers: 0 });
      app = await server.createApp("limited");
      other = await server.createApp("other");
      if (backend === "distributed") {
        secondApi = new NodeProcess("api");
        const port = await freePort();
        await secondApi.start({ ...server.env, PORT: String(port) }, `http://127.0.0.1:${port}/healthz`);
      }
    });
    after(async () => {
      await secondApi?.stop("SIGKILL");
      await server.dispose();
      assertNoneRunning();
    });

    /** Waits until the application's bucket is full again (3 tokens at 1/s). */
    const refill = () => delay(3200);

    test("over the limit: 429 RATE_LIMITED with Retry-After; other applications are not affected", async () => {
      await refill();
      const answers = [];
      for (let i = 0; i < 4; i++) answers.push(await server.api("GET", "/v1/application", { key: app.apiKey }));
      assert.deepEqual(
        answers.map((a) => a.status),
        [200, 200, 200, 429],
      );
      const refused = answers[3];
      assert.equal(refused?.body.code, "RATE_LIMITED");
      assert.match(refused?.body.message, /Too many requests for this application; retry in 1 s/);
      assert.equal(refused?.headers.get("retry-after"), "1");
      assert.equal((await server.api("GET", "/v1/application", { key: other.apiKey })).status, 200);
      await delay(1100);
      assert.equal((await server.api("GET", "/v1/application", { key: app.apiKey })).status, 200);
    });

    // One embedded process is the whole deployment; only distributed mode has a second API node to share with.
    if (backend === "distributed")
      test("the limit is the deployment's: requests spread over two API nodes share it", async () => {
        await refill();
        const urls = [server.url, secondApi?.url as string];
        const statuses: number[] = [];
        for (let i = 0; i < 6; i++) {
          const response = await fetch(`${urls[i % 2]}/v1/application`, { headers: { authorization: app.apiKey } });
          statuses.push(response.status);
        }
        assert.equal(statuses.filter((s) => s === 200).length, 3, String(statuses));
        assert.deepEqual(statuses.slice(3), [429, 429, 429]);
      });

    test("the SDK waits as Retry-After says and tries again", async () => {
      await refill();
      const client = new MixdownClient({ baseUrl: server.url, apiKey: app.apiKey });
      const started = performance.now();
      for (let i = 0; i < 5; i++) assert.equal((await client.getApplication()).name, "limited");
      assert.ok(performance.now() - started >= 1000, "it waited for tokens");
      const impatient = new MixdownClient({ baseUrl: server.url, apiKey: app.apiKey, maxRetries: 0 });
      await assert.rejects(
        impatient.getApplication(),
        (error: { status: number; code: string; retryAfterMs: number }) => {
          assert.equal(error.status, 429);
          assert.equal(error.code, "RATE_LIMITED");
          assert.equal(error.retryAfterMs, 1000);
          return true;
        },
      );
    });

    test("MIXDOWN_MAX_QUEUED_JOBS: a third waiting job is 429 TOO_MANY_QUEUED_JOBS until one leaves", async () => {
      await refill();
      const create = (key: string) => server.api("POST", "/v1/job", { key, body: JOB });
      const first = await create(app.apiKey);
      const second = await create(app.apiKey);
      assert.equal(first.status, 200);
      assert.equal(second.status, 200);
      const third = await create(app.apiKey);
      assert.equal(third.status, 429);
      assert.equal(third.body.code, "TOO_MANY_QUEUED_JOBS");
      assert.match(third.body.message, /already has 2 jobs waiting to start/);
      assert.equal(third.headers.get("retry-after"), "5");
      await refill();
      assert.equal((await create(other.apiKey)).status, 200, "another application has its own cap");
      assert.equal((await server.api("POST", `/v1/job/${first.body.id}/cancel`, { key: app.apiKey })).status, 200);
      assert.equal((await create(app.apiKey)).status, 200);
    });
  });
