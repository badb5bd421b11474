/**
 * Short jobs at the speed of the tool (issue 15): `mixdown/probe` jobs on one uploaded 1 s file against the probe
 * module (the very ffprobe command, same arguments and priority) run in this process, side by side in one run.
 * - the tool alone: BENCH_JOBS (300) runs, two at a time → runs/s; and its single-run time (median of BENCH_SINGLE);
 * - embedded, MIXDOWN_WORKERS=2: the file uploaded once, BENCH_JOBS jobs created at once, jobs/s from the first
 *   request to the last completedAt, and p50 creation → completion of the first 50; goal ≥ 0.8 × the tool's runs/s;
 * - a single job on the idle server, BENCH_SINGLE times one after the other: completedAt − createdAt and as the
 *   client sees it (POST → status SUCCEEDED, polled every 2 ms), minus the tool's own time; goal ≤ 50 ms;
 * - the same in distributed mode (Postgres + S3, one API node and one worker node with 2 workers), when both answer.
 * Each deployment right after a run of the tool alone, over BENCH_ROUNDS (2) rounds; the best of each is compared.
 * Run: node bench/probe-throughput.ts   (BENCH_JOBS, BENCH_SINGLE, BENCH_ROUNDS, BENCH_DISTRIBUTED=0: embedded only,
 * BENCH_LOG_LEVEL: the servers' log level, silent by default)
 */
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { setTimeout as delay } from "node:timers/promises";
import { toolLauncher } from "../src/media/tool-launcher.ts";
import { sineWav } from "../test/helpers/audio.ts";
import { distributedUnavailable } from "../test/helpers/backends.ts";
import { Mixdown as Deployment } from "../test/helpers/mixdown.ts";
import {
  childPids,
  cpuSeconds,
  envInt,
  machineTicks,
  makeTempDir,
  onCleanup,
  printTable,
  round,
  runBench,
} from "./lib/harness.ts";
import { startMixdown } from "./lib/mixdown.ts";
import { moduleRunner } from "./lib/run-module.ts";

const JOBS = envInt("BENCH_JOBS", 300);
const SINGLE = envInt("BENCH_SINGLE", 20);
const ROUNDS = envInt("BENCH_ROUNDS", 2);
const FIRST = 50;
/** The servers' log level: "silent" (no logger) by default, like the other benches; "info" is Mixdown's default. */
const LOG_LEVEL = process.env.BENCH_LOG_LEVEL || "silent";
const WORKFLOW = "mixdown/probe";
/** Jobs/s at least this share of the tool's runs/s, two at a time. */
const THROUGHPUT_GOAL = 0.8;
/** A single job on an idle server: at most this many ms more than the tool's own time. */
const LATENCY_GOAL_MS = 50;

const median = (values: number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor((sorted.length - 1) / 2)] ?? Number.NaN;
};

interface Throughput {
  seconds: number;
  jobsPerSecond: number;
  /** CPU seconds per job: the server processes and what they ran (ffprobe), or this process and its children. */
  cpuPerJob: number;
  /** CPU seconds per job used on the whole machine meanwhile (also Postgres and Ceph, and anyone else's work). */
  machineCpuPerJob: number;
}

/** CPU seconds the whole machine has been busy so far (/proc/stat counts in 1/100 s). */
const machineCpu = () => machineTicks().busy / 100;

/** CPU of this process and of the tools it ran, started by its tool launcher (src/media/tool-launcher.ts). */
const toolCpu = () =>
  cpuSeconds("self", { children: true }) + (toolLauncher.pid ? cpuSeconds(toolLauncher.pid, { children: true }) : 0);

/** `runs` runs of the probe module in this process, `parallel` at a time. */
async function toolThroughput(runOnce: () => Promise<unknown>, runs: number, parallel: number): Promise<Throughput> {
  let next = 0;
  const cpu = toolCpu();
  const machine = machineCpu();
  const start = performance.now();
  await Promise.all(
    Array.from({ length: parallel }, async () => {
      while (next++ < runs) await runOnce();
    }),
  );
  const seconds = (performance.now() - start) / 1000;
  return {
    seconds,
    jobsPerSecond: runs / seconds,
    cpuPerJob: (toolCpu() - cpu) / runs,
    machineCpuPerJob: (machineCpu() - machine) / runs,
  };
}

/** A running deployment as the bench drives it. */
interface Target {
  url: string;
  key: string;
  /** Pids whose CPU (with their waited-for children) counts as Mixdown's. */
  pids: number[];
  /** Shared services it uses (Postgres, Ceph): their processes' CPU is counted apart. */
  services: string[];
}

