import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { MixdownClient } from "../../sdk/src/index.ts";
import { loadConfig } from "../../src/config.ts";
import { uuidv7 } from "../../src/ids.ts";
import { openStores } from "../../src/runtime.ts";
import { sineWav } from "../helpers/audio.ts";
import { describeOrSkip } from "../helpers/backends.ts";
import { startStallingFixture } from "../helpers/http-fixture.ts";
import { type AppInfo, assertNoneRunning, BACKENDS, Mixdown } from "../helpers/mixdown.ts";
import { startReceiver, verify } from "./receiver.ts";

const ENV = { MIXDOWN_ALLOW_PRIVATE_URLS: "true", MIXDOWN_WEBHOOK_RETRY_SCHEDULE: "0.2,0.2,0.2" };

for (const { backend, skip } of BACKENDS)
  describeOrSkip(`webhooks [${backend}]`, skip, () => {
    let server: Mixdown;
    let receiver: Awaited<ReturnType<typeof startReceiver>>;
    let wavUrl: string;

    before(async () => {
      receiver = await startReceiver();
      server = await Mixdown.start(ENV, { backend });
      const app = await server.createApp("uploader");
      wavUrl = await server.upload(app.apiKey, sineWav(1), "audio/wav");
    });
    after(async () => {
      await server.dispose();
      await receiver.close();
      assertNoneRunning();
    });

    /** `mixdown app webhook ARGS --json`, parsed; fails on a non-zero exit. */
    async function webhook(...args: string[]): Promise<any> {
      const { stdout, stderr, code } = await server.cli(["app", "webhook", ...args, "--json"]);
      assert.equal(code, 0, stderr);
      return JSON.parse(stdout);
    }

    /** A new application with one endpoint at receiver path `path`. */
    async function appWithEndpoint(path: string): Promise<{ app: AppInfo; endpoint: { id: string; secret: string } }> {
      const app = await server.createApp(path.slice(1));
      const endpoint = await webhook("add", app.id, `${receiver.url}${path}`);
      return { app, endpoint };
    }

    /** The job's delivery of one event type from the log, once it is no longer PENDING (bounded wait). */
    async function settled(appId: string, jobId: string, type: string): Promise<any> {
      const deadline = Date.now() + 20_000;
      for (;;) {
        const deliveries = await webhook("deliveries", appId, "--job", jobId);
        const delivery = deliveries.find((d: any) => d.eventType === type);
        if (delivery && delivery.status !== "PENDING") return delivery;
        if (Date.now() > deadline) throw new Error(`the ${type} delivery of ${jobId} is still pending`);
      }
    }

    const convert = (app: AppInfo, extra: Record<string, unknown> = {}) =>
      server.createJob(app.apiKey, "mixdown/convert", { inputUrl: wavUrl, format: "wav" }, extra);

    test("an endpoint gets job.started and job.succeeded, signed (checked by standardwebhooks), with the job as GET /job/:id shows it", async () => {
      const { app, endpoint } = await appWithEndpoint("/ok");
      assert.match(endpoint.secret, /^whsec_[A-Za-z0-9+/]+=*$/);
      const id = await convert(app);
      const job = await server.waitForJob(app.apiKey, id);
      assert.equal(job.status, "SUCCEEDED", JSON.stringify(job.error));
      const [started] = await receiver.waitFor("/ok", id, "job.started");
      const [succeeded] = await receiver.waitFor("/ok", id, "job.succeeded");
      const startedBody = verify(endpoint.secret, started as never);
      const body = verify(endpoint.secret, succeeded as never);
      assert.equal(startedBody.type, "job.started");
      assert.equal(body.type, "job.succeeded");
      assert.equal(body.data.id, id);
      assert.equal(body.data.status, "SUCCEEDED");
      assert.deepEqual(Object.keys(body.data).sort(), Object.keys(job).sort());
      // A fresh, working result URL, minted at delivery.
      assert.equal((await fetch(body.data.result.output)).status, 200);
      assert.notEqual(started?.headers["webhook-id"], succeeded?.headers["webhook-id"]);
      assert.throws(() => verify(`whsec_${Buffer.alloc(32, 1).toString("base64")}`, succeeded as never));
      const log = await webhook("deliveries", app.id);
      assert.deepEqual(log.map((d: any) => [d.eventType, d.status, d.attempts, d.lastStatusCode]).sort(), [
        ["job.started", "DELIVERED", 1, 200],
        ["job.succeeded", "DELIVERED", 1, 200],
      ]);
    });

    test("a failed job sends job.failed with its error", async () => {
      const { app, endpoint } = await appWithEndpoint("/failed");
      const id = await server.createJob(app.apiKey, "mixdown/convert", {
        inputUrl: `${receiver.url}/no-such-input.wav`,
        format: "wav",
      });
      receiver.script.set("/no-such-input.wav", [404]);
      const [failed] = await receiver.waitFor("/failed", id, "job.failed");
      const body = verify(endpoint.secret, failed as never);
      assert.equal(body.data.status, "FAILED");
      assert.equal(body.data.error.code, "BAD_INPUT");
    });

    test("a cancelled job sends job.cancelled", async () => {
      const { app, endpoint } = await appWithEndpoint("/cancelled");
      const stalling = await startStallingFixture(sineWav(1));
      try {
        const inputUrl = `${stalling.url}/slow.wav`;
        const id = await server.createJob(app.apiKey, "mixdown/convert", { inputUrl, format: "wav" });
        await receiver.waitFor("/cancelled", id, "job.started");
        const cancelled = await server.api("POST", `/v1/job/${id}/cancel`, { key: app.apiKey });
        assert.equal(cancelled.status, 200);
        const [event] = await receiver.waitFor("/cancelled", id, "job.cancelled");
        const body = verify(endpoint.secret, event as never);
        assert.equal(body.data.status, "FAILED");
        assert.equal(body.data.error.code, "CANCELLED");
        assert.equal(receiver.of("/cancelled", id, "job.failed").length, 0);
      } finally {
        stalling.resume();
        await stalling.close();
      }
    });

    test("a job's own webhookUrl gets its events, signed with the application's job-webhook secret", async () => {
      const app = await server.createApp("own-url");
      const { secret } = await webhook("secret", app.id);
      // Through our SDK, which passes webhookUrl on.
      const sdk = new MixdownClient({ baseUrl: server.url, apiKey: app.apiKey });
      const params = { inputUrl: wavUrl, format: "wav" };
      const id = await sdk.addJob({
        name: "own",
        workflow: "mixdown/convert",
        params,
        webhookUrl: `${receiver.url}/own`,
      });
      const [succeeded] = await receiver.waitFor("/own", id, "job.succeeded");
      assert.equal(verify(secret, succeeded as never).data.id, id);
      await receiver.waitFor("/own", id, "job.started");
      const log = await webhook("deliveries", app.id, "--job", id);
      assert.equal(log.length, 2);
      assert.ok(log.every((d: any) => d.endpointId === null && d.status === "DELIVERED"));
    });

    test("a receiver answering 500 gets the same delivery again (same webhook-id) until it answers 200", async () => {
      receiver.script.set("/flaky", [500, 503, 200]);
      const { app, endpoint } = await appWithEndpoint("/flaky");
      const id = await convert(app);
      const attempts = await receiver.waitFor("/flaky", id, "job.succeeded", 3);
      const ids = new Set(attempts.map((a) => a.headers["webhook-id"]));
      assert.equal(ids.size, 1, "one message id across retries");
      for (const attempt of attempts) verify(endpoint.secret, attempt as never);
      const delivery = await settled(app.id, id, "job.succeeded");
      assert.equal(delivery.status, "DELIVERED");
      assert.equal(delivery.attempts, 3);
      assert.equal(delivery.lastStatusCode, 200);
    });

    test("a receiver that never answers 2xx: the delivery ends FAILED after the schedule, with the last code", async () => {
      receiver.script.set("/down", [502]);
      const { app } = await appWithEndpoint("/down");
      const id = await convert(app);
      await receiver.waitFor("/down", id, "job.succeeded", 4);
      const delivery = await settled(app.id, id, "job.succeeded");
      assert.equal(delivery.status, "FAILED");
      assert.equal(delivery.attempts, 4, "the first attempt and one retry per schedule entry");
      assert.equal(delivery.lastStatusCode, 502);
      assert.match(delivery.lastError, /HTTP 502/);
    });

    test("a receiver that does not answer within 10 s: the attempt counts as failed and the delivery is retried", async () => {
      receiver.script.set("/silent", [0, 200]);
      const { app } = await appWithEndpoint("/silent");
      const id = await convert(app);
      const [first, second] = await receiver.waitFor("/silent", id, "job.succeeded", 2, 40_000);
      assert.ok((second?.at ?? 0) - (first?.at ?? 0) >= 9_900, "the second attempt came after the 10 s timeout");
      const delivery = await settled(app.id, id, "job.succeeded");
      assert.equal(delivery.status, "DELIVERED");
      assert.equal(delivery.attempts, 2);
    });

    test("410 Gone disables the endpoint: later events are not sent to it", async () => {
      receiver.script.set("/gone", [410]);
      const { app, endpoint } = await appWithEndpoint("/gone");
      const first = await convert(app);
      await receiver.waitFor("/gone", first, "job.started");
      let listed: any[] = [];
      for (let i = 0; i < 100 && !listed[0]?.disabledAt; i++) listed = await webhook("list", app.id);
      assert.equal(listed[0].id, endpoint.id);
      assert.match(listed[0].disabledReason, /410/);
      await server.waitForJob(app.apiKey, first);
      const second = await convert(app);
      await server.waitForJob(app.apiKey, second);
      assert.equal(receiver.of("/gone", second).length, 0);
      assert.equal(receiver.of("/gone", first, "job.started").length, 1, "no retry after 410");
    });

    test("rotate-secret: deliveries are signed with the new secret and, during the grace period, the old one", async () => {
      const { app, endpoint } = await appWithEndpoint("/rotated");
      const rotated = await webhook("rotate-secret", app.id, endpoint.id, "--grace-hours", "1");
      assert.notEqual(rotated.secret, endpoint.secret);
      const id = await convert(app);
      const [delivered] = await receiver.waitFor("/rotated", id, "job.succeeded");
      assert.equal(delivered?.headers["webhook-signature"]?.split(" ").length, 2);
      verify(rotated.secret, delivered as never);
      verify(endpoint.secret, delivered as never);
      const again = await webhook("rotate-secret", app.id, endpoint.id, "--grace-hours", "0");
      const later = await convert(app);
      const [next] = await receiver.waitFor("/rotated", later, "job.succeeded");
      verify(again.secret, next as never);
      assert.throws(() => verify(rotated.secret, next as never));
    });

    test("a node that dies in the middle of a delivery: once its lease has run out the delivery is made again", async () => {
      receiver.script.set("/midway", [0, 200]);
      const { app, endpoint } = await appWithEndpoint("/midway");
      const id = await convert(app);
      const [first] = await receiver.waitFor("/midway", id, "job.succeeded");
      await server.stop("SIGKILL");
      await server.launch();
      // The dead node's 30 s lease on the delivery must run out first.
      const [, second] = await receiver.waitFor("/midway", id, "job.succeeded", 2, 90_000);
      assert.equal(second?.headers["webhook-id"], first?.headers["webhook-id"], "the same message again");
      assert.equal(verify(endpoint.secret, second as never).data.status, "SUCCEEDED");
      const delivery = await settled(app.id, id, "job.succeeded");
      assert.equal(delivery.status, "DELIVERED");
    });

    test("events written before a crash are delivered after the restart", async () => {
      const { app, endpoint } = await appWithEndpoint("/restart");
      await server.stop("SIGKILL");
      // The transitions happen with no deliverer running (as if the node died right after committing them).
      const stores = await openStores(loadConfig(server.env));
      const id = uuidv7();
      try {
        await stores.queue.enqueue({
          id,
          appId: app.id,
          name: "crashed before delivery",
          batchName: null,
          metadata: {},
          workflow: "mixdown/convert",
          params: {},
          createdAt: new Date().toISOString(),
          inputUploadIds: [],
        });
        const claimed = await stores.queue.claim("test-worker", 30_000);
        assert.equal(claimed?.id, id);
        assert.ok(await stores.queue.complete(id, "test-worker", {}));
      } finally {
        await stores.close();
      }
      assert.equal(receiver.of("/restart", id).length, 0);
      await server.launch();
      const [started] = await receiver.waitFor("/restart", id, "job.started");
      const [succeeded] = await receiver.waitFor("/restart", id, "job.succeeded");
      verify(endpoint.secret, started as never);
      assert.equal(verify(endpoint.secret, succeeded as never).data.status, "SUCCEEDED");
    });
  });

