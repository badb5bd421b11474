import fs from "node:fs";
import path from "node:path";
import { ListObjectsV2Command, S3Client } from "@aws-sdk/client-s3";
import pg from "pg";
import type { Mixdown } from "./mixdown.ts";

/** Rows of a table of the deployment's database (SQLite file or Postgres), for white-box checks. */
export async function tableRows(server: Mixdown, table: "applications" | "jobs"): Promise<Record<string, unknown>[]> {
  if (server.backend === "embedded") {
    const { DatabaseSync } = await import("node:sqlite");
    const db = new DatabaseSync(path.join(server.dataDir, "mixdown.sqlite"), { readOnly: true });
    try {
      return db.prepare(`SELECT * FROM ${table}`).all() as Record<string, unknown>[];
    } finally {
      db.close();
    }
  }
  const client = new pg.Client({ connectionString: server.env.MIXDOWN_DATABASE_URL });
  await client.connect();
  try {
    return (await client.query(`SELECT * FROM ${table}`)).rows;
  } finally {
    await client.end();
  }
}

/** Keys of the stored blobs under a prefix (local files, or S3 objects). */
export async function storedKeys(server: Mixdown, prefix: string): Promise<string[]> {
  if (server.backend === "embedded") {
    const root = path.join(server.dataDir, "blobs");
    const dir = path.join(root, prefix);
    if (!fs.existsSync(dir)) return [];
    return (fs.readdirSync(dir, { recursive: true }) as string[])
      .map((entry) => path.join(prefix, entry))
      .filter((key) => fs.statSync(path.join(root, key)).isFile() && !key.endsWith(".meta.json"));
  }
  const s3 = new S3Client({
    endpoint: server.env.MIXDOWN_S3_ENDPOINT,
    region: "us-east-1",
    forcePathStyle: true,
    credentials: {
      accessKeyId: server.env.MIXDOWN_S3_ACCESS_KEY_ID as string,
      secretAccessKey: server.env.MIXDOWN_S3_SECRET_ACCESS_KEY as string,
    },
  });
  const listed = await s3.send(new ListObjectsV2Command({ Bucket: server.env.MIXDOWN_S3_BUCKET, Prefix: prefix }));
  return (listed.Contents ?? []).flatMap((o) => (o.Key ? [o.Key] : []));
}

/** Files left in the deployment's scratch space (every node's). */
export function scratchFiles(server: Mixdown): string[] {
  const dir = path.join(server.dataDir, "scratch");
  return fs.existsSync(dir) ? (fs.readdirSync(dir, { recursive: true }) as string[]) : [];
}
