// Helpers of bench/responsiveness.ts: a Mixdown server in a process group of its own (so no ffmpeg it started
// outlives the bench), a keep-alive latency sampler, statistics and cleanup.
import { type ChildProcess, execFile, spawn } from "node:child_process";
import fs from "node:fs";
import http from "node:http";
import os from "node:os";
import path from "node:path";
import { setTimeout as delay } from "node:timers/promises";
import { promisify } from "node:util";
import { freePort } from "../test/helpers/mixdown.ts";

const MIXDOWN_BIN = path.resolve(import.meta.dirname, "../bin/mixdown");
const execFileAsync = promisify(execFile);

// ---------------------------------------------------------------------------------------------------------------
// Cleanup

type Cleanup = () => void | Promise<void>;
const cleanups: Cleanup[] = [];
/** Synchronous last resorts, also run from process.on("exit"). */
const lastResorts = new Set<() => void>();

export function onCleanup(cleanup: Cleanup): void {
  cleanups.push(cleanup);
}

async function runCleanups(): Promise<void> {
  for (let cleanup = cleanups.pop(); cleanup; cleanup = cleanups.pop()) {
    try {
      await cleanup();
    } catch (error) {
      console.error("cleanup failed:", error);
    }
  }
}

process.on("exit", () => {
  for (const undo of lastResorts) undo();
});

/** Runs the bench; everything it started is stopped and removed afterwards, on success, error or SIGINT/SIGTERM. */
export function run(body: () => Promise<void>): void {
  for (const signal of ["SIGINT", "SIGTERM"] as const) {
    process.once(signal, () => {
      console.error(`\n${signal}: cleaning up`);
      void runCleanups().finally(() => process.exit(128 + os.constants.signals[signal]));
    });
  }
  body()
    .catch((error: unknown) => {
      console.error(error instanceof Error ? (error.stack ?? error.message) : error);
      process.exitCode = 1;
    })
    .finally(runCleanups);
}

/** A new temporary directory (under BENCH_DIR, default the OS temp dir), removed at cleanup. */
export function makeTempDir(prefix: string): string {
  const dir = fs.mkdtempSync(path.join(process.env.BENCH_DIR || os.tmpdir(), prefix));
  const remove = () => fs.rmSync(dir, { recursive: true, force: true });
  lastResorts.add(remove);
  onCleanup(() => {
    remove();
    lastResorts.delete(remove);
  });
  return dir;
}

// ---------------------------------------------------------------------------------------------------------------
// The server

export interface Server {
  url: string;
  pid: number;
  /** Creates an application with the CLI; returns its API key. */
  createApp(name: string): Promise<string>;
  /** A JSON API call that must answer 2xx; returns the body and headers. */
  api<T>(method: string, pathname: string, key: string, body?: unknown): Promise<{ body: T; headers: Headers }>;
  output(): string;
}

/** Environment for children: this very Node first on PATH (bin/mixdown runs `node`). */
function childEnv(env: Record<string, string>): NodeJS.ProcessEnv {
  const PATH = `${path.dirname(process.execPath)}${path.delimiter}${process.env.PATH ?? ""}`;
  return { ...process.env, PATH, ...env };
}

/**
 * `bin/mixdown serve` (embedded mode) on a free loopback port with its data dir in dataDir, as the test helper
 * starts it, but as the leader of a process group: stopping kills the group, ffmpeg children included.
 */
