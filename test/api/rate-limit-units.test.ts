import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { setTimeout as delay } from "node:timers/promises";
import { parseRateLimit } from "../../src/api/rate-limit-config.ts";
import { LocalRateLimiter, SharedRateLimiter } from "../../src/api/rate-limiter.ts";
import { ConfigError, loadConfig } from "../../src/config.ts";
import { openPostgres } from "../../src/store/postgres/database.ts";
import { PgRateLimitStore } from "../../src/store/postgres/pg-rate-limit-store.ts";
import { describeOrSkip, postgresUnavailable, provisionDatabase } from "../helpers/backends.ts";

test("MIXDOWN_RATE_LIMIT: N/s or N/min with an optional burst; off by default; mistakes are named", () => {
  assert.deepEqual(parseRateLimit("20/s"), { perSecond: 20, burst: 20 });
  assert.deepEqual(parseRateLimit(" 20/s, burst=40 "), { perSecond: 20, burst: 40 });
  assert.deepEqual(parseRateLimit("600/min"), { perSecond: 10, burst: 600 });
  assert.deepEqual(parseRateLimit("0.5/s"), { perSecond: 0.5, burst: 1 });
  for (const off of [undefined, "", "off", "OFF"]) assert.equal(parseRateLimit(off), undefined);
  for (const bad of ["20", "20/h", "s/20", "20/s,burst=", "20/s,burst=0", "0/s", "-1/s", "20/s;burst=4"]) {
    assert.equal(typeof parseRateLimit(bad), "string", bad);
  }
  assert.equal(loadConfig({}).rateLimit, undefined);
  assert.equal(loadConfig({}).maxQueuedJobs, 0);
  assert.throws(
    () => loadConfig({ MIXDOWN_RATE_LIMIT: "lots" }),
    (error: unknown) => {
      assert.ok(error instanceof ConfigError);
      assert.match(error.message, /^MIXDOWN_RATE_LIMIT must look like "20\/s"/);
      return true;
    },
  );
  assert.throws(() => loadConfig({ MIXDOWN_MAX_QUEUED_JOBS: "-3" }), /MIXDOWN_MAX_QUEUED_JOBS must be a whole number/);
});

test("in memory: a burst, then one request per token, each application on its own", async () => {
  const limiter = new LocalRateLimiter({ perSecond: 10, burst: 3 });
  assert.deepEqual(
    [1, 2, 3].map(() => limiter.take("a")),
    [0, 0, 0],
  );
  const wait = limiter.take("a");
  assert.ok(wait > 0 && wait <= 100, `wait ${wait} ms`);
  assert.equal(limiter.take("b"), 0, "another application has its own bucket");
  await delay(wait + 20);
  assert.equal(limiter.take("a"), 0, "a token came back");
  assert.ok(limiter.take("a") > 0);
});

describeOrSkip("rate limits shared through Postgres", postgresUnavailable, () => {
  let database: Awaited<ReturnType<typeof provisionDatabase>>;
  let close: () => Promise<void>;
  let store: PgRateLimitStore;

  before(async () => {
    database = await provisionDatabase();
    const opened = await openPostgres(database.url);
    close = opened.close;
    store = new PgRateLimitStore(opened.db);
  });
  after(async () => {
    await close();
    await database.drop();
  });

  test("concurrent takes never overdraw the bucket", async () => {
    const limit = { perSecond: 0.001, burst: 10 };
    const grants = await Promise.all(Array.from({ length: 40 }, () => store.takeTokens("app-concurrent", 1, limit)));
    assert.equal(
      grants.reduce((sum, g) => sum + g.granted, 0),
      10,
    );
    const refused = grants.filter((g) => g.granted === 0);
    assert.equal(refused.length, 30);
    assert.ok(refused.every((g) => g.waitMs > 0));
  });

  test("two nodes together admit what one bucket allows, not twice that", async () => {
    const limit = { perSecond: 20, burst: 10 };
    const nodes = [new SharedRateLimiter(store, limit), new SharedRateLimiter(store, limit)];
    const started = performance.now();
    let admitted = 0;
    const perNode = [0, 0];
    while (performance.now() - started < 1000) {
      for (const [i, node] of nodes.entries()) {
        if ((await node.take("app-shared")) === 0) {
          admitted++;
          perNode[i] = (perNode[i] as number) + 1;
        }
      }
      await delay(5);
    }
    const seconds = (performance.now() - started) / 1000;
    // One bucket: its burst plus what it refilled meanwhile (a node's untaken allowance only lowers this).
    assert.ok(admitted <= 10 + 20 * seconds + 1, `${admitted} admitted in ${seconds.toFixed(2)} s`);
    assert.ok(admitted >= 10, `${admitted} admitted`);
    assert.ok((perNode[0] as number) > 0 && (perNode[1] as number) > 0, `both nodes admitted some: ${perNode}`);
  });
});
