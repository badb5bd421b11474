import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, before, test } from "node:test";
import { setTimeout as delay } from "node:timers/promises";
import type { JobError, NewJob } from "../../src/domain.ts";
import { uuidv7 } from "../../src/ids.ts";
import type { ClaimedJob, JobQueue } from "../../src/store/job-queue.ts";
import type { MetadataStore } from "../../src/store/metadata-store.ts";
import { openPostgresStores } from "../../src/store/postgres/open.ts";
import { SqlMetadataStore } from "../../src/store/sql/sql-metadata-store.ts";
import { openSqlite } from "../../src/store/sqlite/database.ts";
import { SqliteJobQueue } from "../../src/store/sqlite/sqlite-job-queue.ts";
import { describeOrSkip, postgresUnavailable, provisionDatabase } from "../helpers/backends.ts";

/** Two nodes' queues over one database, its metadata store, and the lease a claim takes that is meant to lapse. */
interface Deployment {
  store: MetadataStore;
  nodeA: JobQueue;
  nodeB: JobQueue;
  /** What claim() is given when its lease should lapse (pg-boss ignores it: its heartbeat window is ≥ 10 s). */
  lapsingLeaseMs: number;
  close(): Promise<void>;
}

const LEASE_MS = 15_000; // pg-boss: a 10 s heartbeat window, its smallest

async function sqliteDeployment(): Promise<Deployment> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "mixdown-queue-release-"));
  const { db, externalChanges, jobState } = openSqlite(dir);
  return {
    store: new SqlMetadataStore(db, externalChanges, jobState),
    nodeA: new SqliteJobQueue(db, { appConcurrency: 0 }),
    nodeB: new SqliteJobQueue(db, { appConcurrency: 0 }),
    lapsingLeaseMs: 20,
    async close() {
      await db.destroy();
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

async function postgresDeployment(): Promise<Deployment> {
  const database = await provisionDatabase();
  const a = await openPostgresStores(database.url, { leaseMs: LEASE_MS, appConcurrency: 0 });
  const b = await openPostgresStores(database.url, { leaseMs: LEASE_MS, appConcurrency: 0 });
  return {
    store: a.store,
    nodeA: a.queue,
    nodeB: b.queue,
    lapsingLeaseMs: LEASE_MS,
    async close() {
      await a.close();
      await b.close();
      await database.drop();
    },
  };
}

const BACKENDS = [
  { name: "embedded (SQLite) queue", open: sqliteDeployment, skip: undefined },
  { name: "distributed (pg-boss) queue", open: postgresDeployment, skip: postgresUnavailable },
];

for (const backend of BACKENDS) {
  describeOrSkip(`${backend.name}: a job given back at shutdown keeps its attempt`, backend.skip, () => {
    let deployment: Deployment;
    let appId: string;

    before(async () => {
      deployment = await backend.open();
      appId = randomUUID();
      const at = new Date().toISOString();
      await deployment.store.createApplication({ id: appId, name: "app", createdAt: at, revokedAt: null }, appId);
    });
    after(() => deployment?.close());

    async function enqueue(): Promise<string> {
      const job: NewJob = {
        id: uuidv7(),
        appId,
        name: "job",
        batchName: null,
        metadata: {},
        workflow: "mixdown/probe",
        params: {},
        createdAt: new Date().toISOString(),
        inputUploadIds: [],
      };
      await deployment.nodeA.enqueue(job);
      return job.id;
    }

    const status = async (id: string) => (await deployment.store.getJob(appId, id))?.status;

    /** Claims on `queue` until it returns a job (a lapsed lease takes pg-boss's monitor some seconds to see). */
    async function claimEventually(queue: JobQueue, workerId: string): Promise<ClaimedJob> {
      const deadline = Date.now() + 30_000;
      for (;;) {
        const job = await queue.claim(workerId, LEASE_MS);
        if (job) return job;
        if (Date.now() > deadline) throw new Error("nothing to claim after 30 s");
        await delay(200);
      }
    }

    test("given back three times (three rolling restarts), it is claimed at attempt 1 each time and completes once", async () => {
      const id = await enqueue();
      const nodes = [deployment.nodeA, deployment.nodeB, deployment.nodeA, deployment.nodeB];
      for (const [restart, node] of nodes.slice(0, 3).entries()) {
        const job = await node.claim(`worker-${restart}`, LEASE_MS);
        assert.equal(job?.id, id);
        assert.equal(job.attempt, 1, `claim after ${restart} restarts`);
        assert.equal(await status(id), "STARTED");
        assert.equal(await node.release(id, `worker-${restart}`), true);
        assert.equal(await status(id), "QUEUED");
        assert.equal(await node.release(id, `worker-${restart}`), false, "given back once");
      }
      const last = nodes[3] as JobQueue;
      const job = await last.claim("worker-3", LEASE_MS);
      assert.equal(job?.id, id);
      assert.equal(job.attempt, 1);
      assert.equal(await last.complete(id, "worker-3", { out: { value: "done" } }), true);
      assert.equal(await last.complete(id, "worker-3", { out: { value: "again" } }), false, "a result is written once");
      assert.equal(await last.release(id, "worker-3"), false, "an ended job cannot be given back");
      const ended = await deployment.store.getJob(appId, id);
      assert.equal(ended?.status, "SUCCEEDED");
      assert.deepEqual(ended?.result, { out: { value: "done" } });
      assert.equal(await deployment.nodeA.claim("worker-4", LEASE_MS), undefined);
    });

    test("a job cancelled while it runs cannot be given back", async () => {
      const id = await enqueue();
      const job = await deployment.nodeA.claim("worker", LEASE_MS);
      assert.equal(job?.id, id);
      const error: JobError = { code: "CANCELLED", title: "Cancelled", message: "cancelled by the test" };
      assert.equal(await deployment.nodeB.cancel(appId, id, error), "cancelled");
      assert.equal(await deployment.nodeA.release(id, "worker"), false);
      assert.equal(await status(id), "FAILED");
      assert.equal(await deployment.nodeB.claim("other", LEASE_MS), undefined);
    });

    test("a lapsed lease (a crash) still counts an attempt, and the lapsed worker can no longer give the job back", async () => {
      const id = await enqueue();
      const first = await deployment.nodeA.claim("crashed", deployment.lapsingLeaseMs);
      assert.equal(first?.attempt, 1);
      // No heartbeat from "crashed": another node takes the job once its lease lapses.
      const second = await claimEventually(deployment.nodeB, "survivor");
      assert.equal(second.id, id);
      assert.equal(second.attempt, 2);
      assert.equal(await deployment.nodeA.release(id, "crashed"), false);
      assert.equal(await deployment.nodeA.complete(id, "crashed", { out: { value: "stale" } }), false);
      assert.equal(await status(id), "STARTED", "still the survivor's");
      assert.equal(await deployment.nodeB.release(id, "survivor"), true);
      const third = await deployment.nodeA.claim("next", LEASE_MS);
      assert.equal(third?.attempt, 2, "giving back after a crash counts nothing more");
      assert.equal(await deployment.nodeA.complete(id, "next", { out: { value: "done" } }), true);
      assert.deepEqual((await deployment.store.getJob(appId, id))?.result, { out: { value: "done" } });
    });
  });
}
