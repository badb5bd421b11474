import { createPrivateKey, X509Certificate } from "node:crypto";
import fs from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { parseRateLimit, type RateLimit } from "./api/rate-limit-config.ts";
import { s3PublicBase } from "./store/s3/public-base.ts";

export interface Config {
  port: number;
  host: string;
  dataDir: string;
  workflowsDir: string;
  modelsDir: string;
  publicUrl: string;
  /**
   * MIXDOWN_FILES_URL: the base of download and result URLs when they are served on an origin of their own (the
   * same nodes under another host name), so that no file ever shares the dashboard's origin. Local files only.
   */
  filesUrl: string | undefined;
  fetchTimeoutMs: number;
  allowPrivateUrls: boolean;
  maxUploadBytes: number;
  workers: number;
  urlTtlSeconds: number;
  jobLeaseMs: number;
  /** Distributed mode: most jobs of one application running at once across all workers (0 = no limit). */
  appConcurrency: number;
  shutdownGraceMs: number;
  /** Per application, requests a second with a burst, for the whole deployment (undefined: no limit). */
  rateLimit: RateLimit | undefined;
  /** Per application, most jobs waiting to start; POST /job beyond it is refused (0: no cap). */
  maxQueuedJobs: number;
  logLevel: string;
  secret: string | undefined;
  /** postgres://… switches metadata to Postgres and the queue to pg-boss (distributed mode). */
  databaseUrl: string | undefined;
  /** Set when blobs live in an S3-compatible store (distributed mode). */
  s3: S3Config | undefined;
  /** Set when MIXDOWN_TLS_CERT and MIXDOWN_TLS_KEY are: the server speaks HTTPS only. */
  tls: TlsConfig | undefined;
  /** A dashboard session unused this long ends. */
  dashboardSessionIdleMs: number;
  /**
   * Addresses (or CIDR ranges) of reverse proxies whose X-Forwarded-For is believed, so that a client's own
   * address is the one sign-in throttling counts; empty: the connection's address.
   */
  trustProxy: string[];
  /** Seconds between a webhook delivery's attempts (before jitter): one retry per entry, then it fails. */
  webhookRetrySchedule: number[];
  /** Finished jobs older than this many days are deleted with their files (0: kept forever). */
  jobRetentionDays: number;
}

export interface TlsConfig {
  certFile: string;
  keyFile: string;
  /** PEM contents, read and checked at start. */
  cert: string;
  key: string;
}

export interface S3Config {
  endpoint: string | undefined;
  bucket: string;
  region: string;
  accessKeyId: string | undefined;
  secretAccessKey: string | undefined;
  forcePathStyle: boolean;
  /**
   * Where clients PUT uploads: the store's presigned URLs ("presigned": straight to the store, but S3 refuses
   * bodies of unknown length), or Mixdown's own upload URL on the API nodes, streamed into the store
   * ("mixdown": any body, as the Music.AI JavaScript SDK sends). Downloads are presigned either way.
   */
  uploadUrls: "presigned" | "mixdown";
}

export class ConfigError extends Error {}

type Env = Record<string, string | undefined>;

function integer(env: Env, name: string, fallback: number, min: number, max = Number.MAX_SAFE_INTEGER): number {
  const raw = env[name];
  if (raw === undefined || raw === "") return fallback;
  if (!/^\d+$/.test(raw.trim())) throw new ConfigError(`${name} must be a whole number, got "${raw}"`);
  const value = Number(raw.trim());
  if (value < min || value > max) throw new ConfigError(`${name} must be between ${min} and ${max}, got ${value}`);
  return value;
}

function boolean(env: Env, name: string, fallback: boolean): boolean {
  const raw = env[name]?.trim().toLowerCase();
  if (raw === undefined || raw === "") return fallback;
  if (["true", "1", "yes"].includes(raw)) return true;
  if (["false", "0", "no"].includes(raw)) return false;
  throw new ConfigError(`${name} must be true or false, got "${env[name]}"`);
}