export async function startMixdown(dataDir: string, extraEnv: Record<string, string>): Promise<Server> {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const env = {
    MIXDOWN_DATA_DIR: dataDir,
    PORT: String(port),
    MIXDOWN_PUBLIC_URL: url,
    ...extraEnv,
  };
  const child: ChildProcess = spawn(MIXDOWN_BIN, ["serve"], {
    env: childEnv(env),
    stdio: ["ignore", "pipe", "pipe"],
    detached: true,
  });
  const pid = child.pid as number;
  let output = "";
  const collect = (chunk: Buffer) => {
    output = (output + chunk.toString()).slice(-20_000);
  };
  child.stdout?.on("data", collect);
  child.stderr?.on("data", collect);
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  const alive = () => child.exitCode === null && child.signalCode === null;
  const killGroup = (signal: NodeJS.Signals) => {
    try {
      process.kill(-pid, signal);
    } catch {} // the group is gone already
  };
  const lastResort = () => killGroup("SIGKILL");
  lastResorts.add(lastResort);
  onCleanup(async () => {
    if (alive()) {
      killGroup("SIGTERM");
      const timer = setTimeout(() => killGroup("SIGKILL"), 5000);
      await exited;
      clearTimeout(timer);
    }
    // Whatever the server started and left (an ffmpeg of an aborted job) goes with the group.
    killGroup("SIGKILL");
    lastResorts.delete(lastResort);
  });
  for (let i = 0; ; i++) {
    if (!alive()) throw new Error(`mixdown exited at start:\n${output}`);
    try {
      if ((await fetch(`${url}/healthz`)).ok) break;
    } catch {}
    if (i >= 400) throw new Error(`mixdown did not answer within 20 s:\n${output}`);
    await delay(50);
  }
  return {
    url,
    pid,
    output: () => output,
    async createApp(name) {
      const args = ["app", "create", "--name", name, "--json"];
      const { stdout } = await execFileAsync(MIXDOWN_BIN, args, { env: childEnv(env) });
      return (JSON.parse(stdout) as { apiKey: string }).apiKey;
    },
    async api<T>(method: string, pathname: string, key: string, body?: unknown) {
      const response = await fetch(`${url}${pathname}`, {
        method,
        headers: { authorization: key, ...(body === undefined ? {} : { "content-type": "application/json" }) },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      const text = await response.text();
      if (!response.ok) throw new Error(`${method} ${pathname} answered ${response.status}: ${text}`);
      return { body: JSON.parse(text) as T, headers: response.headers };
    },
  };
}

// ---------------------------------------------------------------------------------------------------------------
// Latency sampling

export interface Sample {
  /** When the request was sent, ms since the start of the window. */
  at: number;
  ms: number;
}

export interface Sampling {
  samples: Sample[];
  failures: number;
  firstFailure: string | undefined;
  elapsedMs: number;
}

/**
 * GETs url for durationMs over `connections` keep-alive connections, each sending its next request as soon as
 * the previous answer arrived (closed loop). A request counts when it answers 200 with exactly expectBody.
 */
export async function sampleLatency(
  url: string,
  headers: Record<string, string>,
  expectBody: string,
  options: { connections: number; durationMs: number },
): Promise<Sampling> {
  const target = new URL(url);
  const agent = new http.Agent({ keepAlive: true, maxSockets: options.connections });
  const samples: Sample[] = [];
  let failures = 0;
  let firstFailure: string | undefined;
  const fail = (reason: string) => {
    failures++;
    firstFailure ??= reason;
  };
  const start = performance.now();
  const end = start + options.durationMs;
  const once = () =>
    new Promise<void>((resolve) => {
      const sent = performance.now();
      const request = http.request(
        { host: target.hostname, port: target.port, path: target.pathname, headers, agent },
        (response) => {
          let body = "";
          response.setEncoding("utf8");
          response.on("data", (chunk: string) => {
            body += chunk;
          });
          response.on("end", () => {
            const ms = performance.now() - sent;
            if (response.statusCode === 200 && body === expectBody) samples.push({ at: sent - start, ms });
            else fail(`${response.statusCode}: ${body.slice(0, 200)}`);
            resolve();
          });
          response.on("error", (error) => {
            fail(error.message);
            resolve();
          });
        },
      );
      request.setTimeout(10_000, () => request.destroy(new Error("no answer within 10 s")));
      request.on("error", (error) => {
        fail(error.message);
        resolve();
      });
      request.end();
    });
  const lane = async () => {
    while (performance.now() < end) await once();
  };
  await Promise.all(Array.from({ length: options.connections }, lane));
  const elapsedMs = performance.now() - start;
  agent.destroy();
  return { samples, failures, firstFailure, elapsedMs };
}

export interface LatencyStats {
  requests: number;
  reqPerSec: number;
  p50Ms: number;
  p90Ms: number;
  p99Ms: number;
  maxMs: number;
  meanMs: number;
  /** Requests slower than 50 ms. */
  over50Ms: number;
}

/** Nearest-rank percentile of sorted values. */
function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))] as number;
}

export const round = (value: number, digits = 2): number => Number(value.toFixed(digits));

export function stats(sampling: Sampling): LatencyStats {
  const sorted = sampling.samples.map((s) => s.ms).sort((a, b) => a - b);
  const sum = sorted.reduce((a, b) => a + b, 0);
  return {
    requests: sorted.length,
    reqPerSec: round(sorted.length / (sampling.elapsedMs / 1000), 1),
    p50Ms: round(percentile(sorted, 50)),
    p90Ms: round(percentile(sorted, 90)),
    p99Ms: round(percentile(sorted, 99)),
    maxMs: round(sorted.at(-1) ?? Number.NaN),
    meanMs: round(sum / Math.max(1, sorted.length)),
    over50Ms: sorted.filter((ms) => ms > 50).length,
  };
}

// ---------------------------------------------------------------------------------------------------------------
// Where the CPU went (Linux /proc; undefined elsewhere)

export interface CpuSnapshot {
  at: number;
  /** CPU seconds used so far. */
  mainThread: number;
  /** The server's node process, all threads (event loop, worker threads running modules, libuv pool, GC). */
  serverNode: number;
  /** The server's process group: its node process and every ffmpeg it ran (live or reaped). */
  serverGroup: number;
  /** This bench process (the HTTP client). */
  bench: number;
  /** The whole machine. */
  machine: number;
  /** The machine's interrupt handling (loopback networking runs there too). */
  interrupts: number;
}

const TICK = 100; // USER_HZ: /proc counts CPU time in 1/100 s on Linux

