import fs from "node:fs";
import path from "node:path";
import type { FastifyBaseLogger } from "fastify";
import { LocalRateLimiter, type RateLimiter, SharedRateLimiter } from "./api/rate-limiter.ts";
import { renderJob } from "./api/render.ts";
import type { Config } from "./config.ts";
import { JobRunner } from "./jobs/job-runner.ts";
import { JobStateHub } from "./jobs/job-state-hub.ts";
import { RetentionSweeper } from "./jobs/retention-sweeper.ts";
import { WorkerPool, type WorkerPoolOptions } from "./jobs/worker-pool.ts";
import { mediaBinaries } from "./media/binaries.ts";
import { MODULES } from "./modules/index.ts";
import { loadSecret } from "./secret.ts";
import { ApplicationService } from "./services/applications.ts";
import { type JobEvents, JobService } from "./services/jobs.ts";
import { OperatorService } from "./services/operators.ts";
import { UrlSigner } from "./services/signed-urls.ts";
import { UploadService } from "./services/uploads.ts";
import { WorkflowService } from "./services/workflows.ts";
import type { BlobStore } from "./store/blob-store.ts";
import type { FileUrls } from "./store/file-urls.ts";
import type { JobQueue } from "./store/job-queue.ts";
import { LocalBlobStore } from "./store/local/local-blob-store.ts";
import { SignedFileUrls } from "./store/local/signed-file-urls.ts";
import type { MetadataStore } from "./store/metadata-store.ts";
import type { OperatorStore } from "./store/operator-store.ts";
import type { RateLimitStore } from "./store/rate-limit-store.ts";
import type { RetentionStore } from "./store/retention-store.ts";
import { SqlMetadataStore } from "./store/sql/sql-metadata-store.ts";
import { SqlOperatorStore } from "./store/sql/sql-operator-store.ts";
import { SqlRetentionStore } from "./store/sql/sql-retention-store.ts";
import { SqlWebhookStore } from "./store/sql/sql-webhook-store.ts";
import { openSqlite } from "./store/sqlite/database.ts";
import { SqliteJobQueue } from "./store/sqlite/sqlite-job-queue.ts";
import type { WebhookStore } from "./store/webhook-store.ts";
import { WebhookDeliverer } from "./webhooks/deliverer.ts";
import { inProcessSignal } from "./webhooks/in-process-signal.ts";
import { WebhookService } from "./webhooks/webhook-service.ts";
import { WorkflowRegistry } from "./workflows/registry.ts";
import { WorkflowsDirectory } from "./workflows/workflows-dir.ts";

/** Metadata and queue, with what closes them. */
export interface Stores {
  store: MetadataStore;
  queue: JobQueue;
  /** Distributed mode: the deployment-wide rate-limit buckets (embedded mode keeps them in memory). */
  rateLimits?: RateLimitStore;
  close(): Promise<void>;
}

/** The stores and, on the same database, the dashboard's operators and the webhooks. */
export type StoresWithOperators = Stores & {
  operators: OperatorStore;
  webhooks: WebhookStore;
  retention: RetentionStore;
};

/** Postgres + pg-boss when MIXDOWN_DATABASE_URL is set, else SQLite in the data dir. */
export async function openStores(config: Config): Promise<StoresWithOperators> {
  if (config.databaseUrl) {
    // Imported only in distributed mode: the embedded default never loads pg or pg-boss.
    const { openPostgresStores } = await import("./store/postgres/open.ts");
    return openPostgresStores(config.databaseUrl, {
      leaseMs: config.jobLeaseMs,
      appConcurrency: config.appConcurrency,
    });
  }
  const { db, externalChanges, jobState } = openSqlite(config.dataDir);
  const jobEvents = inProcessSignal();
  return {
    store: new SqlMetadataStore(db, externalChanges, jobState),
    operators: new SqlOperatorStore(db),
    queue: new SqliteJobQueue(db, { appConcurrency: config.appConcurrency, onJobEvent: jobEvents.emit }),
    webhooks: new SqlWebhookStore(db, { dialect: "sqlite", watch: jobEvents.watch }),
    retention: new SqlRetentionStore(db, { dialect: "sqlite" }),
    close: () => db.destroy(),
  };
}

async function openFiles(
  config: Config,
  signer: UrlSigner,
  secret: string,
): Promise<{ blobs: BlobStore; fileUrls: FileUrls; corsProblem?: string }> {
  if (config.s3) {
    const { openS3 } = await import("./store/s3/open.ts");
    // The dashboard's pages (at the public URL) upload to and read from the bucket themselves.
    const { blobs, fileUrls, corsProblem } = await openS3(config.s3, new URL(config.publicUrl).origin);
    if (config.s3.uploadUrls === "presigned") return { blobs, fileUrls, corsProblem };
    const { UploadThroughApiUrls } = await import("./store/s3/upload-through-api-urls.ts");
    return { blobs, fileUrls: new UploadThroughApiUrls(new SignedFileUrls(signer), fileUrls), corsProblem };
  }
  // Downloads on MIXDOWN_FILES_URL, an origin of their own; uploads (PUT) stay on the public URL.
  const files = config.filesUrl ? new UrlSigner(secret, config.filesUrl) : signer;
  return {
    blobs: new LocalBlobStore(path.join(config.dataDir, "blobs")),
    fileUrls: new SignedFileUrls(signer, files),
  };
}

