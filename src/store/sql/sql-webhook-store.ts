import type { Kysely, Selectable } from "kysely";
import type {
  AttemptOutcome,
  DeliveryStatus,
  WebhookDelivery,
  WebhookEndpoint,
  WebhookStore,
} from "../webhook-store.ts";
import type { Database } from "./schema.ts";

type DeliveryRow = Selectable<Database["webhook_deliveries"]>;

const toDelivery = (row: DeliveryRow): WebhookDelivery => ({
  id: row.id,
  eventType: row.event_type,
  appId: row.app_id,
  jobId: row.job_id,
  endpointId: row.endpoint_id,
  url: row.url,
  createdAt: row.created_at,
  status: row.status as DeliveryStatus,
  attempts: Number(row.attempts),
  nextAttemptAt: Number(row.next_attempt_at),
  lastAttemptAt: row.last_attempt_at,
  lastStatusCode: row.last_status_code,
  lastError: row.last_error,
});

type Watch = WebhookStore["watch"];

/** The webhook store on Kysely: the same queries on SQLite and Postgres, but for Postgres's row locks in claimDue. */
export class SqlWebhookStore implements WebhookStore {
  private readonly db: Kysely<Database>;
  private readonly postgres: boolean;
  readonly watch: Watch;

  constructor(db: Kysely<Database>, options: { dialect: "sqlite" | "postgres"; watch: Watch }) {
    this.db = db;
    this.postgres = options.dialect === "postgres";
    this.watch = options.watch;
  }

  async addEndpoint(endpoint: { id: string; appId: string; url: string; secret: string; createdAt: string }) {
    await this.db
      .insertInto("webhook_endpoints")
      .values({
        id: endpoint.id,
        app_id: endpoint.appId,
        url: endpoint.url,
        secret: endpoint.secret,
        previous_secret: null,
        previous_secret_until: null,
        created_at: endpoint.createdAt,
        disabled_at: null,
        disabled_reason: null,
      })
      .execute();
  }

  async listEndpoints(appId: string): Promise<WebhookEndpoint[]> {
    const rows = await this.db
      .selectFrom("webhook_endpoints")
      .selectAll()
      .where("app_id", "=", appId)
      .orderBy("created_at")
      .execute();
    return rows.map((row) => ({
      id: row.id,
      appId: row.app_id,
      url: row.url,
      createdAt: row.created_at,
      disabledAt: row.disabled_at,
      disabledReason: row.disabled_reason,
      previousSecretUntil: row.previous_secret !== null ? row.previous_secret_until : null,
    }));
  }

  /** Pending deliveries to an endpoint that will not be sent. */
  private failPending(endpointId: string, reason: string) {
    return this.db
      .updateTable("webhook_deliveries")
      .set({ status: "FAILED", last_error: reason, lease_owner: null, lease_expires_at: null })
      .where("endpoint_id", "=", endpointId)
      .where("status", "=", "PENDING")
      .execute();
  }

  async removeEndpoint(appId: string, id: string, at: string): Promise<boolean> {
    const removed = await this.db
      .deleteFrom("webhook_endpoints")
      .where("app_id", "=", appId)
      .where("id", "=", id)
      .executeTakeFirst();
    if (removed.numDeletedRows === 0n) return false;
    await this.failPending(id, `the endpoint was removed at ${at}`);
    return true;
  }

  async disableEndpoint(id: string, reason: string, at: string): Promise<void> {
    await this.db
      .updateTable("webhook_endpoints")
      .set({ disabled_at: at, disabled_reason: reason })
      .where("id", "=", id)
      .where("disabled_at", "is", null)
      .execute();
    await this.failPending(id, `not sent: the endpoint was disabled (${reason})`);
  }

  async rotateEndpointSecret(appId: string, id: string, secret: string, previousUntil: number): Promise<boolean> {
    const updated = await this.db
      .updateTable("webhook_endpoints")
      .set((eb) => ({ previous_secret: eb.ref("secret"), previous_secret_until: previousUntil, secret }))
      .where("app_id", "=", appId)
      .where("id", "=", id)
      .executeTakeFirst();
    return updated.numUpdatedRows > 0n;
  }

