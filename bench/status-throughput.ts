// GET /v1/job/:id/status requests/s on Mixdown versus a bare Fastify hello world, side by side in one run.
import path from "node:path";
import { setTimeout as delay } from "node:timers/promises";
import autocannon from "autocannon";
import { cpuSeconds, envInt, freePort, pinApart, printTable, round, runBench, startServer } from "./lib/harness.ts";
import { startMixdown } from "./lib/mixdown.ts";

const GOAL = 0.85;
const DURATION = envInt("BENCH_DURATION", 10);
const WARMUP = envInt("BENCH_WARMUP", 3);
const ROUNDS = envInt("BENCH_ROUNDS", 2);
const CONNECTIONS = envInt("BENCH_CONNECTIONS", 10);

interface Target {
  name: "hello" | "mixdown";
  pid: number;
  url: string;
  headers: Record<string, string>;
  /** Every response must be exactly this (autocannon counts others as mismatches). */
  expectBody: string;
}

interface Run {
  target: Target["name"];
  reqPerSec: number;
  p50Ms: number;
  p99Ms: number;
  /** Server CPU time (user + system) per request: steadier than req/s on a busy machine. */
  cpuUsPerReq: number;
}

async function measure(target: Target, duration: number): Promise<Run> {
  const { url, headers, expectBody } = target;
  const cpuBefore = cpuSeconds(target.pid);
  const result = await autocannon({ url, headers, expectBody, duration, connections: CONNECTIONS, pipelining: 1 });
  const cpuUsPerReq = ((cpuSeconds(target.pid) - cpuBefore) * 1e6) / result.requests.total;
  const failed = result.errors + result.timeouts + result.non2xx + result.mismatches;
  if (failed > 0) {
    const { errors, timeouts, non2xx, mismatches } = result;
    throw new Error(`${target.name}: failed requests ${JSON.stringify({ errors, timeouts, non2xx, mismatches })}`);
  }
  const { requests, latency } = result;
  return { target: target.name, reqPerSec: requests.average, p50Ms: latency.p50, p99Ms: latency.p99, cpuUsPerReq };
}

async function expectedBody(url: string, headers: Record<string, string>): Promise<string> {
  const response = await fetch(url, { headers });
  const text = await response.text();
  if (response.status !== 200) throw new Error(`GET ${url} answered ${response.status}: ${text}`);
  return text;
}

async function mixdownTarget(): Promise<Target> {
  const mixdown = await startMixdown();
  const key = await mixdown.createApp("bench");
  // A job whose input is refused (private address): it fails at once, so no job runs while measuring.
  const params = { inputUrl: "http://127.0.0.1:9/input.wav", format: "mp3" };
  const { id } = await mixdown.api<{ id: string }>("POST", "/v1/job", key, {
    name: "bench",
    workflow: "mixdown/convert",
    params,
  });
  const url = `${mixdown.url}/v1/job/${id}/status`;
  const headers = { authorization: key };
  for (let i = 0; ; i++) {
    const { status } = await mixdown.api<{ status: string }>("GET", `/v1/job/${id}/status`, key);
    if (status === "SUCCEEDED" || status === "FAILED") break;
    if (i === 300) throw new Error(`the bench job is still ${status} after 30 s`);
    await delay(100);
  }
  return { name: "mixdown", pid: mixdown.pid, url, headers, expectBody: await expectedBody(url, headers) };
}

async function helloTarget(): Promise<Target> {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}/`;
  const script = path.join(import.meta.dirname, "lib/hello-server.ts");
  const { pid } = await startServer(process.execPath, [script], { PORT: String(port) }, url);
  return { name: "hello", pid, url, headers: {}, expectBody: await expectedBody(url, {}) };
}

function best(runs: Run[], target: Target["name"]): Run {
  const mine = runs.filter((run) => run.target === target);
  return mine.reduce((a, b) => (b.reqPerSec > a.reqPerSec ? b : a));
}

runBench(async () => {
  const targets = [await helloTarget(), await mixdownTarget()];
  const unpinned = pinApart(targets.map((target) => target.pid));
  console.log(unpinned ? `servers not pinned (${unpinned})` : "servers on CPU 0, this client on CPU 1");
  console.log(
    `autocannon: ${CONNECTIONS} connections, pipelining 1, ${DURATION} s per run, ${ROUNDS} rounds (+${WARMUP} s warm-up each)`,
  );
  for (const target of targets) await measure(target, WARMUP);
  const runs: Run[] = [];
  for (let i = 0; i < ROUNDS; i++) {
    for (const target of targets) {
      const run = await measure(target, DURATION);
      const cpu = `${run.cpuUsPerReq.toFixed(0)} µs CPU/req`;
      console.log(`  round ${i + 1} ${target.name}: ${Math.round(run.reqPerSec)} req/s, p99 ${run.p99Ms} ms, ${cpu}`);
      runs.push(run);
    }
  }
  const hello = best(runs, "hello");
  const mixdown = best(runs, "mixdown");
  const ratio = mixdown.reqPerSec / hello.reqPerSec;
  console.log("\nBest run of each:");
  printTable([
    ["server", "req/s", "p50 ms", "p99 ms", "server CPU µs/req"],
    ...[hello, mixdown].map((run) => [
      run.target === "hello" ? "fastify hello world" : "mixdown job status",
      Math.round(run.reqPerSec),
      run.p50Ms,
      run.p99Ms,
      run.cpuUsPerReq.toFixed(1),
    ]),
  ]);
  // Each server's least disturbed run: a busy machine inflates CPU time per request, it never shrinks it.
  const leastCpu = (target: Target["name"]) =>
    Math.min(...runs.filter((run) => run.target === target).map((run) => run.cpuUsPerReq));
  const cpuRatio = leastCpu("hello") / leastCpu("mixdown");
  console.log(`\nratio mixdown/hello: ${ratio.toFixed(3)} (goal >= ${GOAL}: ${ratio >= GOAL ? "met" : "NOT met"})`);
  console.log(
    `server CPU time per request, hello/mixdown: ${cpuRatio.toFixed(3)} (lowest of each; less sensitive to load)`,
  );
  const summary = (run: Run) => ({
    reqPerSec: round(run.reqPerSec, 1),
    p50Ms: run.p50Ms,
    p99Ms: run.p99Ms,
    cpuUsPerReq: round(run.cpuUsPerReq, 1),
  });
  console.log(
    JSON.stringify({
      bench: "status-throughput",
      settings: { connections: CONNECTIONS, pipelining: 1, durationS: DURATION, warmupS: WARMUP, rounds: ROUNDS },
      hello: summary(hello),
      mixdown: summary(mixdown),
      ratio: round(ratio, 3),
      cpuRatio: round(cpuRatio, 3),
      goal: GOAL,
      goalMet: ratio >= GOAL,
      runs: runs.map((run) => ({ target: run.target, ...summary(run) })),
    }),
  );
});
