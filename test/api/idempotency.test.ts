import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { MixdownClient } from "../../sdk/src/index.ts";
import { describeOrSkip } from "../helpers/backends.ts";
import { type AppInfo, assertNoneRunning, BACKENDS, Mixdown } from "../helpers/mixdown.ts";

const BODY = {
  name: "take",
  workflow: "mixdown/convert",
  params: { inputUrl: "https://example.com/a.wav", format: "mp3" },
};

for (const { backend, skip } of BACKENDS)
  describeOrSkip(`POST /job with Idempotency-Key [${backend}]`, skip, () => {
    let server: Mixdown;
    let app: AppInfo;
    let other: AppInfo;

    before(async () => {
      server = await Mixdown.start({ MIXDOWN_WORKERS: "0" }, { backend, workers: 0 });
      app = await server.createApp("idem-app");
      other = await server.createApp("idem-other");
    });
    after(async () => {
      await server.dispose();
      assertNoneRunning();
    });

    const create = (key: string | undefined, body: unknown = BODY, apiKey = app.apiKey) =>
      server.api("POST", "/v1/job", {
        key: apiKey,
        body,
        headers: key === undefined ? {} : { "idempotency-key": key },
      });
    const jobCount = async (apiKey = app.apiKey) =>
      Number((await server.api("GET", "/v1/job?size=1", { key: apiKey })).headers.get("x-total-count"));

    test("the same key and body give the same job, whatever the body's key order; no second job", async () => {
      const before = await jobCount();
      const first = await create("key-1");
      assert.equal(first.status, 200, JSON.stringify(first.body));
      const again = await create("key-1");
      assert.deepEqual(again.body, first.body);
      const reordered = await create("key-1", {
        params: { format: "mp3", inputUrl: BODY.params.inputUrl },
        workflow: BODY.workflow,
        name: "take",
      });
      assert.deepEqual(reordered.body, first.body);
      assert.equal(await jobCount(), before + 1);
    });

    test("the same key with another body is 409 IDEMPOTENCY_KEY_REUSED, and creates nothing", async () => {
      const first = await create("key-2");
      const before = await jobCount();
      const reused = await create("key-2", { ...BODY, name: "another take" });
      assert.equal(reused.status, 409);
      assert.equal(reused.body.code, "IDEMPOTENCY_KEY_REUSED");
      assert.match(reused.body.message, new RegExp(`used for job ${first.body.id} with a different request body`));
      assert.equal(await jobCount(), before);
    });

    test("keys are per application; without a key every create is a new job", async () => {
      const mine = await create("shared-key");
      const theirs = await create("shared-key", BODY, other.apiKey);
      assert.equal(theirs.status, 200);
      assert.notEqual(theirs.body.id, mine.body.id);
      const a = await create(undefined);
      const b = await create(undefined);
      assert.notEqual(a.body.id, b.body.id);
    });

    test("twenty concurrent identical requests create exactly one job", async () => {
      const before = await jobCount();
      const answers = await Promise.all(Array.from({ length: 20 }, () => create("concurrent-key")));
      for (const answer of answers) assert.equal(answer.status, 200, JSON.stringify(answer.body));
      assert.equal(new Set(answers.map((a) => a.body.id)).size, 1);
      assert.equal(await jobCount(), before + 1);
    });

    test("a deleted job frees its key; an invalid key is 400 naming the header", async () => {
      const first = await create("key-3");
      assert.equal((await server.api("DELETE", `/v1/job/${first.body.id}`, { key: app.apiKey })).status, 200);
      const fresh = await create("key-3");
      assert.equal(fresh.status, 200);
      assert.notEqual(fresh.body.id, first.body.id);
      for (const bad of ["x".repeat(256), "with space", "é"]) {
        const refused = await create(bad);
        assert.equal(refused.status, 400, bad);
        assert.equal(refused.body.code, "INVALID_REQUEST");
        assert.match(refused.body.message, /idempotency-key/);
      }
    });

    test("SDK: addJob sends a key, and a create whose answer was lost is retried into the same job", async () => {
      const keys: string[] = [];
      let loseNext = true;
      const client = new MixdownClient({
        baseUrl: server.url,
        apiKey: app.apiKey,
        fetch: async (input, init) => {
          const response = await fetch(input, init);
          const key = new Headers(init?.headers).get("idempotency-key");
          if (key) keys.push(key);
          // The first create reaches the server, then the connection "drops" before the answer arrives.
          if (key && loseNext) {
            loseNext = false;
            await response.body?.cancel();
            throw new TypeError("fetch failed", { cause: new Error("socket hang up") });
          }
          return response;
        },
      });
      const before = await jobCount();
      const id = await client.addJob(BODY);
      assert.equal(keys.length, 2);
      assert.equal(keys[0], keys[1]);
      assert.match(keys[0] as string, /^[0-9a-f-]{36}$/);
      assert.equal(await jobCount(), before + 1);
      assert.equal((await client.getJob(id)).name, "take");
      // Each addJob call is a new job (a new key), unless the caller gives its own key.
      const second = await client.addJob(BODY);
      assert.notEqual(second, id);
      const mine = await client.addJob({ ...BODY, idempotencyKey: "caller-key" });
      assert.equal(await client.addJob({ ...BODY, idempotencyKey: "caller-key" }), mine);
    });
  });