function url(name: string, raw: string): string {
  let parsed: URL;
  try {
    parsed = new URL(raw);
  } catch {
    throw new ConfigError(`${name} must be an absolute http(s) URL, got "${raw}"`);
  }
  if (parsed.protocol !== "http:" && parsed.protocol !== "https:") {
    throw new ConfigError(`${name} must use http or https, got "${raw}"`);
  }
  return raw.replace(/\/+$/, "");
}

function s3Config(env: Env): S3Config | undefined {
  const bucket = env.MIXDOWN_S3_BUCKET?.trim();
  const endpoint = env.MIXDOWN_S3_ENDPOINT?.trim() || undefined;
  if (!bucket) {
    for (const name of ["MIXDOWN_S3_ENDPOINT", "MIXDOWN_S3_UPLOAD_URLS"])
      if (env[name]?.trim()) throw new ConfigError(`${name} is set but MIXDOWN_S3_BUCKET is not`);
    return undefined;
  }
  if (endpoint) url("MIXDOWN_S3_ENDPOINT", endpoint);
  const accessKeyId = env.MIXDOWN_S3_ACCESS_KEY_ID?.trim() || undefined;
  const secretAccessKey = env.MIXDOWN_S3_SECRET_ACCESS_KEY?.trim() || undefined;
  if ((accessKeyId === undefined) !== (secretAccessKey === undefined)) {
    throw new ConfigError("MIXDOWN_S3_ACCESS_KEY_ID and MIXDOWN_S3_SECRET_ACCESS_KEY go together");
  }
  return {
    endpoint,
    bucket,
    region: env.MIXDOWN_S3_REGION?.trim() || "us-east-1",
    accessKeyId,
    secretAccessKey,
    forcePathStyle: boolean(env, "MIXDOWN_S3_FORCE_PATH_STYLE", endpoint !== undefined),
    uploadUrls: oneOf(env, "MIXDOWN_S3_UPLOAD_URLS", ["presigned", "mixdown"] as const),
  };
}

/** One of `values` (the first is the default). */
function oneOf<T extends string>(env: Env, name: string, values: readonly [T, ...T[]]): T {
  const raw = env[name]?.trim().toLowerCase();
  if (raw === undefined || raw === "") return values[0];
  const value = values.find((v) => v === raw);
  if (value === undefined) throw new ConfigError(`${name} must be one of ${values.join(", ")}, got "${env[name]}"`);
  return value;
}

function readPem(name: string, file: string): string {
  try {
    return fs.readFileSync(file, "utf8");
  } catch (error) {
    throw new ConfigError(`${name}: cannot read ${file} (${(error as NodeJS.ErrnoException).code ?? error})`);
  }
}

function tlsConfig(env: Env): TlsConfig | undefined {
  const certFile = env.MIXDOWN_TLS_CERT?.trim() || undefined;
  const keyFile = env.MIXDOWN_TLS_KEY?.trim() || undefined;
  if (!certFile && !keyFile) return undefined;
  if (!certFile || !keyFile) {
    throw new ConfigError("MIXDOWN_TLS_CERT and MIXDOWN_TLS_KEY go together (PEM files; see `mixdown dev-cert`)");
  }
  const cert = readPem("MIXDOWN_TLS_CERT", path.resolve(certFile));
  const key = readPem("MIXDOWN_TLS_KEY", path.resolve(keyFile));
  let x509: X509Certificate;
  try {
    x509 = new X509Certificate(cert);
  } catch {
    throw new ConfigError(`MIXDOWN_TLS_CERT: ${certFile} is not a PEM certificate`);
  }
  let privateKey: ReturnType<typeof createPrivateKey>;
  try {
    privateKey = createPrivateKey(key);
  } catch {
    throw new ConfigError(`MIXDOWN_TLS_KEY: ${keyFile} is not a PEM private key (an encrypted key is not supported)`);
  }
  if (!x509.checkPrivateKey(privateKey)) {
    throw new ConfigError(`MIXDOWN_TLS_KEY: ${keyFile} is not the private key of the certificate ${certFile}`);
  }
  if (Date.parse(x509.validTo) < Date.now()) {
    throw new ConfigError(`MIXDOWN_TLS_CERT: ${certFile} expired on ${x509.validTo}`);
  }
  return { certFile: path.resolve(certFile), keyFile: path.resolve(keyFile), cert, key };
}

const originOf = (base: string): string => new URL(base).origin;

