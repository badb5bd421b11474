/**
 * Distributed mode (Postgres + pg-boss + S3): jobs/s with 1 and then 2 worker processes (ratio; goal ≥ 1.8 on
 * a 2-core machine), and GET /job/:id/status requests/s on an API node backed by Postgres. Needs Postgres
 * and S3 (scripts/s3-server.sh start); prints why and exits 0 when absent.
 * Three kinds of job. CPU-bound, where the goal applies: MIDI of a 30 s track (~4 s of single-threaded
 * inference each) and drum stems of a 90 s track (~3 s of computation, with four ffmpeg runs and 48 MB
 * through S3). Short: beats and chords of the 90 s track (~0.6 s, of which starting ffmpeg and decoding
 * are half). For each, the same run measures the machine's own ceiling: the job's heavy step without
 * Mixdown (bench/lib/module-loop.ts) in 1 and then 2 plain processes, with no Mixdown, database or S3.
 * Run: node bench/distributed.ts   (BENCH_JOBS=8 jobs per round, BENCH_DURATION=10 s of status load,
 * BENCH_ONLY=midi: only the kinds whose workflow slug contains it)
 */
import { spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import autocannon from "autocannon";
import { distributedUnavailable } from "../test/helpers/backends.ts";
import { Mixdown } from "../test/helpers/mixdown.ts";
import { encodeWav, generateTrack, suiteSpecs } from "../test/music/generator.ts";
import { coresBusy, machineTicks, makeTempDir } from "./lib/harness.ts";

const JOBS = Number(process.env.BENCH_JOBS ?? 8);
const DURATION = Number(process.env.BENCH_DURATION ?? 10);
/** Issue 6: on CPU-bound jobs, 2 worker processes give at least this many times the jobs/s of one. */
const GOAL = 1.8;

if (distributedUnavailable) {
  console.log(`distributed bench skipped: ${distributedUnavailable}`);
  console.log(JSON.stringify({ bench: "distributed", skipped: distributedUnavailable }));
  process.exit(0);
}

/** A kind of job: its workflow and params (the same as its heavy module's), and the length of its track. */
interface Workload {
  name: string;
  workflow: string;
  module: string;
  params: Record<string, unknown>;
  trackSeconds: number;
  /** Whether the goal (2 workers >= 1.8x one) applies: the job is mostly computation. */
  cpuBound: boolean;
  /** Jobs per round, relative to BENCH_JOBS (short jobs run more, so a round is not over in a moment). */
  jobsFactor: number;
}

const WORKLOADS: Workload[] = [
  {
    name: "MIDI of a 30 s track (CPU-bound)",
    cpuBound: true,
    workflow: "mixdown/midi",
    module: "audio-to-midi",
    params: {},
    trackSeconds: 30,
    jobsFactor: 1,
  },
  {
    name: "drum stems of a 90 s track (CPU-bound)",
    cpuBound: true,
    workflow: "mixdown/stems-drums",
    module: "stems-drums",
    params: { method: "classical" },
    trackSeconds: 90,
    jobsFactor: 1,
  },
  {
    name: "beats and chords of a 90 s track (short)",
    cpuBound: false,
    workflow: "mixdown/beats-chords",
    module: "music-analysis",
    params: {},
    trackSeconds: 90,
    jobsFactor: 2,
  },
];

const tracks = new Map<number, Buffer>();
/** The generated test track of that length, as WAV (made once per length). */
function track(seconds: number): Buffer {
  let wav = tracks.get(seconds);
  if (!wav) {
    const spec = suiteSpecs()[3] as ReturnType<typeof suiteSpecs>[number];
    wav = encodeWav(generateTrack({ ...spec, durationSeconds: seconds }));
    tracks.set(seconds, wav);
  }
  return wav;
}

/** One round: its time, its rate, and how many of the machine's cores were busy on average meanwhile. */
interface Round {
  seconds: number;
  jobsPerSecond: number;
  cores: number;
  /** Jobs each worker process ran in the round (from its /metrics), when Mixdown ran the round. */
  perWorker?: number[];
}

/** Jobs a worker node has run so far, all workflows and outcomes (its mixdown_job_duration_seconds counts). */
async function jobsRun(workerUrl: string): Promise<number> {
  const text = await (await fetch(`${workerUrl}/metrics`)).text();
  const counts = text.matchAll(/^mixdown_job_duration_seconds_count\{[^}]*\} (\d+)$/gm);
  return [...counts].reduce((sum, match) => sum + Number(match[1]), 0);
}

