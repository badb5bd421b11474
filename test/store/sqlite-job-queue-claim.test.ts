import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, test } from "node:test";
import { setTimeout as delay } from "node:timers/promises";
import { uuidv7 } from "../../src/ids.ts";
import { openSqlite } from "../../src/store/sqlite/database.ts";
import { SqliteJobQueue } from "../../src/store/sqlite/sqlite-job-queue.ts";

const dir = fs.mkdtempSync(path.join(os.tmpdir(), "mixdown-sqlite-claim-"));
const { db } = openSqlite(dir);
after(async () => {
  await db.destroy();
  fs.rmSync(dir, { recursive: true, force: true });
});

/** A fresh queue over the same database, emptied first, and a way to enqueue jobs named by their application. */
async function queueWith(apps: string[], appConcurrency = 0) {
  await db.deleteFrom("jobs").execute();
  for (const id of apps) {
    await db
      .insertInto("applications")
      .values({ id, name: id, key_hash: `hash-${id}`, created_at: new Date().toISOString(), revoked_at: null })
      .onConflict((conflict) => conflict.doNothing())
      .execute();
  }
  const queue = new SqliteJobQueue(db, { appConcurrency });
  const names = new Map<string, string>();
  const enqueue = async (appId: string, name: string) => {
    const id = uuidv7();
    names.set(id, name);
    const job = { id, appId, name, batchName: null, metadata: {}, workflow: "mixdown/probe", params: {} };
    await queue.enqueue({ ...job, createdAt: new Date().toISOString(), inputUploadIds: [] });
    return id;
  };
  const claim = async (leaseMs = 30_000) => {
    const job = await queue.claim("worker", leaseMs);
    return job && names.get(job.id);
  };
  return { queue, enqueue, claim };
}

test("claims go to the application with the fewest running jobs, then to the oldest job", async () => {
  const { enqueue, claim } = await queueWith(["a", "b", "c"]);
  for (const name of ["a1", "a2", "a3", "a4"]) await enqueue("a", name);
  await enqueue("b", "b1");
  await enqueue("b", "b2");
  await enqueue("c", "c1");
  const order = [];
  for (let name = await claim(); name; name = await claim()) order.push(name);
  assert.deepEqual(order, ["a1", "b1", "c1", "a2", "b2", "a3", "a4"]);
});

test("an application running MIXDOWN_APP_CONCURRENCY jobs waits while another's run; finishing one lets the next in", async () => {
  const { queue, enqueue, claim } = await queueWith(["a", "b"], 1);
  const first = await enqueue("a", "a1");
  await enqueue("a", "a2");
  await enqueue("b", "b1");
  assert.equal(await claim(), "a1");
  assert.equal(await claim(), "b1");
  assert.equal(await claim(), undefined);
  assert.equal(await queue.complete(first, "worker", {}), true);
  assert.equal(await claim(), "a2");
});

test("a job whose worker's lease ran out is claimed again, ahead of younger waiting jobs", async () => {
  const { enqueue, claim } = await queueWith(["a"]);
  await enqueue("a", "a1");
  await enqueue("a", "a2");
  assert.equal(await claim(20), "a1");
  await delay(40);
  assert.equal(await claim(), "a1");
  assert.equal(await claim(), "a2");
});