describeOrSkip("webhooks: internal addresses [embedded]", undefined, () => {
  let server: Mixdown;
  before(async () => {
    server = await Mixdown.start();
  });
  after(async () => {
    await server.dispose();
    assertNoneRunning();
  });

  test("the OpenAPI document describes the events (webhooks) and POST /job's webhookUrl and copyResultsTo", async () => {
    const { body } = await server.api("GET", "/openapi.json");
    assert.deepEqual(Object.keys(body.webhooks).sort(), [
      "job.cancelled",
      "job.failed",
      "job.started",
      "job.succeeded",
    ]);
    const headers = body.webhooks["job.succeeded"].post.parameters.map((p: { name: string }) => p.name);
    assert.deepEqual(headers, ["webhook-id", "webhook-timestamp", "webhook-signature"]);
    const create = body.paths["/v1/job"].post.requestBody.content["application/json"].schema.properties;
    assert.match(create.webhookUrl.description, /Standard Webhooks/);
    assert.match(create.copyResultsTo.description, /\[custom storage\]/);
  });

  test("an endpoint or a job webhookUrl on an internal address is refused unless MIXDOWN_ALLOW_PRIVATE_URLS", async () => {
    const app = await server.createApp();
    for (const url of ["http://127.0.0.1:9/hook", "http://localhost/hook", "http://[::1]/hook", "http://10.1.2.3/"]) {
      const added = await server.cli(["app", "webhook", "add", app.id, url]);
      assert.equal(added.code, 2, url);
      assert.match(added.stderr, /internal address/);
    }
    const listed = await server.cli(["app", "webhook", "list", app.id, "--json"]);
    assert.deepEqual(JSON.parse(listed.stdout), []);
    const wav = await server.upload(app.apiKey, sineWav(0.2), "audio/wav");
    for (const webhookUrl of ["http://192.168.1.1/hook", "ftp://example.com/x", "not a url"]) {
      const response = await server.api("POST", "/v1/job", {
        key: app.apiKey,
        body: { name: "x", workflow: "mixdown/convert", params: { inputUrl: wav, format: "wav" }, webhookUrl },
      });
      assert.equal(response.status, 400, webhookUrl);
      assert.equal(response.body.code, "INVALID_REQUEST");
      assert.equal(response.body.details[0].field, "webhookUrl");
    }
    const unknown = await server.cli(["app", "webhook", "list", "no-such-app"]);
    assert.equal(unknown.code, 2);
    assert.match(unknown.stderr, /no application with id no-such-app/);
  });
});
