import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, before, test } from "node:test";
import { setTimeout as delay } from "node:timers/promises";
import pg from "pg";
import type { NewJob } from "../../src/domain.ts";
import type { Stores } from "../../src/runtime.ts";
import { openPostgresStores } from "../../src/store/postgres/open.ts";
import { SqlMetadataStore } from "../../src/store/sql/sql-metadata-store.ts";
import { openSqlite } from "../../src/store/sqlite/database.ts";
import { SqliteJobQueue } from "../../src/store/sqlite/sqlite-job-queue.ts";
import { describeOrSkip, postgresUnavailable, provisionDatabase } from "../helpers/backends.ts";

function newJob(appId: string): NewJob {
  return {
    id: randomUUID(),
    appId,
    name: "job",
    batchName: null,
    metadata: {},
    workflow: "mixdown/convert",
    params: {},
    createdAt: new Date().toISOString(),
    inputUploadIds: [],
  };
}

async function createApp(stores: Stores): Promise<string> {
  const id = randomUUID();
  await stores.store.createApplication(
    { id, name: "app", createdAt: new Date().toISOString(), revokedAt: null },
    randomUUID(),
  );
  return id;
}

/**
 * Resolves when `count()` reaches `n` (calling `refresh` before each look), or fails after 10 s: notifications
 * take milliseconds, so this only bounds a test that would otherwise hang.
 */
async function until(count: () => number, n: number, refresh: () => Promise<void> = async () => undefined) {
  const deadline = Date.now() + 10_000;
  for (;;) {
    await refresh();
    if (count() >= n) return;
    if (Date.now() > deadline) throw new Error(`${count()} after 10 s, wanted ${n}`);
    await delay(10);
  }
}

test("embedded queue: watch() is called once per job queued, and no more once stopped", async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "mixdown-queue-watch-"));
  const { db, externalChanges, jobState } = openSqlite(dir);
  try {
    const stores: Stores = {
      store: new SqlMetadataStore(db, externalChanges, jobState),
      queue: new SqliteJobQueue(db, { appConcurrency: 0 }),
      close: () => db.destroy(),
    };
    const appId = await createApp(stores);
    let calls = 0;
    const stop = stores.queue.watch(
      () => calls++,
      (error) => assert.fail(error),
    );
    await stores.queue.enqueue(newJob(appId));
    await stores.queue.enqueue(newJob(appId));
    assert.equal(calls, 2);
    await stop();
    await stores.queue.enqueue(newJob(appId));
    assert.equal(calls, 2);
  } finally {
    await db.destroy();
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

describeOrSkip("Postgres queue: a job queued on one node wakes the watchers of every node", postgresUnavailable, () => {
  let database: Awaited<ReturnType<typeof provisionDatabase>>;
  let apiNode: Stores;
  let workerNode: Stores;
  let appId: string;

  before(async () => {
    database = await provisionDatabase();
    apiNode = await openPostgresStores(database.url, { leaseMs: 30_000, appConcurrency: 0 });
    workerNode = await openPostgresStores(database.url, { leaseMs: 30_000, appConcurrency: 0 });
    appId = await createApp(apiNode);
  });
  after(async () => {
    await apiNode?.close();
    await workerNode?.close();
    await database?.drop();
  });

  /** The test database's backends whose last statement was a LISTEN. */
  async function listeningBackends(): Promise<number[]> {
    const admin = new pg.Client({ connectionString: database.url });
    await admin.connect();
    try {
      const { rows } = await admin.query<{ pid: number }>(
        "SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND query LIKE 'LISTEN%'",
      );
      return rows.map((row) => row.pid);
    } finally {
      await admin.end();
    }
  }

  /** Watches the worker node's queue, counting calls and errors; resolves once its LISTEN is in place. */
  async function watchWorkerNode() {
    const seen = { calls: 0, errors: [] as Error[] };
    const stop = workerNode.queue.watch(
      () => seen.calls++,
      (error) => seen.errors.push(error),
    );
    let listening = 0;
    await until(
      () => listening,
      1,
      async () => {
        listening = (await listeningBackends()).length;
      },
    );
    return { seen, stop };
  }

  test("each enqueue on the API node calls the worker node's watcher; none after it stops", async () => {
    const { seen, stop } = await watchWorkerNode();
    await apiNode.queue.enqueue(newJob(appId));
    await until(() => seen.calls, 1);
    await apiNode.queue.enqueue(newJob(appId));
    await until(() => seen.calls, 2);
    await stop();
    await apiNode.queue.enqueue(newJob(appId));
    await delay(300);
    assert.equal(seen.calls, 2);
    assert.deepEqual(seen.errors, []);
  });

  test("a dropped connection is reported, re-made, and counted as a possible missed job", async () => {
    const { seen, stop } = await watchWorkerNode();
    try {
      const admin = new pg.Client({ connectionString: database.url });
      await admin.connect();
      const [pid] = await listeningBackends();
      await admin.query("SELECT pg_terminate_backend($1)", [pid]);
      await admin.end();
      await until(() => seen.errors.length, 1);
      await until(() => seen.calls, 1); // back: once for what it may have missed
      await apiNode.queue.enqueue(newJob(appId));
      await until(() => seen.calls, 2);
    } finally {
      await stop();
    }
  });
});