/** CPU seconds so far of every process of these names (anyone's use of them included). */
function servicesCpu(names: string[]): number {
  if (names.length === 0) return 0;
  const pids = execFileSync("pgrep", ["-x", names.join("|")], { encoding: "utf8" })
    .split("\n")
    .filter(Boolean);
  return pids.reduce((sum, pid) => {
    try {
      return sum + cpuSeconds(Number(pid));
    } catch {
      return sum; // ended meanwhile
    }
  }, 0);
}

async function call(target: Target, method: string, pathname: string, body?: unknown): Promise<Response> {
  const response = await fetch(`${target.url}${pathname}`, {
    method,
    headers: { authorization: target.key, ...(body === undefined ? {} : { "content-type": "application/json" }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  if (!response.ok) throw new Error(`${method} ${pathname} answered ${response.status}: ${await response.text()}`);
  return response;
}

async function upload(target: Target, bytes: Buffer): Promise<string> {
  const pair = (await (await call(target, "GET", "/v1/upload")).json()) as { uploadUrl: string; downloadUrl: string };
  const put = await fetch(pair.uploadUrl, {
    method: "PUT",
    body: new Uint8Array(bytes),
    headers: { "content-type": "audio/wav" },
  });
  if (!put.ok) throw new Error(`upload answered ${put.status}: ${await put.text()}`);
  return pair.downloadUrl;
}

const createJob = async (target: Target, inputUrl: string): Promise<string> =>
  (
    (await (
      await call(target, "POST", "/v1/job", { name: "probe", workflow: WORKFLOW, params: { inputUrl } })
    ).json()) as { id: string }
  ).id;

interface JobTimes {
  id: string;
  status: string;
  createdAt: string;
  startedAt: string | null;
  completedAt: string | null;
}

/** Every job of the application (pages of 100). */
async function allJobs(target: Target): Promise<JobTimes[]> {
  const jobs: JobTimes[] = [];
  for (let page = 0; ; page++) {
    const batch = (await (await call(target, "GET", `/v1/job?size=100&page=${page}`)).json()) as JobTimes[];
    jobs.push(...batch);
    if (batch.length < 100) return jobs;
  }
}

/** CPU of the server processes, with the processes they started (their tool launcher) and the tools those ran. */
function serverCpu(target: Target): number {
  const pids = target.pids.flatMap((pid) => [pid, ...childPids(pid)]);
  return pids.reduce((sum, pid) => sum + cpuSeconds(pid, { children: true }), 0);
}

/**
 * One job at a time on the idle server, each right after one run of the tool alone (so that both meet the same load
 * from elsewhere): completedAt − createdAt, its queued part, client-observed (POST → SUCCEEDED), the tool's time, ms.
 */
async function singleJobs(target: Target, inputUrl: string, runs: number, runTool: () => Promise<unknown>) {
  const times = { server: [] as number[], queued: [] as number[], client: [] as number[], tool: [] as number[] };
  for (let i = 0; i < runs; i++) {
    await delay(20); // idle: the previous job's last writes are over
    const toolStart = performance.now();
    await runTool();
    times.tool.push(performance.now() - toolStart);
    const start = performance.now();
    const id = await createJob(target, inputUrl);
    for (;;) {
      const { status } = (await (await call(target, "GET", `/v1/job/${id}/status`)).json()) as { status: string };
      if (status === "SUCCEEDED") break;
      if (status === "FAILED") throw new Error(`job ${id} FAILED`);
      await delay(2);
    }
    times.client.push(performance.now() - start);
    const job = (await (await call(target, "GET", `/v1/job/${id}`)).json()) as JobTimes;
    times.server.push(Date.parse(job.completedAt ?? "") - Date.parse(job.createdAt));
    times.queued.push(Date.parse(job.startedAt ?? "") - Date.parse(job.createdAt));
  }
  return {
    server: median(times.server),
    queued: median(times.queued),
    client: median(times.client),
    tool: median(times.tool),
    /** Median of each job's time minus the tool run just before it. */
    overTool: median(times.server.map((ms, i) => ms - (times.tool[i] ?? 0))),
  };
}

/** BENCH_JOBS jobs created at once; jobs/s from the first request to the last completion. */
async function burst(
  target: Target,
  inputUrl: string,
): Promise<Throughput & { firstP50Ms: number; servicesCpuPerJob: number }> {
  const before = new Set((await allJobs(target)).map((job) => job.id));
  const cpu = serverCpu(target) + cpuSeconds("self");
  const services = servicesCpu(target.services);
  const machine = machineCpu();
  const startedAt = Date.now();
  const ids = await Promise.all(Array.from({ length: JOBS }, () => createJob(target, inputUrl)));
  for (;;) {
    const response = await call(target, "GET", "/v1/job?status=QUEUED&status=STARTED&size=1");
    await response.body?.cancel();
    if (Number(response.headers.get("x-total-count")) === 0) break;
    await delay(50);
  }
  const cpuUsed = serverCpu(target) + cpuSeconds("self") - cpu;
  const machineUsed = machineCpu() - machine;
  const servicesUsed = servicesCpu(target.services) - services;
  const jobs = (await allJobs(target)).filter((job) => !before.has(job.id));
  const failed = jobs.filter((job) => job.status !== "SUCCEEDED");
  if (jobs.length !== ids.length || failed.length > 0)
    throw new Error(`${jobs.length} jobs found of ${ids.length}, ${failed.length} not SUCCEEDED`);
  const lastCompletion = Math.max(...jobs.map((job) => Date.parse(job.completedAt ?? "")));
  const seconds = (lastCompletion - startedAt) / 1000;
  const first = jobs.sort((a, b) => a.createdAt.localeCompare(b.createdAt)).slice(0, FIRST);
  const firstP50Ms = median(first.map((job) => Date.parse(job.completedAt ?? "") - Date.parse(job.createdAt)));
  return {
    seconds,
    jobsPerSecond: JOBS / seconds,
    cpuPerJob: cpuUsed / JOBS,
    servicesCpuPerJob: servicesUsed / JOBS,
    machineCpuPerJob: machineUsed / JOBS,
    firstP50Ms,
  };
}

/** Warm-up (module imports, compiled schemas, the file in the page cache), the idle single jobs, then the burst. */
async function measure(target: Target, bytes: Buffer, runTool: () => Promise<unknown>) {
  const inputUrl = await upload(target, bytes);
  await singleJobs(target, inputUrl, 4, runTool);
  const single = await singleJobs(target, inputUrl, SINGLE, runTool);
  return { ...(await burst(target, inputUrl)), single };
}

/** Two throughput runs of the tool alone, of half as many runs each, taken together. */
function together(before: Throughput, after: Throughput): Throughput {
  const seconds = before.seconds + after.seconds;
  const mean = (pick: (run: Throughput) => number) => (pick(before) + pick(after)) / 2;
  return {
    seconds,
    jobsPerSecond: (before.jobsPerSecond * before.seconds + after.jobsPerSecond * after.seconds) / seconds,
    cpuPerJob: mean((run) => run.cpuPerJob),
    machineCpuPerJob: mean((run) => run.machineCpuPerJob),
  };
}

type Figures = Awaited<ReturnType<typeof measure>>;

async function embeddedRound(bytes: Buffer, runTool: () => Promise<unknown>): Promise<Figures> {
  const server = await startMixdown({ env: { MIXDOWN_WORKERS: "2", MIXDOWN_LOG_LEVEL: LOG_LEVEL } });
  try {
    return await measure(
      { url: server.url, key: await server.createApp("bench"), pids: [server.pid], services: [] },
      bytes,
      runTool,
    );
  } finally {
    await server.stop();
  }
}

/** One API node and one worker node running 2 jobs at a time, as the embedded server does. */
async function distributedRound(bytes: Buffer, runTool: () => Promise<unknown>): Promise<Figures> {
  const env = { MIXDOWN_LOG_LEVEL: LOG_LEVEL, MIXDOWN_WORKERS: "2" };
  const deployment = await Deployment.start(env, { backend: "distributed", workers: 1 });
  onCleanup(() => deployment.dispose()); // a second dispose does nothing
  try {
    const pids = [deployment.apiNode, ...deployment.workers].map((node) => node.pid ?? 0);
    const key = (await deployment.createApp("bench")).apiKey;
    const services = ["postgres", "radosgw", "ceph-osd", "ceph-mon"];
    return await measure({ url: deployment.url, key, pids, services }, bytes, runTool);
  } finally {
    await deployment.dispose();
  }
}

runBench(async () => {
  const dir = makeTempDir("mixdown-bench-probe-");
  const file = path.join(dir, "one-second.wav");
  const bytes = sineWav(1);
  fs.writeFileSync(file, bytes);
  const probe = await moduleRunner("probe", file);
  onCleanup(() => probe.dispose());
  const skipDistributed = process.env.BENCH_DISTRIBUTED === "0" ? "BENCH_DISTRIBUTED=0" : distributedUnavailable;
  const modes = [{ name: "embedded, 2 workers", round: embeddedRound }];
  if (!skipDistributed) modes.push({ name: "distributed, 1 worker node × 2", round: distributedRound });

  // Each deployment's burst is bracketed by two runs of the tool alone (half as many runs each, taken together), and
  // its single jobs alternate with single runs of the tool: the load others put on the machine moves by half from
  // one minute to the next, and so meets both sides alike. BENCH_ROUNDS rounds.
  for (let i = 0; i < 4; i++) await probe.runOnce(); // warm-up
  const runs: { mode: string; tool: Throughput; mixdown: Figures }[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    for (const mode of modes) {
      const before = await toolThroughput(probe.runOnce, Math.ceil(JOBS / 2), 2);
      const mixdown = await mode.round(bytes, probe.runOnce);
      const after = await toolThroughput(probe.runOnce, Math.ceil(JOBS / 2), 2);
      runs.push({ mode: mode.name, tool: together(before, after), mixdown });
    }
  }

  const ms = (seconds: number) => round(seconds * 1000, 1);
  const rows: (string | number)[][] = [
    [
      "",
      "jobs/s",
      "CPU ms/job",
      "services",
      "machine",
      "first 50 p50 ms",
      "single job ms",
      "queued ms",
      "client ms",
      "− tool ms",
    ],
  ];
  for (const { mode, tool, mixdown } of runs) {
    rows.push(
      [
        "tool alone, 2 at a time",
        round(tool.jobsPerSecond, 1),
        ms(tool.cpuPerJob),
        "",
        ms(tool.machineCpuPerJob),
      ].concat(["", round(mixdown.single.tool, 1), "", "", ""]),
      [mode, round(mixdown.jobsPerSecond, 1), ms(mixdown.cpuPerJob), ms(mixdown.servicesCpuPerJob)]
        .concat([ms(mixdown.machineCpuPerJob)])
        .concat([
          round(mixdown.firstP50Ms),
          round(mixdown.single.server),
          round(mixdown.single.queued),
          round(mixdown.single.client, 1),
          round(mixdown.single.overTool, 1),
        ]),
    );
  }
  console.log(`${JOBS} mixdown/probe jobs on a 1 s WAV, created at once; single jobs: median of ${SINGLE}`);
  printTable(rows);
  console.log(
    "(CPU: the server processes, their tool launcher and ffprobe runs, and this client; services: Postgres and " +
      "Ceph; machine: the whole machine, others' work included; queued ms: createdAt → " +
      "startedAt of the single jobs; − tool ms: median of each single job's time minus the tool's run just before it)",
  );
  if (skipDistributed) console.log(`distributed mode skipped: ${skipDistributed}`);

  // Per round: Mixdown's jobs/s over the tool's runs/s around it, and the tool's CPU per run over Mixdown's per job
  // (what the jobs/s ratio would be on a machine they had to themselves, all cores busy). The best round is judged, as
  // the other benches take the best run of each; every round is printed above.
  const summary = modes.map(({ name }) => {
    const rounds = runs
      .filter((run) => run.mode === name)
      .map(({ tool, mixdown }) => ({
        ratio: mixdown.jobsPerSecond / tool.jobsPerSecond,
        cpuRatio: tool.cpuPerJob / (mixdown.cpuPerJob + mixdown.servicesCpuPerJob),
        jobsPerSecond: mixdown.jobsPerSecond,
        toolJobsPerSecond: tool.jobsPerSecond,
        ...mixdown.single,
      }));
    const best = rounds.reduce((a, b) => (b.ratio > a.ratio ? b : a));
    const quickest = rounds.reduce((a, b) => (b.overTool < a.overTool ? b : a));
    console.log(
      `${name}: jobs/s ÷ the tool's ${rounds.map((r) => r.ratio.toFixed(2)).join(", ")} (CPU: ` +
        `${rounds.map((r) => r.cpuRatio.toFixed(2)).join(", ")}; goal ≥ ${THROUGHPUT_GOAL}: ` +
        `${best.ratio >= THROUGHPUT_GOAL ? "met" : "NOT met"}); a single job − the tool: ` +
        `${rounds.map((r) => `${r.overTool >= 0 ? "+" : ""}${r.overTool.toFixed(1)}`).join(", ")} ms ` +
        `(goal ≤ ${LATENCY_GOAL_MS}: ${quickest.overTool <= LATENCY_GOAL_MS ? "met" : "NOT met"})`,
    );
    return { mode: name, ratio: best.ratio, overToolMs: quickest.overTool, rounds };
  });
  const embedded = summary[0];
  const goalMet = embedded !== undefined && embedded.ratio >= THROUGHPUT_GOAL && embedded.overToolMs <= LATENCY_GOAL_MS;
  console.log(
    JSON.stringify({
      bench: "probe-throughput",
      jobs: JOBS,
      summary,
      runs,
      distributed: skipDistributed ? { skipped: skipDistributed } : undefined,
      goals: { throughputRatio: THROUGHPUT_GOAL, latencyMs: LATENCY_GOAL_MS },
      goalMet,
    }),
  );
});