/**
 * MIXDOWN_FILES_URL, checked: on another origin than the dashboard's (that is its point), and only for files on
 * local disk (an object store serves its files itself, on its own origin). Also refuses a bucket addressed on the
 * dashboard's origin: its files would run there as pages, with nothing to stop them.
 */
function filesUrl(env: Env, publicUrl: string, s3: S3Config | undefined): string | undefined {
  if (s3 && originOf(s3PublicBase(s3)) === originOf(publicUrl)) {
    throw new ConfigError(
      `MIXDOWN_S3_ENDPOINT addresses the bucket on MIXDOWN_PUBLIC_URL's origin (${originOf(publicUrl)}): files there would run as pages of the dashboard's origin; give the store a host name of its own`,
    );
  }
  const raw = env.MIXDOWN_FILES_URL?.trim();
  if (!raw) return undefined;
  const files = url("MIXDOWN_FILES_URL", raw);
  if (s3) {
    throw new ConfigError(
      "MIXDOWN_FILES_URL is for files on local disk: with MIXDOWN_S3_BUCKET files are served by the object store, on its own origin",
    );
  }
  if (originOf(files) === originOf(publicUrl)) {
    throw new ConfigError(
      `MIXDOWN_FILES_URL must be on another origin than MIXDOWN_PUBLIC_URL (${originOf(publicUrl)}): another host name for the same nodes`,
    );
  }
  return files;
}

/** MIXDOWN_TRUST_PROXY: comma-separated IPv4/IPv6 addresses or CIDR ranges. */
function proxies(env: Env): string[] {
  const raw = env.MIXDOWN_TRUST_PROXY?.trim();
  if (!raw) return [];
  const list = raw.split(",").map((part) => part.trim());
  for (const entry of list) {
    const [address, bits, ...rest] = entry.split("/");
    const family = net.isIP(address ?? "");
    const width = family === 4 ? 32 : 128;
    if (family === 0 || rest.length > 0 || (bits !== undefined && !(/^\d+$/.test(bits) && Number(bits) <= width)))
      throw new ConfigError(`MIXDOWN_TRUST_PROXY must list IP addresses or CIDR ranges, got "${entry}"`);
  }
  return list;
}

/** Default: 11 attempts over about 23.6 hours (exponential, ×2 to ×6 per step). */
export const DEFAULT_WEBHOOK_RETRY_SCHEDULE = [5, 30, 120, 600, 1800, 3600, 7200, 14400, 28800, 28800];

/** MIXDOWN_WEBHOOK_RETRY_SCHEDULE: comma-separated seconds (decimals allowed), at most 30 retries. */
function retrySchedule(env: Env): number[] {
  const raw = env.MIXDOWN_WEBHOOK_RETRY_SCHEDULE?.trim();
  if (raw === undefined || raw === "") return DEFAULT_WEBHOOK_RETRY_SCHEDULE;
  const parts = raw === "none" ? [] : raw.split(",").map((part) => part.trim());
  const valid = parts.every((part) => /^\d+(\.\d+)?$/.test(part) && Number(part) <= 7 * 24 * 3600);
  if (!valid || parts.length > 30) {
    throw new ConfigError(
      `MIXDOWN_WEBHOOK_RETRY_SCHEDULE must list up to 30 delays in seconds (each at most a week), separated by commas, or "none", got "${raw}"`,
    );
  }
  return parts.map(Number);
}

const LOG_LEVELS = ["fatal", "error", "warn", "info", "debug", "trace", "silent"];

function rateLimit(env: Env): RateLimit | undefined {
  const parsed = parseRateLimit(env.MIXDOWN_RATE_LIMIT);
  if (typeof parsed === "string") throw new ConfigError(`MIXDOWN_RATE_LIMIT ${parsed}`);
  return parsed;
}

