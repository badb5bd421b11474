import { randomBytes } from "node:crypto";
import type { Kysely } from "kysely";
import type { JobStatus } from "../../src/domain.ts";
import { type Database, newJobRow } from "../../src/store/sql/schema.ts";

const ARTISTS = ["Ayla Marsh", "Bruno Vale", "Cass Ortega", "Dmitri Lind", "Esme Kaur", "Felix Obi", "Greta Holm"];
const TITLES = [
  "Night Drive",
  "Paper Moons",
  "Low Tide",
  "Glass Harbor",
  "Northern Line",
  "Slow Burn",
  "Kite Season",
  "Saltwater",
  "Blue Hour",
  "Copper Sky",
  "Small Rooms",
  "Long Way Home",
];
const ERRORS = [
  { code: "BAD_INPUT", title: "Bad input", message: "The input is not a readable audio file." },
  { code: "TIMEOUT", title: "Timed out", message: "The step did not finish in time." },
  { code: "INTERNAL_ERROR", title: "Internal error", message: "A tool failed unexpectedly." },
] as const;

export interface SeededJob {
  id: string;
  appId: string;
  name: string;
  status: JobStatus;
  workflow: string;
  batchName: string | null;
}

/** A UUID v7 at `ms` (sequence 0): ids made in increasing time order sort in that order, like uuidv7(). */
function uuidv7At(ms: number): string {
  const bytes = randomBytes(16);
  bytes.writeUIntBE(ms, 0, 6);
  bytes[6] = 0x70 | ((bytes[6] ?? 0) & 0x0f);
  bytes[8] = 0x80 | ((bytes[8] ?? 0) & 0x3f);
  const hex = bytes.toString("hex");
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/** Mostly ended jobs, as in a store that has run for a while: 80 % succeeded, 15 % failed, the rest waiting or running. */
function statusOf(i: number): JobStatus {
  const r = i % 100;
  if (r < 80) return "SUCCEEDED";
  if (r < 95) return "FAILED";
  return r < 99 ? "QUEUED" : "STARTED";
}

/**
 * `count` jobs spread over `apps` and `workflows`, one every 30 s ending now, written straight into the jobs table
 * (and the embedded queue's table for the unfinished ones) in multi-row inserts: 100,000 take seconds, not the
 * minutes the API would. Names are "ARTIST – TITLE (take N)"; one job in five belongs to a batch of up to 100.
 */
export async function seedJobs(
  db: Kysely<Database>,
  options: { count: number; apps: string[]; workflows: string[]; embeddedQueue: boolean },
): Promise<SeededJob[]> {
  const { count, apps, workflows } = options;
  const start = Date.now() - count * 30_000;
  const jobs: SeededJob[] = [];
  const chunk = 500; // 13 columns: 6,500 parameters, under both SQLite's and Postgres's limits
  for (let from = 0; from < count; from += chunk) {
    const rows: Database["jobs"][] = [];
    const queueRows: Database["job_queue"][] = [];
    for (let i = from; i < Math.min(count, from + chunk); i++) {
      const ms = start + i * 30_000;
      const appId = apps[i % apps.length] as string;
      const workflow = workflows[Math.floor(i / 7) % workflows.length] as string;
      const status = statusOf(i);
      const job: SeededJob = {
        id: uuidv7At(ms),
        appId,
        name: `${ARTISTS[i % ARTISTS.length]} – ${TITLES[Math.floor(i / 7) % TITLES.length]} (take ${i})`,
        status,
        workflow,
        batchName: i % 5 === 0 ? `batch-${Math.floor(i / 500)}` : null,
      };
      jobs.push(job);
      const createdAt = new Date(ms).toISOString();
      const row = newJobRow({
        ...job,
        metadata: { album: TITLES[i % TITLES.length] as string, track: i % 12 },
        params: { inputUrl: `https://media.example.com/${job.id}.wav`, format: "mp3" },
        createdAt,
      });
      row.status = status;
      if (status !== "QUEUED") row.started_at = new Date(ms + 1000).toISOString();
      if (status === "SUCCEEDED") {
        row.result = JSON.stringify({ output: { file: `results/${job.id}/output.mp3`, contentType: "audio/mpeg" } });
      }
      if (status === "FAILED") row.error = JSON.stringify(ERRORS[i % ERRORS.length]);
      if (status === "SUCCEEDED" || status === "FAILED") row.completed_at = new Date(ms + 9000).toISOString();
      rows.push(row);
      if (status === "QUEUED" || status === "STARTED") {
        const running = status === "STARTED";
        queueRows.push({
          job_id: job.id,
          app_id: appId,
          attempts: running ? 1 : 0,
          lease_owner: running ? `bench-worker-${i % 3}` : null,
          lease_expires_at: running ? Date.now() + 24 * 3600_000 : null,
        });
      }
    }
    await db.transaction().execute(async (tx) => {
      await tx.insertInto("jobs").values(rows).execute();
      if (options.embeddedQueue && queueRows.length > 0) await tx.insertInto("job_queue").values(queueRows).execute();
    });
  }
  return jobs;
}
