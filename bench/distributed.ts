/**
 * Distributed mode (Postgres + pg-boss + S3): jobs/s on CPU-bound jobs with 1 and then 2 worker processes
 * (ratio; goal ≥ 1.8 on a 2-core machine), and GET /job/:id/status requests/s on an API node backed by
 * Postgres. Needs Postgres and S3 (scripts/s3-server.sh start); prints why and exits 0 when absent.
 * The same run measures the machine's own ceiling: the same work (decode + analysis of the same file,
 * bench/lib/analysis-loop.ts) in 1 and then 2 plain processes, with no Mixdown, database or S3 around it.
 * Run: node bench/distributed.ts   (BENCH_JOBS=16 jobs per round, BENCH_DURATION=10 s of status load)
 */
import { execFile } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { promisify } from "node:util";
import autocannon from "autocannon";
import { distributedUnavailable } from "../test/helpers/backends.ts";
import { Mixdown } from "../test/helpers/mixdown.ts";
import { encodeWav, generateTrack, suiteSpecs } from "../test/music/generator.ts";
import { makeTempDir } from "./lib/harness.ts";

const JOBS = Number(process.env.BENCH_JOBS ?? 16);
const DURATION = Number(process.env.BENCH_DURATION ?? 10);

if (distributedUnavailable) {
  console.log(`distributed bench skipped: ${distributedUnavailable}`);
  console.log(JSON.stringify({ bench: "distributed", skipped: distributedUnavailable }));
  process.exit(0);
}

const track = encodeWav(
  generateTrack({ ...(suiteSpecs()[3] as ReturnType<typeof suiteSpecs>[number]), durationSeconds: 90 }),
);

/** Seconds for JOBS runs of the same work on `file` in `processes` plain node processes at once (JOBS / processes each). */
async function bareThroughput(file: string, processes: number): Promise<{ seconds: number; jobsPerSecond: number }> {
  const loop = path.join(import.meta.dirname, "lib/analysis-loop.ts");
  const run = promisify(execFile);
  const start = performance.now();
  await Promise.all(
    Array.from({ length: processes }, () => run(process.execPath, [loop, file, String(JOBS / processes)])),
  );
  const seconds = (performance.now() - start) / 1000;
  return { seconds, jobsPerSecond: JOBS / seconds };
}

/** Seconds for JOBS CPU-bound jobs (beats and chords of a 90 s track) on a deployment with `workers` workers. */
async function throughput(workers: number): Promise<{ seconds: number; jobsPerSecond: number }> {
  const server = await Mixdown.start({ MIXDOWN_LOG_LEVEL: "silent" }, { backend: "distributed", workers });
  try {
    const { apiKey } = await server.createApp();
    const inputUrl = await server.upload(apiKey, track, "audio/wav");
    await server.waitForJob(apiKey, await server.createJob(apiKey, "mixdown/beats-chords", { inputUrl }), 300_000); // warm-up
    const start = performance.now();
    const ids = await Promise.all(
      Array.from({ length: JOBS }, () => server.createJob(apiKey, "mixdown/beats-chords", { inputUrl })),
    );
    for (const id of ids) {
      const job = await server.waitForJob(apiKey, id, 600_000);
      if (job.status !== "SUCCEEDED") throw new Error(`job ${id} ${job.status}: ${JSON.stringify(job.error)}`);
    }
    const seconds = (performance.now() - start) / 1000;
    return { seconds, jobsPerSecond: JOBS / seconds };
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
const trackFile = path.join(makeTempDir("mixdown-bench-distributed-"), "track.wav");
fs.writeFileSync(trackFile, track);
const bareOne = await bareThroughput(trackFile, 1);
const bareTwo = await bareThroughput(trackFile, 2);
const one = await throughput(1);
const two = await throughput(2);
const ratio = two.jobsPerSecond / one.jobsPerSecond;
const ceiling = bareTwo.jobsPerSecond / bareOne.jobsPerSecond;
const status = await statusLoad();
console.log(`CPU-bound jobs (beats and chords of a 90 s track), ${JOBS} per round:`);
console.log(`  1 worker process : ${one.seconds.toFixed(1)} s, ${one.jobsPerSecond.toFixed(2)} jobs/s`);
console.log(`  2 worker processes: ${two.seconds.toFixed(1)} s, ${two.jobsPerSecond.toFixed(2)} jobs/s`);
console.log(`  ratio 2/1: ${ratio.toFixed(2)} (goal >= 1.8: ${ratio >= 1.8 ? "met" : "NOT met"})`);
console.log("The same work without Mixdown (decode + analysis in plain node processes; the machine's ceiling):");
console.log(`  1 process : ${bareOne.seconds.toFixed(1)} s; 2 processes: ${bareTwo.seconds.toFixed(1)} s`);
console.log(`  ratio 2/1: ${ceiling.toFixed(2)}; Mixdown's ratio / the machine's: ${(ratio / ceiling).toFixed(2)}`);
console.log(
  `GET /job/:id/status on an API node backed by Postgres: ${status.reqPerSec.toFixed(0)} req/s, p99 ${status.p99Ms} ms`,
);
console.log(
  JSON.stringify({
    bench: "distributed",
    jobs: JOBS,
    one,
    two,
    ratio,
    goal: 1.8,
    goalMet: ratio >= 1.8,
    machine: { one: bareOne, two: bareTwo, ratio: ceiling },
    status,
  }),
);
