import type { Config } from "../../config.ts";

export interface ConfigRow {
  /** The environment variable that sets it. */
  name: string;
  value: string;
}

export const HIDDEN = "set (hidden)";
const NOT_SET = "not set";

/** Query parameters of a Postgres URL that carry no secret (password, sslkey… are hidden). */
const SAFE_PARAMS = new Set(["sslmode", "application_name", "connect_timeout", "options", "target_session_attrs"]);

/** A URL without its credentials: the password (and a user's in the query) replaced, the user name kept. */
export function withoutCredentials(raw: string): string {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return HIDDEN; // unparsable: it could be anything
  }
  const secretParams = [...url.searchParams.keys()].filter((key) => !SAFE_PARAMS.has(key));
  if (!url.password && secretParams.length === 0) return raw;
  if (url.password) url.password = "hidden";
  for (const key of secretParams) url.searchParams.set(key, "hidden");
  return url.toString();
}

const text = (value: string | number | boolean | undefined) => (value === undefined ? NOT_SET : String(value));

/**
 * How each setting is shown: every key of Config must be listed (the compiler checks), so a setting added later is
 * shown or hidden by decision, never leaked by omission. Secrets show only whether they are set.
 */
const SHOWN: { [K in keyof Config]: (value: Config[K]) => ConfigRow[] } = {
  port: (v) => [{ name: "PORT", value: text(v) }],
  host: (v) => [{ name: "MIXDOWN_HOST", value: v }],
  dataDir: (v) => [{ name: "MIXDOWN_DATA_DIR", value: v }],
  workflowsDir: (v) => [{ name: "MIXDOWN_WORKFLOWS_DIR", value: v }],
  modelsDir: (v) => [{ name: "MIXDOWN_MODELS_DIR", value: v }],
  publicUrl: (v) => [{ name: "MIXDOWN_PUBLIC_URL", value: withoutCredentials(v) }],
  filesUrl: (v) => [{ name: "MIXDOWN_FILES_URL", value: v ? withoutCredentials(v) : "not set (the public URL)" }],
  fetchTimeoutMs: (v) => [{ name: "MIXDOWN_FETCH_TIMEOUT_MS", value: text(v) }],
  allowPrivateUrls: (v) => [{ name: "MIXDOWN_ALLOW_PRIVATE_URLS", value: text(v) }],
  maxUploadBytes: (v) => [{ name: "MIXDOWN_MAX_UPLOAD_BYTES", value: text(v) }],
  workers: (v) => [{ name: "MIXDOWN_WORKERS", value: text(v) }],
  urlTtlSeconds: (v) => [{ name: "MIXDOWN_URL_TTL_SECONDS", value: text(v) }],
  jobLeaseMs: (v) => [{ name: "MIXDOWN_JOB_LEASE_MS", value: text(v) }],
  appConcurrency: (v) => [{ name: "MIXDOWN_APP_CONCURRENCY", value: v === 0 ? "0 (no limit)" : text(v) }],
  shutdownGraceMs: (v) => [{ name: "MIXDOWN_SHUTDOWN_GRACE_MS", value: text(v) }],
  logLevel: (v) => [{ name: "MIXDOWN_LOG_LEVEL", value: v }],
  secret: (v) => [{ name: "MIXDOWN_SECRET", value: v ? HIDDEN : "not set (generated into the data dir)" }],
  databaseUrl: (v) => [{ name: "MIXDOWN_DATABASE_URL", value: v ? withoutCredentials(v) : NOT_SET }],
  s3: (v) =>
    v
      ? [
          { name: "MIXDOWN_S3_BUCKET", value: v.bucket },
          { name: "MIXDOWN_S3_ENDPOINT", value: v.endpoint ? withoutCredentials(v.endpoint) : "not set (AWS)" },
          { name: "MIXDOWN_S3_REGION", value: v.region },
          { name: "MIXDOWN_S3_ACCESS_KEY_ID", value: v.accessKeyId ? HIDDEN : "not set (the AWS SDK's chain)" },
          { name: "MIXDOWN_S3_SECRET_ACCESS_KEY", value: v.secretAccessKey ? HIDDEN : NOT_SET },
          { name: "MIXDOWN_S3_FORCE_PATH_STYLE", value: text(v.forcePathStyle) },
          { name: "MIXDOWN_S3_UPLOAD_URLS", value: v.uploadUrls },
        ]
      : [{ name: "MIXDOWN_S3_BUCKET", value: "not set (files in the data dir)" }],
  // The file names only: the key's contents are a secret, the certificate's are long.
  tls: (v) => [
    { name: "MIXDOWN_TLS_CERT", value: v ? v.certFile : "not set (plain HTTP)" },
    { name: "MIXDOWN_TLS_KEY", value: v ? v.keyFile : NOT_SET },
  ],
  dashboardSessionIdleMs: (v) => [{ name: "MIXDOWN_DASHBOARD_SESSION_IDLE_HOURS", value: text(v / 3_600_000) }],
  trustProxy: (v) => [{ name: "MIXDOWN_TRUST_PROXY", value: v.length > 0 ? v.join(", ") : "none" }],
  webhookRetrySchedule: (v) => [
    { name: "MIXDOWN_WEBHOOK_RETRY_SCHEDULE", value: v.length > 0 ? `${v.join(", ")} s` : "none" },
  ],
  rateLimit: (v) => [
    { name: "MIXDOWN_RATE_LIMIT", value: v ? `${v.perSecond} requests/s per application, burst ${v.burst}` : "off" },
  ],
  maxQueuedJobs: (v) => [{ name: "MIXDOWN_MAX_QUEUED_JOBS", value: v === 0 ? "0 (no limit)" : text(v) }],
  jobRetentionDays: (v) => [
    { name: "MIXDOWN_JOB_RETENTION_DAYS", value: v === 0 ? "0 (finished jobs are kept forever)" : `${v} days` },
  ],
};

/** The configuration in effect, one row per environment variable, secrets hidden. */
export function configRows(config: Config): ConfigRow[] {
  return (Object.keys(SHOWN) as (keyof Config)[]).flatMap((key) =>
    (SHOWN[key] as (value: Config[typeof key]) => ConfigRow[])(config[key]),
  );
}