/** Reads and validates the whole configuration; throws ConfigError with a message naming the variable. */
export function loadConfig(env: Env = process.env): Config {
  const port = integer(env, "PORT", 8080, 0, 65535);
  const host = env.MIXDOWN_HOST?.trim() || "127.0.0.1";
  const logLevel = env.MIXDOWN_LOG_LEVEL?.trim() || "info";
  if (!LOG_LEVELS.includes(logLevel)) {
    throw new ConfigError(`MIXDOWN_LOG_LEVEL must be one of ${LOG_LEVELS.join(", ")}, got "${logLevel}"`);
  }
  const secret = env.MIXDOWN_SECRET?.trim() || undefined;
  if (secret !== undefined && secret.length < 32) {
    throw new ConfigError("MIXDOWN_SECRET must be at least 32 characters long");
  }
  const dataDir = path.resolve(env.MIXDOWN_DATA_DIR?.trim() || "./data");
  const databaseUrl = env.MIXDOWN_DATABASE_URL?.trim() || undefined;
  if (databaseUrl !== undefined && !/^postgres(ql)?:\/\//.test(databaseUrl)) {
    throw new ConfigError(`MIXDOWN_DATABASE_URL must be a postgres:// URL, got "${databaseUrl}"`);
  }
  const tls = tlsConfig(env);
  const s3 = s3Config(env);
  const publicUrl = url(
    "MIXDOWN_PUBLIC_URL",
    env.MIXDOWN_PUBLIC_URL?.trim() || `${tls ? "https" : "http"}://localhost:${port}`,
  );
  return {
    port,
    host,
    dataDir,
    databaseUrl,
    s3,
    workflowsDir: path.resolve(env.MIXDOWN_WORKFLOWS_DIR?.trim() || path.join(dataDir, "workflows")),
    modelsDir: path.resolve(env.MIXDOWN_MODELS_DIR?.trim() || path.join(dataDir, "models")),
    publicUrl,
    filesUrl: filesUrl(env, publicUrl, s3),
    fetchTimeoutMs: integer(env, "MIXDOWN_FETCH_TIMEOUT_MS", 30_000, 100),
    allowPrivateUrls: boolean(env, "MIXDOWN_ALLOW_PRIVATE_URLS", false),
    maxUploadBytes: integer(env, "MIXDOWN_MAX_UPLOAD_BYTES", 2 * 1024 ** 3, 1),
    workers: integer(env, "MIXDOWN_WORKERS", Math.max(1, os.availableParallelism()), 0, 256),
    urlTtlSeconds: integer(env, "MIXDOWN_URL_TTL_SECONDS", 24 * 3600, 1),
    jobLeaseMs: integer(env, "MIXDOWN_JOB_LEASE_MS", 30_000, 500),
    appConcurrency: integer(env, "MIXDOWN_APP_CONCURRENCY", 0, 0, 10_000),
    shutdownGraceMs: integer(env, "MIXDOWN_SHUTDOWN_GRACE_MS", 30_000, 0),
    rateLimit: rateLimit(env),
    maxQueuedJobs: integer(env, "MIXDOWN_MAX_QUEUED_JOBS", 0, 0),
    logLevel,
    secret,
    tls,
    dashboardSessionIdleMs: integer(env, "MIXDOWN_DASHBOARD_SESSION_IDLE_HOURS", 12, 1, 24 * 365) * 3600 * 1000,
    trustProxy: proxies(env),
    webhookRetrySchedule: retrySchedule(env),
    jobRetentionDays: integer(env, "MIXDOWN_JOB_RETENTION_DAYS", 30, 0, 100 * 365),
  };
}

