import { randomBytes } from "node:crypto";
import fs from "node:fs";
import https from "node:https";
import os from "node:os";
import path from "node:path";
import { describe, test } from "node:test";
import { DeleteBucketCommand, S3Client } from "@aws-sdk/client-s3";
import pg from "pg";
import { openS3 } from "../../src/store/s3/open.ts";
import { S3BlobStore } from "../../src/store/s3/s3-blob-store.ts";

/** Where the distributed-mode tests find their services (CI starts both; see .ci/run). */
export const TEST_DATABASE_URL = process.env.MIXDOWN_TEST_DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/test";
export const TEST_S3 = {
  endpoint: process.env.MIXDOWN_TEST_S3_ENDPOINT ?? "http://127.0.0.1:7480",
  accessKeyId: process.env.MIXDOWN_TEST_S3_ACCESS_KEY_ID ?? "mixdown",
  secretAccessKey: process.env.MIXDOWN_TEST_S3_SECRET_ACCESS_KEY ?? "mixdown-secret",
};

/**
 * The test S3 server's HTTPS endpoint and the certificate it presents (scripts/s3-server.sh writes it), for
 * clients that take only https:// file URLs.
 */
export const TEST_S3_TLS = {
  endpoint: process.env.MIXDOWN_TEST_S3_TLS_ENDPOINT ?? "https://127.0.0.1:7443",
  caFile:
    process.env.MIXDOWN_TEST_S3_CA ??
    path.join(process.env.CEPH_DIR ?? path.join(os.tmpdir(), "mixdown-ceph"), "tls", "cert.pem"),
};

export type Backend = "embedded" | "distributed";

/** Mixdown's S3 store (blobs and file URLs) on `bucket` of the test S3 server, as a distributed node opens it. */
export function openTestS3(bucket: string): ReturnType<typeof openS3> {
  return openS3({
    endpoint: TEST_S3.endpoint,
    region: "us-east-1",
    forcePathStyle: true,
    accessKeyId: TEST_S3.accessKeyId,
    secretAccessKey: TEST_S3.secretAccessKey,
    bucket,
  });
}

async function postgresReachable(): Promise<string | undefined> {
  const client = new pg.Client({ connectionString: TEST_DATABASE_URL, connectionTimeoutMillis: 2000 });
  try {
    await client.connect();
    await client.query("SELECT 1");
    return undefined;
  } catch (error) {
    return `Postgres not reachable at ${TEST_DATABASE_URL} (${(error as Error).message})`;
  } finally {
    await client.end().catch(() => undefined);
  }
}

async function s3Reachable(): Promise<string | undefined> {
  try {
    await fetch(TEST_S3.endpoint, { signal: AbortSignal.timeout(2000) });
    return undefined;
  } catch (error) {
    return `S3 not reachable at ${TEST_S3.endpoint} (${(error as Error).message}; start it with scripts/s3-server.sh)`;
  }
}

/** Why the S3 server's HTTPS endpoint cannot be used here, or undefined when it can. */
export const s3TlsUnavailable: string | undefined = await (async () => {
  if (!fs.existsSync(TEST_S3_TLS.caFile)) return `no certificate of the S3 server at ${TEST_S3_TLS.caFile}`;
  const ca = fs.readFileSync(TEST_S3_TLS.caFile, "utf8");
  return new Promise<string | undefined>((resolve) => {
    const request = https.get(TEST_S3_TLS.endpoint, { ca, timeout: 2000 }, (response) => {
      response.resume();
      resolve(undefined);
    });
    request.on("timeout", () => request.destroy(new Error("timed out")));
    request.on("error", (error) => resolve(`S3 not reachable at ${TEST_S3_TLS.endpoint} (${error.message})`));
  });
})();

/** Why the Postgres-only suites cannot run here, or undefined when they can. */
export const postgresUnavailable: string | undefined = await postgresReachable();

/** Why the distributed suites cannot run here, or undefined when they can. */
export const distributedUnavailable: string | undefined = await s3Reachable().then(
  (s3) => [postgresUnavailable, s3].filter(Boolean).join("; ") || undefined,
);

/** A fresh, empty Postgres database on the test server: its URL, and how to drop it. */
export async function provisionDatabase(suffix = randomBytes(6).toString("hex")): Promise<{
  url: string;
  drop(): Promise<void>;
}> {
  const database = `mixdown_t_${suffix}`;
  const admin = new pg.Client({ connectionString: TEST_DATABASE_URL });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${database}`);
  await admin.end();
  const url = new URL(TEST_DATABASE_URL);
  url.pathname = `/${database}`;
  return {
    url: url.toString(),
    async drop() {
      const cleanup = new pg.Client({ connectionString: TEST_DATABASE_URL });
      await cleanup.connect();
      await cleanup.query(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`).catch(() => undefined);
      await cleanup.end();
    },
  };
}

/** A fresh database and bucket for one distributed deployment, and how to remove them. */
export async function provisionDistributed(): Promise<{ env: Record<string, string>; teardown(): Promise<void> }> {
  const suffix = randomBytes(6).toString("hex");
  const bucket = `mixdown-t-${suffix}`;
  const database = await provisionDatabase(suffix);
  return {
    env: {
      MIXDOWN_DATABASE_URL: database.url,
      MIXDOWN_S3_ENDPOINT: TEST_S3.endpoint,
      MIXDOWN_S3_BUCKET: bucket,
      MIXDOWN_S3_ACCESS_KEY_ID: TEST_S3.accessKeyId,
      MIXDOWN_S3_SECRET_ACCESS_KEY: TEST_S3.secretAccessKey,
      MIXDOWN_SECRET: randomBytes(32).toString("hex"),
    },
    async teardown() {
      const s3 = new S3Client({
        endpoint: TEST_S3.endpoint,
        region: "us-east-1",
        forcePathStyle: true,
        credentials: { accessKeyId: TEST_S3.accessKeyId, secretAccessKey: TEST_S3.secretAccessKey },
      });
      await new S3BlobStore(s3, bucket).deletePrefix("").catch(() => undefined);
      await s3.send(new DeleteBucketCommand({ Bucket: bucket })).catch(() => undefined);
      await database.drop();
    },
  };
}

/**
 * describe(), or, when `skip` gives a reason, a suite of one skipped test that gives it: a skipped suite's
 * tests are never declared, so the run's summary would otherwise count nothing as skipped.
 */
export function describeOrSkip(title: string, skip: string | undefined, body: () => void): void {
  if (skip) describe(title, () => test("not run here", { skip: `skipped: ${skip}` }, () => undefined));
  else describe(title, body);
}