/**
 * `jobs` runs of the workload's module on `file` in `processes` plain node processes at once (an equal share
 * each), timed from when all of them are warm (each ran the module once), as the Mixdown rounds are.
 */
async function bareThroughput(work: Workload, jobs: number, file: string, processes: number): Promise<Round> {
  const loop = path.join(import.meta.dirname, "lib/module-loop.ts");
  const args = [loop, work.module, file, String(jobs / processes), JSON.stringify(work.params)];
  const children = Array.from({ length: processes }, () =>
    spawn(process.execPath, args, { stdio: ["pipe", "pipe", "inherit"] }),
  );
  const exits = children.map(
    (child) =>
      new Promise<void>((resolve, reject) =>
        child.on("exit", (code) => (code === 0 ? resolve() : reject(new Error(`module-loop exited with ${code}`)))),
      ),
  );
  // Each prints "warm" once it ran the module once (or exits, having failed).
  await Promise.all(
    children.map((child, i) => Promise.race([new Promise((resolve) => child.stdout.once("data", resolve)), exits[i]])),
  );
  const ticks = machineTicks();
  const start = performance.now();
  for (const child of children) child.stdin.end("go\n");
  await Promise.all(exits);
  const seconds = (performance.now() - start) / 1000;
  return { seconds, jobsPerSecond: jobs / seconds, cores: coresBusy(ticks, machineTicks()) };
}

/** `jobs` jobs of the workload on a deployment with `workers` worker processes, after warming each up. */
async function throughput(work: Workload, jobs: number, workers: number): Promise<Round> {
  const server = await Mixdown.start({ MIXDOWN_LOG_LEVEL: "silent" }, { backend: "distributed", workers });
  try {
    const { apiKey } = await server.createApp();
    const params = { ...work.params, inputUrl: await server.upload(apiKey, track(work.trackSeconds), "audio/wav") };
    // Warm-up: one job per worker at once, so that each worker's module process is ready before timing starts.
    const warmUp = await Promise.all(
      Array.from({ length: workers }, () => server.createJob(apiKey, work.workflow, params)),
    );
    for (const id of warmUp) await server.waitForJob(apiKey, id, 300_000);
    const warmed = await Promise.all(server.workers.map((w) => jobsRun(w.url)));
    const ticks = machineTicks();
    const start = performance.now();
    const ids = await Promise.all(Array.from({ length: jobs }, () => server.createJob(apiKey, work.workflow, params)));
    for (const id of ids) {
      const job = await server.waitForJob(apiKey, id, 600_000);
      if (job.status !== "SUCCEEDED") throw new Error(`job ${id} ${job.status}: ${JSON.stringify(job.error)}`);
    }
    const seconds = (performance.now() - start) / 1000;
    const cores = coresBusy(ticks, machineTicks());
    const perWorker = await Promise.all(server.workers.map(async (w, i) => (await jobsRun(w.url)) - (warmed[i] ?? 0)));
    return { seconds, jobsPerSecond: jobs / seconds, cores, perWorker };
  } finally {
    await server.dispose();
  }
}

