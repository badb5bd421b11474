// One node holding BENCH_STREAMS (1,000) GET /job/:id/events streams while jobs run: event latency and RSS growth.
import fs from "node:fs";
import http from "node:http";
import { setTimeout as delay } from "node:timers/promises";
import { encodeWav16 } from "../src/media/wav.ts";
import { envInt, freePort, printTable, round, runBench } from "./lib/harness.ts";
import { startMixdown } from "./lib/mixdown.ts";

const GOALS = { latencyP99Ms: 200, rssGrowthMb: 100 };
const STREAMS = envInt("BENCH_STREAMS", 1000);
const JOBS = envInt("BENCH_JOBS", 20);

interface Received {
  jobId: string;
  /** "status" (the status changed) or "progress". */
  type: string;
  status: string;
  revision: number;
  at: number;
}

/** Resident memory of a process, in MB (Linux /proc). */
function rssMb(pid: number): number {
  const line = fs.readFileSync(`/proc/${pid}/status`, "utf8").match(/VmRSS:\s+(\d+) kB/);
  return Number(line?.[1] ?? 0) / 1024;
}

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? Number.NaN;
}

/** An input server that holds every response until release(): the jobs wait, STARTED, while streams open. */
async function startHeldInput(body: Buffer) {
  const held: http.ServerResponse[] = [];
  let released = false;
  const server = http.createServer((_request, response) => {
    response.writeHead(200, { "content-type": "audio/wav", "content-length": String(body.length) });
    if (released) response.end(body);
    else held.push(response);
  });
  const port = await freePort();
  await new Promise<void>((resolve) => server.listen(port, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${port}`,
    release() {
      released = true;
      for (const response of held.splice(0)) response.end(body);
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** Opens one event stream; every event goes to `onEvent` with its arrival time; resolves when the server ends it. */
function openStream(
  url: string,
  key: string,
  onEvent: (event: Received) => void,
): { opened: Promise<void>; ended: Promise<void> } {
  let opened!: () => void;
  const openedPromise = new Promise<void>((resolve) => {
    opened = resolve;
  });
  const ended = new Promise<void>((resolve, reject) => {
    const request = http.get(
      url,
      { headers: { authorization: key, accept: "text/event-stream" }, agent: false },
      (response) => {
        if (response.statusCode !== 200) return reject(new Error(`events answered ${response.statusCode}`));
        opened();
        let buffer = "";
        response.setEncoding("utf8");
        response.on("data", (chunk: string) => {
          const at = performance.timeOrigin + performance.now();
          buffer += chunk;
          for (let end = buffer.indexOf("\n\n"); end >= 0; end = buffer.indexOf("\n\n")) {
            const block = buffer.slice(0, end);
            buffer = buffer.slice(end + 2);
            const id = /^id: (\d+)$/m.exec(block)?.[1];
            const data = /^data: (.*)$/m.exec(block)?.[1];
            const type = /^event: (.*)$/m.exec(block)?.[1] ?? "";
            if (id && data) {
              const state = JSON.parse(data) as { id: string; status: string };
              onEvent({ jobId: state.id, type, status: state.status, revision: Number(id), at });
            }
          }
        });
        response.on("end", () => resolve());
        response.on("error", reject);
      },
    );
    request.on("error", reject);
  });
  return { opened: openedPromise, ended };
}

runBench(async () => {
  // Two seconds of audio per job: each job's input step and encode step are quick, its events close together.
  const tone = Float32Array.from({ length: 88200 }, (_, i) => Math.sin((2 * Math.PI * 440 * i) / 44100) * 0.5);
  const input = await startHeldInput(encodeWav16([tone, tone], 44100));
  const mixdown = await startMixdown({ env: { MIXDOWN_WORKERS: "2", MIXDOWN_ALLOW_PRIVATE_URLS: "true" } });
  const key = await mixdown.createApp("bench");
  const ids: string[] = [];
  for (let i = 0; i < JOBS; i++) {
    const params = { inputUrl: `${input.url}/${i}.wav`, format: "flac" };
    ids.push(
      (
        await mixdown.api<{ id: string }>("POST", "/v1/job", key, {
          name: `e${i}`,
          workflow: "mixdown/convert",
          params,
        })
      ).id,
    );
  }
  await delay(1000);
  const rssBefore = rssMb(mixdown.pid);
  let rssPeak = rssBefore;
  const sampler = setInterval(() => {
    rssPeak = Math.max(rssPeak, rssMb(mixdown.pid));
  }, 100);

  const received: Received[] = [];
  const streams = Array.from({ length: STREAMS }, (_, i) =>
    openStream(`${mixdown.url}/v1/job/${ids[i % JOBS]}/events`, key, (event) => received.push(event)),
  );
  const openStarted = performance.now();
  await Promise.all(streams.map((s) => s.opened));
  const openSeconds = (performance.now() - openStarted) / 1000;
  await delay(500);
  rssPeak = Math.max(rssPeak, rssMb(mixdown.pid));
  const releasedAt = performance.timeOrigin + performance.now();
  input.release();
  await Promise.all(streams.map((s) => s.ended));
  clearInterval(sampler);

  // A status change's latency: its arrival minus the job's own timestamp of it (same machine, same clock).
  const jobs = new Map<string, { startedAt: number; completedAt: number }>();
  for (const id of ids) {
    const job = await mixdown.api<{ startedAt: string; completedAt: string; status: string }>(
      "GET",
      `/v1/job/${id}`,
      key,
    );
    if (job.status !== "SUCCEEDED") throw new Error(`job ${id} ended ${job.status}`);
    jobs.set(id, { startedAt: Date.parse(job.startedAt), completedAt: Date.parse(job.completedAt) });
  }
  const latencies: number[] = [];
  const byStatus: Record<string, number[]> = { STARTED: [], SUCCEEDED: [] };
  for (const event of received) {
    const job = jobs.get(event.jobId);
    if (!job || event.type !== "status") continue;
    let latency: number | undefined;
    if (event.status === "SUCCEEDED") latency = event.at - job.completedAt;
    else if (event.status === "STARTED" && job.startedAt > releasedAt) latency = event.at - job.startedAt;
    if (latency === undefined) continue;
    latencies.push(latency);
    byStatus[event.status]?.push(latency);
  }
  if (process.env.BENCH_DEBUG)
    for (const [status, values] of Object.entries(byStatus))
      console.log(status, percentile(values, 50), percentile(values, 99), values.length);
  // Progress events carry no server time: their spread is each arrival minus the first arrival of that event
  // (events after the release only: a stream's first event comes when it opens).
  const afterRelease = received.filter((event) => event.at > releasedAt);
  const firstArrival = new Map<string, number>();
  for (const event of afterRelease) {
    const k = `${event.jobId}:${event.revision}`;
    firstArrival.set(k, Math.min(firstArrival.get(k) ?? Number.POSITIVE_INFINITY, event.at));
  }
  const spreads = afterRelease.map(
    (event) => event.at - (firstArrival.get(`${event.jobId}:${event.revision}`) as number),
  );

  const p = (values: number[], q: number) => round(percentile(values, q), 1);
  const rssGrowth = rssPeak - rssBefore;
  const latencyP99 = percentile(latencies, 99);
  console.log(
    `${STREAMS} streams over ${JOBS} jobs (2 workers), opened in ${openSeconds.toFixed(2)} s; ${received.length} events`,
  );
  printTable([
    ["measure", "p50", "p95", "p99", "max", "samples"],
    [
      "status event latency ms",
      p(latencies, 50),
      p(latencies, 95),
      p(latencies, 99),
      p(latencies, 100),
      latencies.length,
    ],
    [
      "fan-out spread ms (events after release)",
      p(spreads, 50),
      p(spreads, 95),
      p(spreads, 99),
      p(spreads, 100),
      spreads.length,
    ],
  ]);
  console.log(
    `server RSS: ${rssBefore.toFixed(0)} MB before the streams, peak ${rssPeak.toFixed(0)} MB (+${rssGrowth.toFixed(0)} MB)`,
  );
  const met = latencyP99 < GOALS.latencyP99Ms && rssGrowth < GOALS.rssGrowthMb;
  console.log(
    `goals: p99 < ${GOALS.latencyP99Ms} ms, RSS growth < ${GOALS.rssGrowthMb} MB: ${met ? "met" : "NOT met"}`,
  );
  await input.close();
  console.log(
    JSON.stringify({
      bench: "events",
      settings: { streams: STREAMS, jobs: JOBS, workers: 2 },
      statusLatencyMs: {
        p50: p(latencies, 50),
        p95: p(latencies, 95),
        p99: p(latencies, 99),
        max: p(latencies, 100),
        samples: latencies.length,
      },
      fanOutSpreadMs: { p50: p(spreads, 50), p99: p(spreads, 99), max: p(spreads, 100) },
      rssMb: { before: round(rssBefore, 0), peak: round(rssPeak, 0), growth: round(rssGrowth, 0) },
      openSeconds: round(openSeconds, 2),
      goals: GOALS,
      goalMet: met,
    }),
  );
});