  async appSecret(appId: string, create: () => string): Promise<string> {
    await this.db
      .insertInto("webhook_app_secrets")
      .values({ app_id: appId, secret: create(), previous_secret: null, previous_secret_until: null })
      .onConflict((conflict) => conflict.column("app_id").doNothing())
      .execute();
    const row = await this.db
      .selectFrom("webhook_app_secrets")
      .select("secret")
      .where("app_id", "=", appId)
      .executeTakeFirstOrThrow();
    return row.secret;
  }

  async rotateAppSecret(appId: string, secret: string, previousUntil: number): Promise<void> {
    await this.appSecret(appId, () => secret);
    await this.db
      .updateTable("webhook_app_secrets")
      .set((eb) => ({ previous_secret: eb.ref("secret"), previous_secret_until: previousUntil, secret }))
      .where("app_id", "=", appId)
      .where("secret", "!=", secret)
      .execute();
  }

  async signingSecrets(appId: string, endpointId: string | null, now: number): Promise<string[]> {
    const row =
      endpointId === null
        ? await this.db
            .selectFrom("webhook_app_secrets")
            .select(["secret", "previous_secret", "previous_secret_until"])
            .where("app_id", "=", appId)
            .executeTakeFirst()
        : await this.db
            .selectFrom("webhook_endpoints")
            .select(["secret", "previous_secret", "previous_secret_until"])
            .where("id", "=", endpointId)
            .executeTakeFirst();
    if (!row) return [];
    const previousValid = row.previous_secret !== null && Number(row.previous_secret_until ?? 0) > now;
    return previousValid ? [row.secret, row.previous_secret as string] : [row.secret];
  }

  async endpointSecret(appId: string, id: string): Promise<string | undefined> {
    const row = await this.db
      .selectFrom("webhook_endpoints")
      .select("secret")
      .where("app_id", "=", appId)
      .where("id", "=", id)
      .executeTakeFirst();
    return row?.secret;
  }

  async listDeliveries(
    appId: string,
    filter: { endpointId?: string; jobId?: string; limit: number },
  ): Promise<WebhookDelivery[]> {
    let query = this.db.selectFrom("webhook_deliveries").selectAll().where("app_id", "=", appId);
    if (filter.endpointId !== undefined) query = query.where("endpoint_id", "=", filter.endpointId);
    if (filter.jobId !== undefined) query = query.where("job_id", "=", filter.jobId);
    const rows = await query.orderBy("created_at", "desc").orderBy("id", "desc").limit(filter.limit).execute();
    return rows.map(toDelivery);
  }

  async claimDue(owner: string, now: number, leaseMs: number, limit: number): Promise<WebhookDelivery[]> {
    // Postgres: rows another node is leasing this instant are skipped, not waited for.
    let due = this.db
      .selectFrom("webhook_deliveries")
      .select("id")
      .where("status", "=", "PENDING")
      .where("next_attempt_at", "<=", now)
      .where((eb) => eb.or([eb("lease_expires_at", "is", null), eb("lease_expires_at", "<", now)]))
      .orderBy("next_attempt_at")
      .limit(limit);
    if (this.postgres) due = due.forUpdate().skipLocked();
    const rows = await this.db
      .updateTable("webhook_deliveries")
      .set({ lease_owner: owner, lease_expires_at: now + leaseMs })
      .where("id", "in", due)
      .returningAll()
      .execute();
    return rows.map(toDelivery);
  }

  async recordAttempt(id: string, owner: string, outcome: AttemptOutcome): Promise<void> {
    await this.db
      .updateTable("webhook_deliveries")
      .set({
        status: outcome.status,
        attempts: outcome.attempts,
        next_attempt_at: outcome.nextAttemptAt,
        last_attempt_at: outcome.at,
        last_status_code: outcome.statusCode,
        last_error: outcome.error,
        lease_owner: null,
        lease_expires_at: null,
      })
      .where("id", "=", id)
      .where("lease_owner", "=", owner)
      .execute();
  }
}
