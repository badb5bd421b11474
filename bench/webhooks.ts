/**
 * Webhook latency (issue 17): from a job's completion to the receiver. Goals: p50 ≤ 100 ms embedded, ≤ 250 ms
 * distributed. Measured as the receiver's clock when a job.succeeded delivery has arrived whole, minus the job's
 * completedAt in that delivery (written in the transaction that also writes the outbox row; same machine, same
 * clock). mixdown/probe jobs on a 1 s WAV: BENCH_JOBS (30) single jobs one after the other (each waits for its
 * webhook: an idle deliverer), then a burst of BENCH_JOBS created at once. Distributed (Postgres + S3, when both
 * answer; BENCH_DISTRIBUTED=0 skips it): one API node and one worker node; either may deliver.
 * Run: node bench/webhooks.ts
 */
import http from "node:http";
import type { AddressInfo } from "node:net";
import { sineWav } from "../test/helpers/audio.ts";
import { distributedUnavailable } from "../test/helpers/backends.ts";
import { Mixdown as Deployment } from "../test/helpers/mixdown.ts";
import { envInt, onCleanup, printTable, round, runBench } from "./lib/harness.ts";

const JOBS = envInt("BENCH_JOBS", 30);
const GOALS_MS = { embedded: 100, distributed: 250 } as const;

/** Receives deliveries; resolves each job's wait with the latency of its job.succeeded. */
async function startReceiver() {
  const waiting = new Map<string, (latencyMs: number) => void>();
  const early = new Map<string, number>();
  const server = http.createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("end", () => {
      const received = Date.now();
      response.writeHead(204).end();
      const event = JSON.parse(Buffer.concat(chunks).toString()) as {
        type: string;
        data: { id: string; completedAt: string };
      };
      if (event.type !== "job.succeeded") return;
      const latency = received - Date.parse(event.data.completedAt);
      const resolve = waiting.get(event.data.id);
      if (resolve) resolve(latency);
      else early.set(event.data.id, latency);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  onCleanup(() => new Promise<void>((resolve) => server.close(() => resolve())));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`,
    latencyOf(jobId: string, timeoutMs = 60_000): Promise<number> {
      const known = early.get(jobId);
      if (known !== undefined) return Promise.resolve(known);
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`no job.succeeded webhook for ${jobId}`)), timeoutMs);
        waiting.set(jobId, (latency) => {
          clearTimeout(timer);
          resolve(latency);
        });
      });
    },
  };
}

const percentile = (values: number[], p: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? Number.NaN;
};

async function measure(backend: "embedded" | "distributed", receiver: Awaited<ReturnType<typeof startReceiver>>) {
  const env = { MIXDOWN_ALLOW_PRIVATE_URLS: "true", MIXDOWN_WORKERS: "2", MIXDOWN_LOG_LEVEL: "warn" };
  const deployment = await Deployment.start(env, { backend, workers: 1 });
  onCleanup(() => deployment.dispose()); // a second dispose does nothing
  try {
    const app = await deployment.createApp("bench");
    const added = await deployment.cli(["app", "webhook", "add", app.id, receiver.url, "--json"]);
    if (added.code !== 0) throw new Error(`webhook add failed: ${added.stderr}`);
    const inputUrl = await deployment.upload(app.apiKey, sineWav(1), "audio/wav");
    const create = () => deployment.createJob(app.apiKey, "mixdown/probe", { inputUrl });
    for (let i = 0; i < 3; i++) await receiver.latencyOf(await create()); // warm-up
    const single: number[] = [];
    for (let i = 0; i < JOBS; i++) single.push(await receiver.latencyOf(await create()));
    const ids = await Promise.all(Array.from({ length: JOBS }, create));
    const burst = await Promise.all(ids.map((id) => receiver.latencyOf(id)));
    return { single, burst };
  } finally {
    await deployment.dispose();
  }
}

runBench(async () => {
  const receiver = await startReceiver();
  const skipDistributed = process.env.BENCH_DISTRIBUTED === "0" ? "BENCH_DISTRIBUTED=0" : distributedUnavailable;
  const backends = skipDistributed ? (["embedded"] as const) : (["embedded", "distributed"] as const);
  const rows: (string | number)[][] = [["", "p50 ms", "p95 ms", "max ms", "goal (p50)"]];
  const results: Record<string, unknown> = {};
  for (const backend of backends) {
    const { single, burst } = await measure(backend, receiver);
    const figures = (values: number[]) => ({
      p50: round(percentile(values, 50), 1),
      p95: round(percentile(values, 95), 1),
      max: Math.max(...values),
    });
    const singles = figures(single);
    const bursts = figures(burst);
    rows.push([`${backend}: single jobs`, singles.p50, singles.p95, singles.max, `≤ ${GOALS_MS[backend]} ms`]);
    rows.push([`${backend}: burst of ${JOBS}`, bursts.p50, bursts.p95, bursts.max, ""]);
    results[backend] = {
      single: singles,
      burst: bursts,
      goalMs: GOALS_MS[backend],
      goalMet: singles.p50 <= GOALS_MS[backend],
    };
  }
  if (skipDistributed) results.distributed = { skipped: skipDistributed };
  printTable(rows);
  console.log(JSON.stringify({ bench: "webhooks", jobs: JOBS, ...results }));
});
