import { spawn } from "node:child_process";
import os from "node:os";

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

/** Runs a media tool as a child process (off the event loop); resolves with its stdout. */
export function runTool(binary: string, args: string[], signal?: AbortSignal): Promise<string> {
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
    child.on("error", reject);
    child.on("close", (code) => {
      if (code === 0) resolve(stdout);
      else reject(signal?.aborted ? signal.reason : new ToolError(binary, code, stderr));
    });
  });
}
