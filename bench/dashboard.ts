// Server time of the dashboard's jobs table (every filter, deep pages) and job page with 100,000 jobs in the store,
// on SQLite and on Postgres. Goal: p95 <= 50 ms for each.
import { randomBytes } from "node:crypto";
import os from "node:os";
import type { FastifyInstance } from "fastify";
import { sql } from "kysely";
import pg from "pg";
import { createMetrics } from "../src/api/metrics.ts";
import { buildServer } from "../src/api/server.ts";
import { loadConfig } from "../src/config.ts";
import { createRuntime, type Runtime } from "../src/runtime.ts";
import { openPostgres } from "../src/store/postgres/database.ts";
import { openSqlite } from "../src/store/sqlite/database.ts";
import { envInt, makeTempDir, onCleanup, printTable, round, runBench } from "./lib/harness.ts";
import { type SeededJob, seedJobs } from "./lib/seed-jobs.ts";

const GOAL_MS = 50;
const JOBS = envInt("BENCH_JOBS", 100_000);
const APPS = 20;
const SAMPLES = envInt("BENCH_SAMPLES", 100);
const WARMUP = 5;
const PER_PAGE = 50;
const DATABASE_URL = process.env.BENCH_DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/test";
/** Only the requests whose name contains this (e.g. "search"); all by default. */
const ONLY = process.env.BENCH_CASES ?? "";

type Backend = "sqlite" | "postgres";
/** Server time percentiles (ms), and the bench process's CPU ms per request (SQLite's work included, Postgres's not). */
type Row = { p50: number; p95: number; max: number; cpu: number };

/** One kind of request: the i-th sample's URL, and what its answer must contain (else the bench fails). */
interface Case {
  name: string;
  /** Not measured (reported as "—") where the route does not exist: the bench also runs on older versions. */
  optional?: boolean;
  url(i: number): string;
  expect(i: number): string | undefined;
}

const pick = <T>(list: T[], i: number): T => list[i % list.length] as T;

/** A fresh database on the Postgres server, dropped at cleanup; undefined when there is no server. */
async function provisionPostgres(): Promise<string | undefined> {
  const admin = new pg.Client({ connectionString: DATABASE_URL, connectionTimeoutMillis: 2000 });
  try {
    await admin.connect();
  } catch (error) {
    console.error(`Postgres not reachable at ${DATABASE_URL} (${(error as Error).message}): SQLite only`);
    return undefined;
  }
  const name = `mixdown_bench_${randomBytes(5).toString("hex")}`;
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  onCleanup(async () => {
    const cleanup = new pg.Client({ connectionString: DATABASE_URL });
    await cleanup.connect();
    await cleanup.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    await cleanup.end();
  });
  const url = new URL(DATABASE_URL);
  url.pathname = `/${name}`;
  return url.toString();
}

/** Writes the jobs straight into the backend's tables (a connection of the bench's own), then closes it. */
async function seed(backend: Backend, dataDir: string, databaseUrl: string | undefined, runtime: Runtime) {
  const apps = [];
  for (let i = 1; i <= APPS; i++) apps.push((await runtime.applications.create(`Label ${i}`)).app.id);
  const workflows = (await runtime.workflows.list(0, 100)).items.slice(0, 6).map((wf) => wf.slug);
  const started = performance.now();
  let jobs: SeededJob[];
  if (backend === "sqlite") {
    const { db } = openSqlite(dataDir);
    jobs = await seedJobs(db, { count: JOBS, apps, workflows, embeddedQueue: true });
    await db.destroy();
  } else {
    const { db, close } = await openPostgres(databaseUrl as string);
    jobs = await seedJobs(db, { count: JOBS, apps, workflows, embeddedQueue: false });
    // As autovacuum would have, long before a store holds 100,000 jobs (its visibility map lets counts read indexes only).
    await sql`VACUUM ANALYZE jobs`.execute(db);
    await close();
  }
  console.log(`${backend}: ${JOBS} jobs written in ${round((performance.now() - started) / 1000, 1)} s`);
  return { apps, workflows, jobs };
}

