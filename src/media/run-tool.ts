import { spawn } from "node:child_process";
import os from "node:os";
import { toolLauncher } from "./tool-launcher.ts";

/** Media tools run below the API's priority, so a busy machine still answers requests first. */
export const BACKGROUND_PRIORITY = 10;

/** Lowers a child process's priority, or with 0 the calling thread's (Linux priorities are per thread). */
export function lowerPriority(pid: number | undefined): void {
  if (pid === undefined) return;
  try {
    os.setPriority(pid, BACKGROUND_PRIORITY);
  } catch {
    // Not permitted here: run at normal priority.
  }
}

export class ToolError extends Error {
  readonly tool: string;
  readonly exitCode: number | null;
  readonly stderr: string;

  constructor(tool: string, exitCode: number | null, stderr: string) {
    super(`${tool} exited with code ${exitCode}: ${stderr.trim().split("\n").slice(-3).join(" | ")}`);
    this.tool = tool;
    this.exitCode = exitCode;
    this.stderr = stderr;
  }
}

const MAX_CAPTURE = 1 << 20;

/** How a tool run ended: its exit code (null when killed) and what it printed (stdout's first MiB, stderr's last). */
export interface ToolOutcome {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Starts the tool in this process, at background priority, and collects its output; rejects if it cannot start. */
export function spawnTool(binary: string, args: string[], signal?: AbortSignal): Promise<ToolOutcome> {
  return new Promise((resolve, reject) => {
    const child = spawn(binary, args, { stdio: ["ignore", "pipe", "pipe"], signal });
    lowerPriority(child.pid);
    let stdout = "";
    let stderr = "";
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
      if (stdout.length < MAX_CAPTURE) stdout += chunk;
    });
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => {
      stderr = (stderr + chunk).slice(-MAX_CAPTURE);
    });
    child.on("error", (error) => {
      if (child.pid === undefined) reject(error); // did not start; an abort's error is answered at close
    });
    child.on("close", (code) => resolve({ code, stdout, stderr }));
  });
}

/**
 * Runs a media tool as a child process (off the event loop); resolves with its stdout. In the API's process the
 * tool is started by the tool launcher (src/media/tool-launcher.ts), not by this process: starting a process
 * from this one copies its memory map, which blocked the event loop for 3–6 ms per tool here. A module process
 * (src/engine/module-process.ts), which answers no requests, starts its tools itself.
 */
export async function runTool(binary: string, args: string[], signal?: AbortSignal): Promise<string> {
  const outcome = toolLauncher.inUse
    ? await toolLauncher.run(binary, args, signal)
    : await spawnTool(binary, args, signal);
  if (outcome.code === 0) return outcome.stdout;
  throw signal?.aborted ? signal.reason : new ToolError(binary, outcome.code, outcome.stderr);
}
