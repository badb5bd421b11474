import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, before, test } from "node:test";
import type { Kysely } from "kysely";
import { ConfigError, loadConfig } from "../../src/config.ts";
import { OperatorError, OperatorService } from "../../src/services/operators.ts";
import { openPostgres } from "../../src/store/postgres/database.ts";
import type { Database } from "../../src/store/sql/schema.ts";
import { SqlOperatorStore } from "../../src/store/sql/sql-operator-store.ts";
import { openSqlite } from "../../src/store/sqlite/database.ts";
import { describeOrSkip, postgresUnavailable, provisionDatabase } from "../helpers/backends.ts";

const PASSWORD = "a long passphrase";

/** Two handles on one database, as two API nodes have, and how to close them. */
type Nodes = { a: Kysely<Database>; b: Kysely<Database>; close(): Promise<void> };

const BACKENDS: { name: string; skip: string | undefined; open: () => Promise<Nodes> }[] = [
  {
    name: "sqlite",
    skip: undefined,
    open: async () => {
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), "mixdown-operators-"));
      const [a, b] = [openSqlite(dir).db, openSqlite(dir).db];
      return {
        a,
        b,
        close: async () => {
          await Promise.all([a.destroy(), b.destroy()]);
          fs.rmSync(dir, { recursive: true, force: true });
        },
      };
    },
  },
  {
    name: "postgres",
    skip: postgresUnavailable,
    open: async () => {
      const database = await provisionDatabase();
      const [a, b] = [await openPostgres(database.url), await openPostgres(database.url)];
      return {
        a: a.db,
        b: b.db,
        close: async () => {
          await Promise.all([a.close(), b.close()]);
          await database.drop();
        },
      };
    },
  },
];

for (const backend of BACKENDS)
  describeOrSkip(`operator store and sign-in rules [${backend.name}]`, backend.skip, () => {
    let nodes: Nodes;
    let one: OperatorService;
    let two: OperatorService;
    before(async () => {
      nodes = await backend.open();
      one = new OperatorService(new SqlOperatorStore(nodes.a), { sessionIdleMs: 3_600_000 });
      two = new OperatorService(new SqlOperatorStore(nodes.b), { sessionIdleMs: 3_600_000 });
    });
    after(() => nodes.close());

    test("a setup token works once, even when two nodes spend it at the same moment", async () => {
      const token = await one.createSetupToken();
      assert.ok(token);
      assert.equal(await two.setupTokenValid(token), true);
      const outcomes = await Promise.allSettled([
        one.completeSetup(token, "first", PASSWORD),
        two.completeSetup(token, "second", PASSWORD),
      ]);
      const sessions = outcomes.filter((o) => o.status === "fulfilled" && o.value !== undefined);
      assert.equal(sessions.length, 1, JSON.stringify(outcomes));
      assert.equal((await one.list()).length, 1);
      assert.equal(await two.setupTokenValid(token), false);
      assert.equal(await one.createSetupToken(), undefined, "no more setup links once an operator exists");
    });

    test("a session opened on one node is accepted by the other, and signing out on either ends it", async () => {
      await one.add("alice", PASSWORD);
      const outcome = await one.signIn("alice", PASSWORD, "192.0.2.1");
      assert.ok(outcome.ok);
      const session = await two.session(outcome.sessionId);
      assert.equal(session?.operator.name, "alice");
      assert.match(session?.csrfToken ?? "", /^[\w-]{43}$/);
      await two.signOut(outcome.sessionId);
      assert.equal(await one.session(outcome.sessionId), undefined);
    });

    test("an idle session ends; resetting a password or removing the operator ends their sessions", async () => {
      const store = new SqlOperatorStore(nodes.a);
      const brief = new OperatorService(store, { sessionIdleMs: 50 });
      const outcome = await brief.signIn("alice", PASSWORD, "192.0.2.1");
      assert.ok(outcome.ok);
      assert.ok(await brief.session(outcome.sessionId));
      await new Promise((resolve) => setTimeout(resolve, 120));
      assert.equal(await brief.session(outcome.sessionId), undefined);
      assert.equal(await one.session(outcome.sessionId), undefined, "deleted, not only refused");

      const again = await one.signIn("alice", PASSWORD, "192.0.2.1");
      assert.ok(again.ok);
      await two.resetPassword("alice", "a different passphrase");
      assert.equal(await one.session(again.sessionId), undefined);
      const third = await one.signIn("alice", "a different passphrase", "192.0.2.1");
      assert.ok(third.ok);
      await two.remove("alice");
      assert.equal(await one.session(third.sessionId), undefined);
    });

    test("failed sign-ins count across nodes: the 6th attempt on any node waits", async () => {
      await one.add("bob", PASSWORD);
      for (let i = 0; i < 5; i++) {
        const node = i % 2 === 0 ? one : two;
        const outcome = await node.signIn("bob", "wrong password!", `198.51.100.${i}`);
        assert.deepEqual(outcome, { ok: false }, `attempt ${i + 1}`);
      }
      const blocked = await two.signIn("bob", PASSWORD, "198.51.100.99");
      assert.equal(blocked.ok, false);
      assert.ok(!blocked.ok && blocked.retryAfterMs !== undefined && blocked.retryAfterMs <= 15_000);
      // Another account from another address is not affected.
      await one.add("carol", PASSWORD);
      assert.ok((await one.signIn("carol", PASSWORD, "203.0.113.7")).ok);
    });

    test("five failures from one address block it for every account", async () => {
      for (let i = 0; i < 5; i++) await one.signIn(`nobody${i}`, "wrong password!", "203.0.113.50");
      const blocked = await two.signIn("carol", PASSWORD, "203.0.113.50");
      assert.ok(!blocked.ok && blocked.retryAfterMs !== undefined);
    });

    test("names and passwords are checked", async () => {
      await assert.rejects(one.add("dave", "short"), OperatorError);
      await assert.rejects(one.add("bad name", PASSWORD), OperatorError);
      await assert.rejects(one.add("carol", PASSWORD), /already exists/);
      await assert.rejects(one.resetPassword("carol", "x".repeat(1025)), OperatorError);
    });
  });

test("MIXDOWN_DASHBOARD_SESSION_IDLE_HOURS: 12 by default, validated", () => {
  assert.equal(loadConfig({}).dashboardSessionIdleMs, 12 * 3600 * 1000);
  assert.equal(loadConfig({ MIXDOWN_DASHBOARD_SESSION_IDLE_HOURS: "2" }).dashboardSessionIdleMs, 2 * 3600 * 1000);
  for (const bad of ["0", "1.5", "soon", "-3"])
    assert.throws(
      () => loadConfig({ MIXDOWN_DASHBOARD_SESSION_IDLE_HOURS: bad }),
      (error: unknown) =>
        error instanceof ConfigError && error.message.includes("MIXDOWN_DASHBOARD_SESSION_IDLE_HOURS"),
    );
});

test("MIXDOWN_TRUST_PROXY: addresses or CIDR ranges, validated", () => {
  assert.deepEqual(loadConfig({}).trustProxy, []);
  assert.deepEqual(loadConfig({ MIXDOWN_TRUST_PROXY: "10.0.0.1, 10.1.0.0/16,::1" }).trustProxy, [
    "10.0.0.1",
    "10.1.0.0/16",
    "::1",
  ]);
  for (const bad of ["proxy.local", "10.0.0.0/33", "10.0.0.1/8/1", "true"])
    assert.throws(
      () => loadConfig({ MIXDOWN_TRUST_PROXY: bad }),
      (error: unknown) => error instanceof ConfigError && error.message.includes("MIXDOWN_TRUST_PROXY"),
    );
});
