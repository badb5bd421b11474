// Helpers of bench/responsiveness.ts: a keep-alive latency sampler, statistics, and CPU and event-loop
// readings of the server's process group (servers are started by lib/harness.ts as group leaders).
import fs from "node:fs";
import http from "node:http";
import { round } from "./lib/harness.ts";

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
  /** The server's node process, all threads (event loop, libuv pool, GC). */
  serverNode: number;
  /** The server's node process and every process it started (module processes, tools; live or reaped). */
  serverTree: number;
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

/**
 * The live descendants of `pid` (module processes, which lead process groups of their own, and the tools that
 * they and the tool launcher run), CPU seconds, each with its own reaped children.
 */
function descendantsSeconds(pid: number): number {
  const children = new Map<number, { parent: number; seconds: number }>();
  for (const entry of fs.readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const fields = statFields(`/proc/${entry}/stat`);
      children.set(Number(entry), { parent: Number(fields[1]), seconds: cpuSeconds(fields, true) });
    } catch {} // gone meanwhile
  }
  let total = 0;
  for (const [child, { seconds }] of children) {
    let ancestor = children.get(child)?.parent;
    for (let depth = 0; ancestor !== undefined && ancestor > 1 && depth < 64; depth++) {
      if (ancestor === pid) {
        total += seconds;
        break;
      }
      ancestor = children.get(ancestor)?.parent;
    }
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
      serverTree: cpuSeconds(server, true) + descendantsSeconds(pid),
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
  /** The server's other threads (libuv pool, GC). */
  serverThreads: number;
  /** The processes the server started: module processes (heavy modules run there), ffmpeg and other tools. */
  children: number;
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
    children: cores(d("serverTree") - d("serverNode")),
    bench: cores(d("bench")),
    interrupts: cores(d("interrupts")),
    others: cores(d("machine") - d("serverTree") - d("bench") - d("interrupts")),
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
