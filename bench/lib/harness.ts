import { execFileSync, spawn } from "node:child_process";
import fs from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { setTimeout as delay } from "node:timers/promises";

type Cleanup = () => void | Promise<void>;

const cleanups: Cleanup[] = [];
/** Process groups of the servers started, killed at exit whatever happens. */
const groups = new Set<number>();
const tempDirs = new Set<string>();

/** Registers something to undo when the bench ends (run in reverse order, also on error or signal). */
export function onCleanup(cleanup: Cleanup): void {
  cleanups.push(cleanup);
}

let cleaning: Promise<void> | undefined;

/** Runs the cleanups once, in reverse order; a second caller (signal during cleanup) waits for the same run. */
function runCleanups(): Promise<void> {
  cleaning ??= (async () => {
    for (let cleanup = cleanups.pop(); cleanup; cleanup = cleanups.pop()) {
      try {
        await cleanup();
      } catch (error) {
        console.error("cleanup failed:", error);
      }
    }
  })();
  return cleaning;
}

// Last resort when the process exits by another path (process.exit, uncaught error): nothing is left behind.
process.on("exit", () => {
  for (const pid of groups) killGroup(pid, "SIGKILL");
  for (const dir of tempDirs) fs.rmSync(dir, { recursive: true, force: true });
});

/** Runs a bench; whatever it started is stopped and removed afterwards, also on failure or SIGINT/SIGTERM. */
export function runBench(body: () => Promise<void>): void {
  let stopping = false;
  for (const signal of ["SIGINT", "SIGTERM"] as const) {
    process.on(signal, () => {
      if (stopping) return; // a repeated signal (Ctrl-C reaches run-all and this process) must not cut cleanup short
      stopping = true;
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

/** A new directory under BENCH_DIR (default: the OS temp dir), removed at cleanup. */
export function makeTempDir(prefix: string): string {
  const dir = fs.mkdtempSync(path.join(process.env.BENCH_DIR || os.tmpdir(), prefix));
  tempDirs.add(dir);
  onCleanup(() => {
    fs.rmSync(dir, { recursive: true, force: true });
    tempDirs.delete(dir);
  });
  return dir;
}

export async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

export interface ServerProcess {
  /** The pid of the spawned process (for Mixdown, the node process: bin/mixdown execs node). */
  pid: number;
  output(): string;
  stop(): Promise<void>;
}

/** Environment for children: this very Node first on PATH (bin/mixdown runs `node`). */
export function childEnv(env: Record<string, string>): NodeJS.ProcessEnv {
  const PATH = `${path.dirname(process.execPath)}${path.delimiter}${process.env.PATH ?? ""}`;
  return { ...process.env, PATH, ...env };
}

function killGroup(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pid, signal);
  } catch {} // the group is gone already
}

/**
 * Spawns a server as the leader of a process group of its own and waits until GET readyUrl answers 2xx. At
 * cleanup it gets SIGTERM (SIGKILL after 5 s), then whatever it started (an ffmpeg of an aborted job) goes
 * with the group.
 */
export async function startServer(
  command: string,
  args: string[],
  env: Record<string, string>,
  readyUrl: string,
): Promise<ServerProcess> {
  const child = spawn(command, args, { env: childEnv(env), stdio: ["ignore", "pipe", "pipe"], detached: true });
  const pid = child.pid as number;
  groups.add(pid);
  let output = "";
  const collect = (chunk: Buffer) => {
    output = (output + chunk.toString()).slice(-20_000);
  };
  child.stdout?.on("data", collect);
  child.stderr?.on("data", collect);
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  const alive = () => child.exitCode === null && child.signalCode === null;
  const stop = async () => {
    if (alive()) {
      child.kill("SIGTERM");
      const timer = setTimeout(() => child.kill("SIGKILL"), 5000);
      await exited;
      clearTimeout(timer);
    }
    killGroup(pid, "SIGKILL");
    groups.delete(pid);
  };
  onCleanup(stop);
  for (let i = 0; i < 400; i++) {
    if (!alive()) throw new Error(`${command} exited at start:\n${output}`);
    try {
      if ((await fetch(readyUrl)).ok) return { pid, output: () => output, stop };
    } catch {}
    await delay(50);
  }
  throw new Error(`${command} did not answer ${readyUrl} within 20 s:\n${output}`);
}

/**
 * CPU seconds (user + system) a process has used so far, from /proc (Linux; clock ticks of 1/100 s); with
 * `children`, also that of its children it has waited for (an ffmpeg it ran, say).
 */
export function cpuSeconds(pid: number | "self", options: { children?: boolean } = {}): number {
  const stat = fs.readFileSync(`/proc/${pid}/stat`, "utf8");
  const fields = stat
    .slice(stat.lastIndexOf(")") + 2)
    .split(" ")
    .map(Number);
  const own = (fields[11] ?? 0) + (fields[12] ?? 0);
  return (options.children ? own + (fields[13] ?? 0) + (fields[14] ?? 0) : own) / 100;
}

/** The processes a process has started and not yet waited for (Linux /proc), e.g. Mixdown's tool launcher. */
export function childPids(pid: number): number[] {
  try {
    const listed = fs.readFileSync(`/proc/${pid}/task/${pid}/children`, "utf8");
    return listed.split(" ").filter(Boolean).map(Number);
  } catch {
    return []; // the process has ended
  }
}

/** Busy and total CPU time of the whole machine so far (Linux /proc/stat), in clock ticks. */
export function machineTicks(): { busy: number; total: number } {
  const fields = (fs.readFileSync("/proc/stat", "utf8").split("\n")[0] ?? "").trim().split(/\s+/).slice(1).map(Number);
  const total = fields.reduce((a, b) => a + b, 0);
  const idle = (fields[3] ?? 0) + (fields[4] ?? 0); // idle + iowait
  return { busy: total - idle, total };
}

/** Cores kept busy on average between two machineTicks() readings. */
export function coresBusy(before: { busy: number; total: number }, after: { busy: number; total: number }): number {
  return ((after.busy - before.busy) / (after.total - before.total)) * os.availableParallelism();
}

/** An integer from the environment, or the fallback. */
export function envInt(name: string, fallback: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === "") return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < 1) throw new Error(`${name} must be a positive integer, got "${raw}"`);
  return value;
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

export const round = (value: number, digits = 2): number => Number(value.toFixed(digits));

/**
 * Puts the servers on the first CPU and this process (the load generator) on the second, every thread of each
 * (Linux `taskset`), so each server has a core to itself and never shares one with its client: on a 2-core
 * machine a request-rate ratio otherwise swings by ±5 % with the scheduler's choices. Returns why it could not
 * (fewer than 2 CPUs, no taskset), or undefined.
 */
export function pinApart(serverPids: number[]): string | undefined {
  if (os.availableParallelism() < 2) return "one CPU only";
  try {
    for (const pid of serverPids) execFileSync("taskset", ["-a", "-cp", "0", String(pid)], { stdio: "ignore" });
    execFileSync("taskset", ["-a", "-cp", "1", String(process.pid)], { stdio: "ignore" });
    return undefined;
  } catch (error) {
    return `taskset failed: ${(error as Error).message}`;
  }
}
