import fs from "node:fs";
import path from "node:path";
import type { FastifyBaseLogger } from "fastify";
import type { Kysely } from "kysely";
import type { Config } from "./config.ts";
import { JobRunner } from "./jobs/job-runner.ts";
import { WorkerPool } from "./jobs/worker-pool.ts";
import { MODULES } from "./modules/index.ts";
import { loadSecret } from "./secret.ts";
import { ApplicationService } from "./services/applications.ts";
import { type JobEvents, JobService } from "./services/jobs.ts";
import { UrlSigner } from "./services/signed-urls.ts";
import { UploadService } from "./services/uploads.ts";
import { WorkflowService } from "./services/workflows.ts";
import type { BlobStore } from "./store/blob-store.ts";
import type { JobQueue } from "./store/job-queue.ts";
import { LocalBlobStore } from "./store/local/local-blob-store.ts";
import type { MetadataStore } from "./store/metadata-store.ts";
import type { Database } from "./store/sql/schema.ts";
import { SqlMetadataStore } from "./store/sql/sql-metadata-store.ts";
import { openSqlite } from "./store/sqlite/database.ts";
import { SqliteJobQueue } from "./store/sqlite/sqlite-job-queue.ts";
import { WorkflowRegistry } from "./workflows/registry.ts";

/** Everything Mixdown is made of, wired for one deployment mode. */
export interface Runtime {
  config: Config;
  store: MetadataStore;
  queue: JobQueue;
  blobs: BlobStore;
  signer: UrlSigner;
  workflows: WorkflowService;
  applications: ApplicationService;
  uploads: UploadService;
  jobs: JobService;
  close(): Promise<void>;
}

/** Storage only (the CLI's app commands need no workers or HTTP). */
export function openEmbeddedStores(config: Config): {
  db: Kysely<Database>;
  store: MetadataStore;
  queue: JobQueue;
} {
  const db = openSqlite(config.dataDir);
  return { db, store: new SqlMetadataStore(db), queue: new SqliteJobQueue(db) };
}

/** The embedded deployment: SQLite metadata and queue, files on local disk, workers in this process. */
export async function createEmbeddedRuntime(config: Config) {
  const { db, store, queue } = openEmbeddedStores(config);
  const blobs = new LocalBlobStore(path.join(config.dataDir, "blobs"));
  const signer = new UrlSigner(loadSecret(config.secret, config.dataDir), config.publicUrl);
  const registry = new WorkflowRegistry(MODULES, { modelsDir: config.modelsDir }, config.workflowsDir);
  const workflows = new WorkflowService(registry, store);
  await workflows.sync(true);
  const uploads = new UploadService(store, blobs, signer, {
    ttlSeconds: config.urlTtlSeconds,
    maxBytes: config.maxUploadBytes,
  });
  const events: JobEvents & { pool?: WorkerPool } = {
    queued: () => events.pool?.wake(),
    deleted: (id) => events.pool?.cancel(id),
  };
  const jobs = new JobService(store, queue, blobs, workflows, uploads, events);
  const runtime = {
    mode: "embedded" as const,
    config,
    store,
    queue,
    blobs,
    signer,
    workflows,
    applications: new ApplicationService(store),
    uploads,
    jobs,
    pool: undefined as WorkerPool | undefined,
    /** Starts this process's workers (none when MIXDOWN_WORKERS=0). */
    startWorkers(log: FastifyBaseLogger, onJobEnded?: ConstructorParameters<typeof WorkerPool>[3]["onJobEnded"]) {
      if (config.workers === 0) return;
      const scratchRoot = path.join(config.dataDir, "scratch");
      // Scratch left by a process that died mid-job; its jobs run again from the start.
      fs.rmSync(scratchRoot, { recursive: true, force: true });
      const runner = new JobRunner(registry, blobs, signer, {
        scratchRoot,
        fetchTimeoutMs: config.fetchTimeoutMs,
        allowPrivateUrls: config.allowPrivateUrls,
        maxInputBytes: config.maxUploadBytes,
      });
      const pool = new WorkerPool(queue, runner, blobs, {
        concurrency: config.workers,
        leaseMs: config.jobLeaseMs,
        log,
        onJobEnded,
      });
      events.pool = pool;
      runtime.pool = pool;
      pool.start();
    },
    async close() {
      await runtime.pool?.stop(config.shutdownGraceMs);
      await db.destroy();
    },
  };
  return runtime satisfies Runtime;
}

export type EmbeddedRuntime = Awaited<ReturnType<typeof createEmbeddedRuntime>>;