async function statusLoad(): Promise<{ reqPerSec: number; p99Ms: number }> {
  const server = await Mixdown.start({ MIXDOWN_LOG_LEVEL: "silent" }, { backend: "distributed", workers: 0 });
  try {
    const { apiKey } = await server.createApp();
    const id = await server.createJob(apiKey, "mixdown/convert", {
      inputUrl: "https://example.invalid/a.wav",
      format: "mp3",
    });
    const result = await autocannon({
      url: `${server.url}/v1/job/${id}/status`,
      connections: 10,
      duration: DURATION,
      headers: { authorization: apiKey },
    });
    if (result.non2xx > 0 || result.errors > 0)
      throw new Error(`status load had ${result.non2xx} non-2xx and ${result.errors} errors`);
    return { reqPerSec: result.requests.average, p99Ms: result.latency.p99 };
  } finally {
    await server.dispose();
  }
}

if (JOBS % 2 !== 0) throw new Error(`BENCH_JOBS must be even, got ${JOBS}`);
const trackDir = makeTempDir("mixdown-bench-distributed-");
// CPU per job counts the whole machine (workers, ffmpeg, API node, Postgres, Ceph, this client): against the
// plain processes' figure it shows Mixdown's own cost, and 1 against 2 at once what running two jobs side by
// side costs each of them on this machine.
const busy = (round: Round) =>
  `${round.cores.toFixed(2)} of ${os.availableParallelism()} cores busy, ` +
  `${(round.cores / round.jobsPerSecond).toFixed(2)} s CPU per job` +
  (round.perWorker && round.perWorker.length > 1 ? `, jobs per worker ${round.perWorker.join("/")}` : "");
const results = [];
const only = process.env.BENCH_ONLY; // e.g. "midi": only the kinds whose workflow slug contains it
for (const work of WORKLOADS.filter((w) => !only || w.workflow.includes(only))) {
  const jobs = JOBS * work.jobsFactor;
  const trackFile = path.join(trackDir, `track-${work.trackSeconds}s.wav`);
  fs.writeFileSync(trackFile, track(work.trackSeconds));
  const bareOne = await bareThroughput(work, jobs, trackFile, 1);
  const bareTwo = await bareThroughput(work, jobs, trackFile, 2);
  const one = await throughput(work, jobs, 1);
  const two = await throughput(work, jobs, 2);
  const ratio = two.jobsPerSecond / one.jobsPerSecond;
  const ceiling = bareTwo.jobsPerSecond / bareOne.jobsPerSecond;
  console.log(`${work.name}, ${jobs} jobs per round:`);
  console.log(
    `  1 worker process  : ${one.seconds.toFixed(1)} s, ${one.jobsPerSecond.toFixed(2)} jobs/s, ${busy(one)}`,
  );
  console.log(
    `  2 worker processes: ${two.seconds.toFixed(1)} s, ${two.jobsPerSecond.toFixed(2)} jobs/s, ${busy(two)}`,
  );
  console.log(`  ratio 2/1: ${ratio.toFixed(2)}`);
  console.log(`  the same work without Mixdown (${work.module} in plain node processes; the machine's ceiling):`);
  console.log(`    1 process  : ${bareOne.seconds.toFixed(1)} s, ${busy(bareOne)}`);
  console.log(`    2 processes: ${bareTwo.seconds.toFixed(1)} s, ${busy(bareTwo)}`);
  console.log(`    ratio 2/1: ${ceiling.toFixed(2)}; Mixdown's ratio / the machine's: ${(ratio / ceiling).toFixed(2)}`);
  results.push({
    workload: work.name,
    goalMet: work.cpuBound ? ratio >= GOAL : undefined,
    workflow: work.workflow,
    jobs,
    one,
    two,
    ratio,
    machine: { one: bareOne, two: bareTwo, ratio: ceiling },
  });
}
for (const r of results) {
  if (r.goalMet === undefined) continue;
  console.log(`Goal 2 workers >= ${GOAL}x one, ${r.workload}: ${r.ratio.toFixed(2)}, ${r.goalMet ? "met" : "NOT met"}`);
}
const status = await statusLoad();
console.log(
  `GET /job/:id/status on an API node backed by Postgres: ${status.reqPerSec.toFixed(0)} req/s, p99 ${status.p99Ms} ms`,
);
console.log(
  JSON.stringify({
    bench: "distributed",
    workloads: results,
    goal: GOAL,
    status,
  }),
);
