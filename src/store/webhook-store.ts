/** Webhook endpoints, signing secrets and the outbox of job events (written by the job queues' transitions). */

export interface WebhookEndpoint {
  id: string;
  appId: string;
  url: string;
  createdAt: string;
  disabledAt: string | null;
  disabledReason: string | null;
  /** Until when (ms) the secret before the last rotation also signs; null when it no longer does. */
  previousSecretUntil: number | null;
}

export type DeliveryStatus = "PENDING" | "DELIVERED" | "FAILED";

export interface WebhookDelivery {
  /** The webhook-id header: the same on every attempt of this delivery. */
  id: string;
  eventType: string;
  appId: string;
  jobId: string;
  /** Null for a job's own webhookUrl. */
  endpointId: string | null;
  url: string;
  createdAt: string;
  status: DeliveryStatus;
  attempts: number;
  nextAttemptAt: number;
  lastAttemptAt: string | null;
  lastStatusCode: number | null;
  lastError: string | null;
}

/** What one delivery attempt came to. */
export interface AttemptOutcome {
  status: DeliveryStatus;
  attempts: number;
  nextAttemptAt: number;
  at: string;
  statusCode: number | null;
  error: string | null;
}

export interface WebhookStore {
  addEndpoint(endpoint: { id: string; appId: string; url: string; secret: string; createdAt: string }): Promise<void>;
  listEndpoints(appId: string): Promise<WebhookEndpoint[]>;
  /** Removes the endpoint; its pending deliveries fail. False when the application has no such endpoint. */
  removeEndpoint(appId: string, id: string, at: string): Promise<boolean>;
  /** Stops sending to the endpoint (410 Gone); its pending deliveries fail with `reason`. */
  disableEndpoint(id: string, reason: string, at: string): Promise<void>;
  /** New secret; the old one keeps signing until previousUntil (ms). False when there is no such endpoint. */
  rotateEndpointSecret(appId: string, id: string, secret: string, previousUntil: number): Promise<boolean>;
  /** The application's secret for jobs' own webhookUrl, created (from `create`) when it has none yet. */
  appSecret(appId: string, create: () => string): Promise<string>;
  rotateAppSecret(appId: string, secret: string, previousUntil: number): Promise<void>;
  /** The secrets that sign a delivery now: the current one, and the previous one during its grace period. */
  signingSecrets(appId: string, endpointId: string | null, now: number): Promise<string[]>;
  endpointSecret(appId: string, id: string): Promise<string | undefined>;
  /** Newest first. */
  listDeliveries(
    appId: string,
    filter: { endpointId?: string; jobId?: string; limit: number },
  ): Promise<WebhookDelivery[]>;

  /** Leases up to `limit` due deliveries to `owner` for leaseMs (another node gets them only after that). */
  claimDue(owner: string, now: number, leaseMs: number, limit: number): Promise<WebhookDelivery[]>;
  /** Writes an attempt's outcome and ends the lease, if `owner` still holds it. */
  recordAttempt(id: string, owner: string, outcome: AttemptOutcome): Promise<void>;
  /**
   * Calls `onEvent` soon after job events are written (by this process; on Postgres by any node), so the deliverer
   * looks at once. Returns a function that stops.
   */
  watch(onEvent: () => void, onError: (error: Error) => void): () => Promise<void>;
}