/** Documentation of every variable, shown by `mixdown serve --help`. */
export const CONFIG_HELP = `Environment:
  PORT                        port to listen on (default 8080)
  MIXDOWN_HOST                address to bind (default 127.0.0.1)
  MIXDOWN_DATA_DIR            database and files (default ./data)
  MIXDOWN_WORKFLOWS_DIR       custom workflow definitions, .json/.yaml, saved into the metadata store (for
                              every node) when this node starts or sees a file appear or change, unless
                              newer there (default $MIXDOWN_DATA_DIR/workflows)
  MIXDOWN_MODELS_DIR          operator-supplied model files: ONNX separation models, whisper ggml models
                              (default $MIXDOWN_DATA_DIR/models)
  MIXDOWN_PUBLIC_URL          base of upload/download/result URLs (default http://localhost:$PORT, or
                              https://localhost:$PORT with TLS)
  MIXDOWN_FILES_URL           base of download and result URLs, on an origin of its own: another host name
                              for the same nodes (e.g. https://files.example.com), which then serves files
                              only; the public URL's host then serves no files (default: MIXDOWN_PUBLIC_URL;
                              files on local disk only)
  MIXDOWN_TLS_CERT            PEM certificate (chain) file: serve HTTPS instead of HTTP (with MIXDOWN_TLS_KEY;
                              \`mixdown dev-cert\` makes a self-signed pair for local use)
  MIXDOWN_TLS_KEY             PEM private key file of that certificate
  MIXDOWN_FETCH_TIMEOUT_MS    input download: max wait for a connection, a response or the next bytes (default 30000)
  MIXDOWN_ALLOW_PRIVATE_URLS  allow inputs on loopback/private/internal addresses (default false)
  MIXDOWN_MAX_UPLOAD_BYTES    largest upload or input download (default 2147483648)
  MIXDOWN_WORKERS             jobs processed concurrently by this process (default: number of CPUs; 0 = none)
  MIXDOWN_URL_TTL_SECONDS     lifetime of upload and download URLs (default 86400)
  MIXDOWN_JOB_LEASE_MS        a started job is re-queued if its worker is silent this long (default 30000)
  MIXDOWN_SHUTDOWN_GRACE_MS   on SIGTERM, how long running jobs may finish before re-queueing (default 30000)
  MIXDOWN_APP_CONCURRENCY     most jobs of one application running at once on all workers (default 0: no
                              limit; waiting jobs are interleaved across applications either way)
  MIXDOWN_LOG_LEVEL           fatal|error|warn|info|debug|trace|silent (default info)
  MIXDOWN_SECRET              key for signing URLs (default: generated once into the data dir; set the
                              same value on every node in distributed mode)
  MIXDOWN_DASHBOARD_SESSION_IDLE_HOURS
                              a dashboard sign-in unused this many hours ends (default 12)
  MIXDOWN_TRUST_PROXY         reverse proxies (addresses or CIDR ranges, comma-separated) whose
                              X-Forwarded-For gives the client's address, e.g. for sign-in throttling
                              (default: none, the connection's address counts)
  MIXDOWN_JOB_RETENTION_DAYS  finished jobs (SUCCEEDED or FAILED) older than this many days are deleted with
                              their result files, every 10 minutes (default 30; 0 keeps them forever)
  MIXDOWN_WEBHOOK_RETRY_SCHEDULE
                              seconds between a webhook delivery's attempts, comma-separated, each
                              ±20% jitter; after the last the delivery fails ("none": no retries;
                              default 5,30,120,600,1800,3600,7200,14400,28800,28800: 11 attempts over
                              about 24 h)
  MIXDOWN_RATE_LIMIT          API requests per application: "N/s" or "N/min", optionally ",burst=M"
                              (default burst N), e.g. "20/s,burst=40"; over it: 429 with Retry-After.
                              Holds for the whole deployment (default off)
  MIXDOWN_MAX_QUEUED_JOBS     most jobs one application may have waiting to start; POST /job beyond it:
                              429 TOO_MANY_QUEUED_JOBS (default 0: no cap)

Distributed mode (both optional, independent):
  MIXDOWN_DATABASE_URL        postgres://… : metadata in Postgres, queue in pg-boss
  MIXDOWN_S3_BUCKET           files in this S3 bucket (presigned upload/download URLs)
  MIXDOWN_S3_ENDPOINT         S3-compatible endpoint (default: AWS)
  MIXDOWN_S3_REGION           (default us-east-1)
  MIXDOWN_S3_ACCESS_KEY_ID, MIXDOWN_S3_SECRET_ACCESS_KEY   credentials (default: the AWS SDK's chain)
  MIXDOWN_S3_FORCE_PATH_STYLE path-style addressing (default true when an endpoint is set)
  MIXDOWN_S3_UPLOAD_URLS      presigned (default): GET /upload gives the store's presigned PUT URL, so uploads
                              go straight to the store; S3 refuses bodies of unknown length (411), which the
                              Music.AI JavaScript SDK sends. mixdown: Mixdown's own upload URL, on the API
                              nodes, streamed into the store; accepts any body. Downloads are presigned either way.`;
