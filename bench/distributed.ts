/**
 * Distributed mode (Postgres + pg-boss + S3): jobs/s on CPU-bound jobs with 1 and then 2 worker processes
 * (ratio; goal ≥ 1.8 on a 2-core machine), and GET /job/:id/status requests/s on an API node backed by
 * Postgres. Needs Postgres and S3 (scripts/s3-server.sh start); prints why and exits 0 when absent.
 * Run: node bench/distributed.ts   (BENCH_JOBS=16 jobs per round, BENCH_DURATION=10 s of status load)
 */
import autocannon from "autocannon";
import { distributedUnavailable } from "../test/helpers/backends.ts";
import { Mixdown } from "../test/helpers/mixdown.ts";
import { encodeWav, generateTrack, suiteSpecs } from "../test/music/generator.ts";

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

const one = await throughput(1);
const two = await throughput(2);
const ratio = two.jobsPerSecond / one.jobsPerSecond;
const status = await statusLoad();
console.log(`CPU-bound jobs (beats and chords of a 90 s track), ${JOBS} per round:`);
console.log(`  1 worker process : ${one.seconds.toFixed(1)} s, ${one.jobsPerSecond.toFixed(2)} jobs/s`);
console.log(`  2 worker processes: ${two.seconds.toFixed(1)} s, ${two.jobsPerSecond.toFixed(2)} jobs/s`);
console.log(`  ratio 2/1: ${ratio.toFixed(2)} (goal >= 1.8: ${ratio >= 1.8 ? "met" : "NOT met"})`);
console.log(
  `GET /job/:id/status on an API node backed by Postgres: ${status.reqPerSec.toFixed(0)} req/s, p99 ${status.p99Ms} ms`,
);
console.log(
  JSON.stringify({ bench: "distributed", jobs: JOBS, one, two, ratio, goal: 1.8, goalMet: ratio >= 1.8, status }),
);
