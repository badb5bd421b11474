import { PgBoss } from "pg-boss";
import type { StoresWithOperators } from "../../runtime.ts";
import { CUSTOM_WORKFLOWS_CHANNEL } from "../sql/custom-workflows.ts";
import { JOB_EVENT_CHANNEL } from "../sql/job-events.ts";
import { SqlMetadataStore } from "../sql/sql-metadata-store.ts";
import { SqlOperatorStore } from "../sql/sql-operator-store.ts";
import { SqlRetentionStore } from "../sql/sql-retention-store.ts";
import { SqlWebhookStore } from "../sql/sql-webhook-store.ts";
import { openPostgres } from "./database.ts";
import { listen } from "./listen.ts";
import { listenedVersion } from "./listened-version.ts";
import { PgBossJobQueue, QUEUE } from "./pg-boss-job-queue.ts";
import { PgRateLimitStore } from "./pg-rate-limit-store.ts";
import { PGBOSS_SCHEMA } from "./return-to-queue.ts";

/**
 * Postgres metadata and the pg-boss queue. A worker silent for the heartbeat window (about two thirds of
 * MIXDOWN_JOB_LEASE_MS, at least pg-boss's 10 s) loses its job to another worker.
 */
export async function openPostgresStores(
  connectionString: string,
  options: { leaseMs: number; appConcurrency: number },
): Promise<StoresWithOperators> {
  const { db, pool, close } = await openPostgres(connectionString);
  const heartbeatSeconds = Math.max(10, Math.round((options.leaseMs * 0.66) / 1000));
  // Silent workers are found by the monitor pass: run it often enough to act soon after the heartbeat window.
  const checkEverySeconds = Math.max(1, Math.round(heartbeatSeconds / 5));
  const boss = new PgBoss({
    connectionString,
    schema: PGBOSS_SCHEMA,
    max: 5,
    superviseIntervalSeconds: checkEverySeconds,
    monitorIntervalSeconds: checkEverySeconds,
    schedule: false,
  });
  boss.on("error", (error) => console.error(JSON.stringify({ level: 50, msg: "pg-boss error", err: String(error) })));
  await boss.start();
  if (!(await boss.getQueue(QUEUE))) {
    await boss
      .createQueue(QUEUE, { heartbeatSeconds, retryLimit: 1000, retryDelay: 0, expireInSeconds: 24 * 3600 })
      .catch(async (error) => {
        if (!(await boss.getQueue(QUEUE))) throw error; // another node created it first
      });
  }
  const workflowChanges = listenedVersion(connectionString, CUSTOM_WORKFLOWS_CHANNEL, (error) =>
    console.error(JSON.stringify({ level: 40, msg: "custom workflow changes not heard", err: String(error) })),
  );
  return {
    // No cheap signal of other nodes' changes (a key revoked elsewhere): a version that always differs
    // turns key caching off, so revocations take effect at once on every node.
    store: new SqlMetadataStore(
      db,
      () => String(performance.now()),
      undefined,
      () => workflowChanges.read(),
    ),
    operators: new SqlOperatorStore(db),
    queue: new PgBossJobQueue(db, pool, boss, { appConcurrency: options.appConcurrency, connectionString }),
    rateLimits: new PgRateLimitStore(db),
    retention: new SqlRetentionStore(db, { dialect: "postgres" }),
    webhooks: new SqlWebhookStore(db, {
      dialect: "postgres",
      watch: (onEvent, onError) => listen(connectionString, JOB_EVENT_CHANNEL, onEvent, onError),
    }),
    async close() {
      await workflowChanges.close();
      await boss.stop({ graceful: false, close: true });
      await close();
    },
  };
}
