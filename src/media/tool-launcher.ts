import { type ChildProcess, fork } from "node:child_process";
import { isMainThread } from "node:worker_threads";
import type { ToolOutcome } from "./run-tool.ts";

/** What the launcher process is asked: start a tool, or stop one it started. */
export type LauncherRequest = { id: number; binary: string; args: string[] } | { id: number; kill: true };
/** Its answer once the tool has ended (or could not start). */
export type LauncherReply =
  | { id: number; outcome: ToolOutcome }
  | { id: number; error: { message: string; code?: string } };

const ENTRY = new URL("./tool-launcher-process.ts", import.meta.url);
/** A small heap keeps the launcher's memory map, which every process it starts copies, small. */
const EXEC_ARGV = ["--disable-warning=ExperimentalWarning", "--max-semi-space-size=1", "--max-old-space-size=64"];

interface Pending {
  resolve(outcome: ToolOutcome): void;
  reject(error: Error): void;
}

/**
 * Starts media tools from a small long-lived child process instead of from this one. Starting a process copies
 * the starter's memory map while its event loop waits: from a Mixdown server (100–200 MB, more with a model
 * loaded) that took 3–6 ms of the event loop per tool here, growing with the heap; from the launcher (~40 MB),
 * about 1 ms, on its own thread of execution. The launcher is started on first use, answers each run when the
 * tool has ended (a stopped run: when its process has exited), and ends with this process: its channel closing
 * stops the tools it runs. If it dies, the runs it had fail and the next run starts a new one.
 */
export class ToolLauncher {
  private child: ChildProcess | undefined;
  private readonly pending = new Map<number, Pending>();
  private nextId = 0;
  /** Launcher processes started so far (for tests). */
  started = 0;
  private direct = !isMainThread;

  /**
   * Whether runTool goes through the launcher: in the API's process, whose event loop must not wait for a process
   * to start; not in a module process (module-process.ts) or a worker thread, which start their tools themselves.
   */
  get inUse(): boolean {
    return !this.direct;
  }

  /** This process starts its tools itself from now on (a module process, which answers no requests, says so first). */
  startToolsHere(): void {
    this.direct = true;
  }

  run(binary: string, args: string[], signal?: AbortSignal): Promise<ToolOutcome> {
    if (signal?.aborted) return Promise.reject(signal.reason);
    const child = this.launcher();
    const id = ++this.nextId;
    return new Promise((resolve, reject) => {
      const onAbort = () => this.send(child, { id, kill: true });
      const settle = () => {
        signal?.removeEventListener("abort", onAbort);
        this.pending.delete(id);
        if (this.pending.size === 0) child.channel?.unref();
      };
      this.pending.set(id, {
        resolve: (outcome) => {
          settle();
          resolve(outcome);
        },
        reject: (error) => {
          settle();
          reject(error);
        },
      });
      signal?.addEventListener("abort", onAbort, { once: true });
      child.channel?.ref(); // a run in progress keeps this process alive, an idle launcher does not
      this.send(child, { id, binary, args });
    });
  }

  /** Starts the launcher now, if none runs, so that the first tool does not wait for it (~60 ms here). */
  start(): void {
    if (this.inUse) this.launcher();
  }

  /** The launcher process's id, when one is running (for tests). */
  get pid(): number | undefined {
    return this.child?.pid;
  }

  private send(child: ChildProcess, request: LauncherRequest): void {
    if (child.connected) child.send(request);
  }

  private launcher(): ChildProcess {
    if (this.child) return this.child;
    const child = fork(ENTRY, [], { execArgv: EXEC_ARGV, stdio: ["ignore", "inherit", "inherit", "ipc"] });
    this.child = child;
    this.started++;
    child.unref();
    child.channel?.unref();
    child.on("message", (reply: LauncherReply) => {
      const pending = this.pending.get(reply.id);
      if (!pending) return;
      if ("outcome" in reply) pending.resolve(reply.outcome);
      else pending.reject(Object.assign(new Error(reply.error.message), { code: reply.error.code }));
    });
    child.on("error", () => {}); // a failed send; the exit below fails what was pending
    child.on("exit", (code, signal) => {
      if (this.child === child) this.child = undefined;
      const error = new Error(`the tool launcher process exited (${signal ?? `code ${code}`}) before the tool ended`);
      for (const pending of [...this.pending.values()]) pending.reject(error);
    });
    return child;
  }
}

/** This process's launcher (used by the API's process only: a module process starts its tools itself). */
export const toolLauncher = new ToolLauncher();
