import { Worker } from "node:worker_threads";
import { deserializeError, type SerializedError } from "./thread-errors.ts";

const ENTRY = new URL("./module-thread.ts", import.meta.url);
/** How long a stopped step's thread gets to stop its child processes (their abort signal) before it is terminated. */
const ABORT_GRACE_MS = 500;

/** What a module thread is given for one step. */
export interface ThreadTask {
  params: Record<string, unknown>;
  inputs: Record<string, unknown>;
  outputDir: string;
  modelsDir: string;
}

/** A module thread's answer to one task, with the size of its heap (JavaScript plus external) afterwards. */
export type ThreadReply = ({ ok: true; outputs: Record<string, unknown> } | { ok: false; error: SerializedError }) & {
  heapBytes: number;
};
/** What a thread posts while a task runs: how much of it is done, from 0 to 1. */
export interface ThreadProgress {
  progress: number;
}
/** What the parent posts to stop the running task (its module's signal aborts: its child processes end). */
export interface ThreadAbort {
  abort: true;
}

export interface ModuleThreadOptions {
  /** An idle thread ends after this long unused, giving its memory back. */
  idleMs: number;
  /** A thread whose heap is larger than this after a task ends instead of waiting for the next one. */
  retireHeapBytes: number;
}

interface Thread {
  worker: Worker;
  module: string;
  idleTimer?: NodeJS.Timeout;
}

/**
 * Worker threads for heavy modules, kept between steps. A thread runs one module only, so what a module
 * keeps per thread (its compiled code, a loaded model) is reused by its next step instead of being built
 * again, and no thread accumulates several modules' state. A thread is not reused after a failed step or
 * when its heap has grown past `retireHeapBytes`; aborting a step terminates its thread. Idle threads do
 * not keep the process alive and end after `idleMs`.
 */
export class ModuleThreads {
  private readonly idle = new Map<string, Thread[]>();
  /** Threads started so far (for tests and diagnostics). */
  started = 0;

  private readonly options: ModuleThreadOptions;

  constructor(options: ModuleThreadOptions) {
    this.options = options;
  }

  /** Idle threads kept for `module` right now. */
  idleCount(module: string): number {
    return this.idle.get(module)?.length ?? 0;
  }

  /**
   * Runs one task of `module` in a thread. Aborting the signal tells the thread to stop (its module's signal ends
   * the child processes it started), then terminates it: the promise rejects once the thread has ended.
   */
  run(
    module: string,
    task: ThreadTask,
    signal: AbortSignal,
    onProgress: (fraction: number) => void = () => undefined,
  ): Promise<Record<string, unknown>> {
    if (signal.aborted) return Promise.reject(signal.reason);
    const thread = this.takeIdle(module) ?? this.start(module);
    thread.worker.ref();
    return new Promise((resolve, reject) => {
      const detach = () => {
        signal.removeEventListener("abort", onAbort);
        thread.worker.off("message", onReply).off("error", onError).off("exit", onExit);
      };
      const onAbort = () => {
        detach();
        thread.worker.postMessage({ abort: true } satisfies ThreadAbort);
        const terminate = () => {
          clearTimeout(timer);
          thread.worker.off("message", onAnswer);
          thread.worker.terminate().finally(() => reject(signal.reason));
        };
        const onAnswer = (message: ThreadReply | ThreadProgress) => "ok" in message && terminate();
        const timer = setTimeout(terminate, ABORT_GRACE_MS);
        thread.worker.on("message", onAnswer);
      };
      const onReply = (reply: ThreadReply | ThreadProgress) => {
        if ("progress" in reply) return onProgress(reply.progress);
        detach();
        if (reply.ok && reply.heapBytes <= this.options.retireHeapBytes) this.keepIdle(thread);
        else void thread.worker.terminate();
        if (reply.ok) resolve(reply.outputs);
        else reject(deserializeError(reply.error));
      };
      const onError = (error: Error) => {
        detach();
        void thread.worker.terminate();
        reject(error);
      };
      const onExit = (code: number) => {
        detach();
        reject(new Error(`module thread ${module} exited with code ${code} before answering`));
      };
      signal.addEventListener("abort", onAbort, { once: true });
      thread.worker.on("message", onReply).on("error", onError).on("exit", onExit);
      thread.worker.postMessage(task);
    });
  }

  /** Ends every idle thread now. */
  async closeIdle(): Promise<void> {
    const threads = [...this.idle.values()].flat();
    this.idle.clear();
    await Promise.all(threads.map((thread) => this.end(thread)));
  }

  private start(module: string): Thread {
    const thread: Thread = { worker: new Worker(ENTRY, { workerData: { module } }), module };
    this.started++;
    // A thread that dies while idle leaves the idle list; its error, with no step to fail, is not the process's.
    thread.worker.on("error", () => {}).on("exit", () => this.forget(thread));
    return thread;
  }

  private takeIdle(module: string): Thread | undefined {
    const thread = this.idle.get(module)?.pop();
    if (thread) clearTimeout(thread.idleTimer);
    return thread;
  }

  private keepIdle(thread: Thread): void {
    thread.worker.unref();
    thread.idleTimer = setTimeout(() => void this.end(thread), this.options.idleMs).unref();
    const list = this.idle.get(thread.module) ?? [];
    list.push(thread);
    this.idle.set(thread.module, list);
  }

  private async end(thread: Thread): Promise<void> {
    this.forget(thread);
    await thread.worker.terminate();
  }

  private forget(thread: Thread): void {
    clearTimeout(thread.idleTimer);
    const list = this.idle.get(thread.module);
    const index = list?.indexOf(thread) ?? -1;
    if (list && index >= 0) list.splice(index, 1);
  }
}

/**
 * The process's module threads (heavy modules run here; aborting a step terminates its thread): idle ones end
 * after a minute; one holding over 1 GiB after a step is not kept.
 */
export const moduleThreads = new ModuleThreads({ idleMs: 60_000, retireHeapBytes: 1024 ** 3 });