/** Everything Mixdown is made of, wired for the configured backends. */
export async function createRuntime(config: Config) {
  const {
    store,
    operators,
    queue,
    webhooks: webhookStore,
    retention,
    rateLimits,
    close: closeStores,
  } = await openStores(config);
  const secret = loadSecret(config.secret, config.dataDir);
  const signer = new UrlSigner(secret, config.publicUrl);
  const { blobs, fileUrls, corsProblem } = await openFiles(config, signer, secret);
  const registry = new WorkflowRegistry(
    MODULES,
    { modelsDir: config.modelsDir },
    {
      store,
      directory: new WorkflowsDirectory(config.workflowsDir, store),
    },
  );
  const workflows = new WorkflowService(registry, store);
  await workflows.start();
  const uploads = new UploadService(store, blobs, fileUrls, signer, {
    ttlSeconds: config.urlTtlSeconds,
    maxBytes: config.maxUploadBytes,
  });
  const events: JobEvents & { pool?: WorkerPool } = {
    deleted: (id) => {
      events.pool?.cancel(id);
      runtime.jobStates.gone(id);
    },
  };
  const jobs = new JobService(store, queue, blobs, workflows, uploads, events, {
    allowPrivateUrls: config.allowPrivateUrls,
    maxQueuedJobs: config.maxQueuedJobs,
  });
  const runtime = {
    config,
    store,
    queue,
    blobs,
    fileUrls,
    signer,
    workflows,
    applications: new ApplicationService(store),
    webhooks: new WebhookService(webhookStore, store, { allowPrivate: config.allowPrivateUrls }),
    deliverer: undefined as WebhookDeliverer | undefined,
    /**
     * Deletes finished jobs past MIXDOWN_JOB_RETENTION_DAYS and expired uploads, now and every `intervalMs` (one
     * node at a time); returns a function that stops.
     */
    startRetention(log: FastifyBaseLogger, intervalMs: number) {
      const sweeper = new RetentionSweeper(retention, blobs, uploads, { retentionDays: config.jobRetentionDays });
      return sweeper.start(intervalMs, log);
    },
    /** Starts sending this deployment's webhook deliveries from this node (every node runs one). */
    startWebhooks(log: FastifyBaseLogger) {
      const deliverer = new WebhookDeliverer(webhookStore, {
        retrySchedule: config.webhookRetrySchedule,
        allowPrivate: config.allowPrivateUrls,
        log,
        renderJob: async (appId, jobId) => {
          const job = await store.getJob(appId, jobId);
          return job && renderJob(job, fileUrls, config.urlTtlSeconds);
        },
      });
      runtime.deliverer = deliverer;
      deliverer.start();
    },
    operators: new OperatorService(operators, { sessionIdleMs: config.dashboardSessionIdleMs }),
    uploads,
    jobs,
    /**
     * What Mixdown's own file server takes: uploads unless clients PUT them to the object store's presigned
     * URLs, downloads unless the store serves them.
     */
    serves: { uploads: config.s3?.uploadUrls !== "presigned", downloads: config.s3 === undefined },
    /** Why browsers cannot reach the object store's URLs (its CORS rules could not be set), if so. */
    corsProblem,
    /** MIXDOWN_RATE_LIMIT per application: shared through Postgres in distributed mode, in memory embedded. */
    rateLimiter: rateLimiterFor(config, rateLimits),
    /** Job state changes (any node's) for this node's event streams (GET /job/:id/events). */
    jobStates: new JobStateHub(queue, store, (error) =>
      console.error(JSON.stringify({ level: 40, msg: "job state changes not heard", err: String(error) })),
    ),
    pool: undefined as WorkerPool | undefined,
    /** Starts this process's workers (none when MIXDOWN_WORKERS=0). */
    startWorkers(log: FastifyBaseLogger, onJobEnded?: WorkerPoolOptions["onJobEnded"]) {
      if (config.workers === 0) return;
      mediaBinaries(); // found once now, not on the event loop during the first job
      const scratchRoot = path.join(config.dataDir, "scratch");
      // Scratch left by processes that died mid-job (their jobs run again from the start); job
      // directories begin with their process id, so live processes sharing the data dir keep theirs.
      for (const dir of fs.existsSync(scratchRoot) ? fs.readdirSync(scratchRoot) : []) {
        if (!isRunning(Number.parseInt(dir, 10)))
          fs.rmSync(path.join(scratchRoot, dir), { recursive: true, force: true });
      }
      const runner = new JobRunner(registry, blobs, fileUrls, {
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
      await runtime.jobStates.close();
      await runtime.deliverer?.stop();
      await closeStores();
    },
  };
  return runtime;
}

function rateLimiterFor(config: Config, shared: RateLimitStore | undefined): RateLimiter | undefined {
  if (!config.rateLimit) return undefined;
  return shared ? new SharedRateLimiter(shared, config.rateLimit) : new LocalRateLimiter(config.rateLimit);
}

function isRunning(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

export type Runtime = Awaited<ReturnType<typeof createRuntime>>;