/** The fields of a /proc stat file from field 3 on (the command name before may contain spaces). */
function statFields(file: string): string[] {
  const text = fs.readFileSync(file, "utf8");
  return text.slice(text.lastIndexOf(")") + 2).split(" ");
}

/** utime + stime (fields 14, 15), plus cutime + cstime (16, 17: reaped children) when asked. */
function cpuSeconds(fields: string[], withChildren = false): number {
  const own = Number(fields[11]) + Number(fields[12]);
  return (withChildren ? own + Number(fields[13]) + Number(fields[14]) : own) / TICK;
}

/** Live processes of a process group other than its leader, CPU seconds. */
function groupMembersSeconds(pgid: number): number {
  let total = 0;
  for (const entry of fs.readdirSync("/proc")) {
    if (!/^\d+$/.test(entry) || Number(entry) === pgid) continue;
    try {
      const fields = statFields(`/proc/${entry}/stat`);
      if (Number(fields[2]) === pgid) total += cpuSeconds(fields);
    } catch {} // gone meanwhile
  }
  return total;
}

export function cpuSnapshot(pid: number): CpuSnapshot | undefined {
  try {
    const cpu = (fs.readFileSync("/proc/stat", "utf8").split("\n")[0] as string).trim().split(/\s+/).slice(1);
    // user nice system idle iowait irq softirq steal: busy is all but idle and iowait.
    const busy = cpu.slice(0, 8).reduce((sum, ticks, i) => (i === 3 || i === 4 ? sum : sum + Number(ticks)), 0);
    const interrupts = Number(cpu[5]) + Number(cpu[6]);
    const server = statFields(`/proc/${pid}/stat`);
    const usage = process.cpuUsage();
    return {
      at: performance.now(),
      mainThread: cpuSeconds(statFields(`/proc/${pid}/task/${pid}/stat`)),
      serverNode: cpuSeconds(server),
      serverGroup: cpuSeconds(server, true) + groupMembersSeconds(pid),
      bench: (usage.user + usage.system) / 1e6,
      machine: busy / TICK,
      interrupts: interrupts / TICK,
    };
  } catch {
    return undefined;
  }
}

/** Average number of cores busy during an interval. */
export interface CpuUse {
  /** The server's event loop. */
  main: number;
  /** The server's other threads (worker threads running modules, libuv pool, GC). */
  serverThreads: number;
  /** ffmpeg processes run by the server. */
  ffmpeg: number;
  /** This bench (the HTTP client). */
  bench: number;
  /** Interrupt handling, loopback networking included. */
  interrupts: number;
  /** Everything else on the machine (other processes: the measurement is disturbed when this is high). */
  others: number;
  machine: number;
}

export function cpuUse(from: CpuSnapshot | undefined, to: CpuSnapshot | undefined): CpuUse | undefined {
  if (!from || !to) return undefined;
  const seconds = (to.at - from.at) / 1000;
  const d = (key: Exclude<keyof CpuSnapshot, "at">) => (to[key] - from[key]) / seconds;
  const cores = (value: number) => round(Math.max(0, value));
  return {
    main: cores(d("mainThread")),
    serverThreads: cores(d("serverNode") - d("mainThread")),
    ffmpeg: cores(d("serverGroup") - d("serverNode")),
    bench: cores(d("bench")),
    interrupts: cores(d("interrupts")),
    others: cores(d("machine") - d("serverGroup") - d("bench") - d("interrupts")),
    machine: cores(d("machine")),
  };
}

/** Reads the server's event-loop delay gauges from /metrics (prom-client resets them at each scrape). */
export async function eventLoopLag(url: string): Promise<{ p99Ms: number; maxMs: number } | undefined> {
  try {
    const text = await (await fetch(`${url}/metrics`)).text();
    const gauge = (name: string) => {
      const match = text.match(new RegExp(`^${name} ([0-9.eE+-]+)`, "m"));
      return match ? round(Number(match[1]) * 1000) : Number.NaN;
    };
    return {
      p99Ms: gauge("mixdown_nodejs_eventloop_lag_p99_seconds"),
      maxMs: gauge("mixdown_nodejs_eventloop_lag_max_seconds"),
    };
  } catch {
    return undefined;
  }
}

/** Prints rows as an aligned text table (first row = header). */
export function printTable(rows: (string | number)[][]): void {
  const cells = rows.map((row) => row.map(String));
  const widths = cells[0]?.map((_, i) => Math.max(...cells.map((row) => row[i]?.length ?? 0))) ?? [];
  const line = (row: string[]) => row.map((cell, i) => cell.padStart(widths[i] ?? 0)).join("  ");
  const [header = [], ...body] = cells;
  console.log(line(header));
  console.log(widths.map((w) => "-".repeat(w)).join("  "));
  for (const row of body) console.log(line(row));
}

export function envInt(name: string, fallback: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === "") return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < 1) throw new Error(`${name} must be a positive integer, got "${raw}"`);
  return value;
}
