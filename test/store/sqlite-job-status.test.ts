import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { DatabaseSync } from "node:sqlite";
import { after, test } from "node:test";
import { setTimeout as delay } from "node:timers/promises";
import { openSqlite } from "../../src/store/sqlite/database.ts";

const dir = fs.mkdtempSync(path.join(os.tmpdir(), "mixdown-sqlite-status-"));
const { db, jobState } = openSqlite(dir);
const jobStatus = (appId: string, id: string) => jobState(appId, id)?.status;
after(async () => {
  await db.destroy();
  fs.rmSync(dir, { recursive: true, force: true });
});

async function insertJob(appId: string, status: string): Promise<string> {
  const id = randomUUID();
  const now = new Date().toISOString();
  await db
    .insertInto("applications")
    .values({ id: appId, name: "app", key_hash: randomUUID(), created_at: now, revoked_at: null })
    .onConflict((conflict) => conflict.doNothing())
    .execute();
  await db
    .insertInto("jobs")
    .values({
      id,
      app_id: appId,
      name: "job",
      batch_name: null,
      metadata: "{}",
      workflow: "mixdown/convert",
      params: "{}",
      status,
      result: null,
      error: null,
      created_at: now,
      started_at: null,
      completed_at: null,
      webhook_url: null,
      copy_results_to: null,
      progress: 0,
      step: null,
      revision: 0,
    })
    .execute();
  return id;
}

test("a status read again after this connection writes it is the new one, at once", async () => {
  const app = randomUUID();
  const id = await insertJob(app, "QUEUED");
  assert.equal(jobStatus(app, id), "QUEUED");
  assert.equal(jobStatus(app, id), "QUEUED");
  await db.updateTable("jobs").set({ status: "STARTED" }).where("id", "=", id).execute();
  assert.equal(jobStatus(app, id), "STARTED");
  await db.deleteFrom("jobs").where("id", "=", id).execute();
  assert.equal(jobStatus(app, id), undefined);
});

test("another application's job is unknown, whether or not its status was read before", async () => {
  const owner = randomUUID();
  const id = await insertJob(owner, "QUEUED");
  assert.equal(jobStatus(randomUUID(), id), undefined);
  assert.equal(jobStatus(owner, id), "QUEUED");
  assert.equal(jobStatus(randomUUID(), id), undefined);
});

test("a status another process writes shows within a bounded time", async () => {
  const app = randomUUID();
  const id = await insertJob(app, "STARTED");
  assert.equal(jobStatus(app, id), "STARTED");
  const other = new DatabaseSync(path.join(dir, "mixdown.sqlite"), { timeout: 10_000 });
  other.prepare("UPDATE jobs SET status = 'SUCCEEDED' WHERE id = ?").run(id);
  other.close();
  const started = performance.now();
  while (jobStatus(app, id) !== "SUCCEEDED") {
    assert.ok(performance.now() - started < 2_000, "the other process's write never showed");
    await delay(10);
  }
});

test("a status read inside another flow's open transaction is not kept after it rolls back", async () => {
  const app = randomUUID();
  const id = await insertJob(app, "QUEUED");
  let seenInside: string | undefined;
  await assert.rejects(
    db.transaction().execute(async (trx) => {
      await trx.updateTable("jobs").set({ status: "STARTED" }).where("id", "=", id).execute();
      seenInside = jobStatus(app, id); // the same connection: sees the uncommitted row
      throw new Error("roll back");
    }),
    /roll back/,
  );
  assert.equal(seenInside, "STARTED");
  assert.equal(jobStatus(app, id), "QUEUED");
});