/** The requests measured, each varied over its samples (applications, statuses, terms, ids, pages). */
function cases(apps: string[], workflows: string[], jobs: SeededJob[]): Case[] {
  const newest = [...jobs].reverse();
  const firstRow = (list: SeededJob[]) => list[0]?.id;
  const ofApp = (appId: string) => newest.filter((job) => job.appId === appId);
  const batches = [...new Set(jobs.map((job) => job.batchName).filter((b): b is string => b !== null))];
  // Terms matching many jobs (an artist: 1 in 7), some (artist and title: 1 in 84) and few (a take number).
  const terms = ["bruno vale", "ESME KAUR – Low Tide", "take 4217", "copper sky", "felix obi – blue hour", "take 99"];
  const ids = newest.filter((_, i) => i % 997 === 0).map((job) => job.id);
  // A deep page is opened by its link, which carries the last row of the page before it.
  const deep = (list: SeededJob[], page: number) => ({
    before: list[(page - 1) * PER_PAGE - 1]?.id as string,
    first: list[(page - 1) * PER_PAGE]?.id,
  });
  const deepPages = [20, 400, 1000, 1990].map((page) => ({ page, ...deep(newest, page) }));
  const appPages = apps.map((appId) => ({ appId, page: 80, ...deep(ofApp(appId), 80) }));
  return [
    { name: "no filter", url: () => "/dashboard/jobs", expect: () => firstRow(newest) },
    {
      name: "application",
      url: (i) => `/dashboard/jobs?app=${pick(apps, i)}`,
      expect: (i) => firstRow(ofApp(pick(apps, i))),
    },
    {
      name: "status",
      url: (i) => `/dashboard/jobs?status=${pick(["FAILED", "QUEUED", "STARTED", "SUCCEEDED"], i)}`,
      expect: () => undefined,
    },
    { name: "workflow", url: (i) => `/dashboard/jobs?workflow=${pick(workflows, i)}`, expect: () => undefined },
    {
      name: "batch",
      url: (i) => `/dashboard/jobs?batch=${pick(batches, i * 7)}`,
      expect: (i) => firstRow(newest.filter((job) => job.batchName === pick(batches, i * 7))),
    },
    {
      name: "name search",
      url: (i) => `/dashboard/jobs?q=${encodeURIComponent(pick(terms, i))}`,
      expect: (i) => firstRow(newest.filter((job) => job.name.toLowerCase().includes(pick(terms, i).toLowerCase()))),
    },
    { name: "id search", url: (i) => `/dashboard/jobs?q=${pick(ids, i)}`, expect: (i) => pick(ids, i) },
    {
      name: "deep pages (20–1990)",
      url: (i) => `/dashboard/jobs?page=${pick(deepPages, i).page}&before=${pick(deepPages, i).before}`,
      expect: (i) => pick(deepPages, i).first,
    },
    {
      name: "application, page 80",
      url: (i) => `/dashboard/jobs?app=${pick(appPages, i).appId}&page=80&before=${pick(appPages, i).before}`,
      expect: (i) => pick(appPages, i).first,
    },
    { name: "job page", url: (i) => `/dashboard/jobs/${pick(ids, i)}`, expect: (i) => pick(ids, i) },
    { name: "system page", optional: true, url: () => "/dashboard/system", expect: () => "Queue depth" },
  ];
}

/** The first data-job-id of a jobs table, else undefined. */
const firstJobId = (html: string) => /data-job-id="([^"]+)"/.exec(html)?.[1];

/**
 * Server time (Fastify's elapsedTime, from the request's arrival to the end of its response) of each sample, and the
 * bench process's CPU time over all samples: on a shared machine, CPU time moves less than wall time.
 */
async function measure(
  app: FastifyInstance,
  cookie: string,
  test: Case,
  last: { ms: number },
): Promise<{ times: number[]; cpuMs: number } | undefined> {
  const times: number[] = [];
  // What each answer must show, worked out before the clock starts (some filter the 100,000 jobs).
  const expectations = Array.from({ length: WARMUP + SAMPLES }, (_, i) => test.expect(i));
  let cpu = process.cpuUsage();
  for (let i = 0; i < WARMUP + SAMPLES; i++) {
    const url = test.url(i);
    const response = await app.inject({ method: "GET", url, headers: { cookie } });
    if (response.statusCode === 404 && test.optional && i === 0) return undefined;
    if (response.statusCode !== 200) throw new Error(`GET ${url} answered ${response.statusCode}`);
    const expected = expectations[i];
    const found = test.name === "job page" || test.name === "system page" ? response.body : firstJobId(response.body);
    if (expected !== undefined && !found?.includes(expected))
      throw new Error(`GET ${url}: expected ${expected}, found ${found?.slice(0, 200)}`);
    if (expected === undefined && !firstJobId(response.body)) throw new Error(`GET ${url}: no rows`);
    if (i === WARMUP - 1) cpu = process.cpuUsage();
    if (i >= WARMUP) times.push(last.ms);
  }
  const used = process.cpuUsage(cpu);
  return { times, cpuMs: (used.user + used.system) / 1000 / SAMPLES };
}

const percentile = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? Number.NaN;

async function benchBackend(backend: Backend, databaseUrl: string | undefined) {
  const dataDir = makeTempDir(`mixdown-bench-dashboard-${backend}-`);
  const env = {
    MIXDOWN_DATA_DIR: dataDir,
    MIXDOWN_LOG_LEVEL: "silent",
    MIXDOWN_WORKERS: "0",
    ...(databaseUrl ? { MIXDOWN_DATABASE_URL: databaseUrl } : {}),
  };
  const runtime = await createRuntime(loadConfig(env));
  onCleanup(() => runtime.close());
  const { apps, workflows, jobs } = await seed(backend, dataDir, databaseUrl, runtime);
  const app = await buildServer(runtime, createMetrics(runtime.store, runtime.queue));
  onCleanup(() => app.close());
  const last = { ms: 0 };
  app.addHook("onResponse", (_request, reply, done) => {
    last.ms = reply.elapsedTime;
    done();
  });
  await app.ready();
  await runtime.operators.add("bench", "bench-password-123");
  const signIn = await runtime.operators.signIn("bench", "bench-password-123", "127.0.0.1");
  if (!signIn.ok) throw new Error("the bench operator could not sign in");
  const cookie = `mixdown_session=${signIn.sessionId}`;
  const rows: Record<string, Row> = {};
  for (const test of cases(apps, workflows, jobs).filter((c) => c.name.includes(ONLY))) {
    const measured = await measure(app, cookie, test, last);
    if (!measured) continue;
    const sorted = measured.times.sort((a, b) => a - b);
    rows[test.name] = {
      p50: round(percentile(sorted, 50), 1),
      p95: round(percentile(sorted, 95), 1),
      max: round(sorted.at(-1) ?? Number.NaN, 1),
      cpu: round(measured.cpuMs, 1),
    };
  }
  return rows;
}

runBench(async () => {
  const results: Record<string, Record<string, Row>> = {};
  const loadBefore = os.loadavg()[0] ?? 0;
  results.sqlite = await benchBackend("sqlite", undefined);
  const databaseUrl = await provisionPostgres();
  if (databaseUrl) results.postgres = await benchBackend("postgres", databaseUrl);
  const backends = Object.keys(results);
  const names = [...new Set(backends.flatMap((b) => Object.keys(results[b] ?? {})))];
  console.log(`\n${JOBS} jobs, ${APPS} applications; server time in ms over ${SAMPLES} requests each:`);
  printTable([
    ["request", ...backends.flatMap((b) => [`${b} p50`, `${b} p95`, `${b} max`, `${b} cpu`])],
    ...names.map((name) => [
      name,
      ...backends.flatMap((b): (string | number)[] => {
        const row = results[b]?.[name];
        return row ? [row.p50, row.p95, row.max, row.cpu] : ["—", "—", "—", "—"];
      }),
    ]),
  ]);
  const load = [round(loadBefore, 1), round(os.loadavg()[0] ?? 0, 1)];
  console.log(
    `machine load (1 min average) at start and end: ${load.join(", ")} on ${os.availableParallelism()} cores`,
  );
  const goalMet = backends.every((b) => Object.values(results[b] ?? {}).every((row) => row.p95 <= GOAL_MS));
  console.log(`goal: p95 <= ${GOAL_MS} ms for every request on every backend: ${goalMet ? "met" : "NOT met"}`);
  const summary = { bench: "dashboard", jobs: JOBS, samples: SAMPLES, goalMs: GOAL_MS, load, results, goalMet };
  console.log(JSON.stringify(summary));
});
