import { type ChildProcess, fork } from "node:child_process";
import { fileURLToPath } from "node:url";
import { JobFailure } from "../jobs/job-failure.ts";
import { deserializeError, type SerializedError } from "./module-errors.ts";

const ENTRY = new URL("./module-process.ts", import.meta.url);
/** Where a module named `name` lives: `<MODULES_DIR>/<name>/index.ts`. */
const MODULES_DIR = fileURLToPath(new URL("../modules/", import.meta.url));
/** How long a stopped step's process gets to stop its own work (its module's signal) before it is killed. */
const ABORT_GRACE_MS = 500;
/**
 * The parent's flags a module process keeps: its memory limits and diagnostics. Others are not for it: `-e` code
 * would run instead of the entry, `--inspect` would take the parent's port, and a test file's runner passes dozens.
 */
const INHERITED_FLAGS = /^--(max-old-space-size|max-semi-space-size|stack-size|enable-source-maps|disable-warning)\b/;

/** What a module process is given for one step. */
export interface StepTask {
  params: Record<string, unknown>;
  inputs: Record<string, unknown>;
  outputDir: string;
  modelsDir: string;
}

/** A module process's answer to one task, with its resident memory afterwards. */
export type StepReply = ({ ok: true; outputs: Record<string, unknown> } | { ok: false; error: SerializedError }) & {
  residentBytes: number;
};
/** What a module process posts while a task runs: how much of it is done, from 0 to 1. */
export interface StepProgress {
  progress: number;
}
/** What the parent posts to stop the running task (its module's signal aborts: its child processes end). */
export interface StepAbort {
  abort: true;
}

export interface ModulePoolOptions {
  /** An idle process ends after this long unused, giving its memory back. */
  idleMs: number;
  /** A process whose resident memory is larger than this after a step ends instead of waiting for the next one. */
  retireBytes: number;
  /** The folder holding each module as `<name>/index.ts`: src/modules unless a test gives its own. */
  modulesDir?: string;
}

interface ModuleProcess {
  child: ChildProcess;
  module: string;
  exited: Promise<void>;
  idleTimer?: NodeJS.Timeout;
}

/**
 * Child processes for heavy modules, kept between steps. A process runs one module only, so what a module keeps
 * (its compiled code, a loaded model) is reused by its next step instead of being built again, and no process
 * accumulates several modules' state. Native code (onnxruntime, tfjs, whisper.cpp) runs there, never in the
 * API's process: a process that dies, whatever the cause, fails only its step, and stopping a step never stops a
 * thread inside native code: the process is told to stop, given ABORT_GRACE_MS, then killed with what it
 * started (its process group). A process is not reused after a failed or stopped step, nor when its resident
 * memory has grown past `retireBytes`. Idle processes do not keep this process alive and end after `idleMs`.
 */
export class ModulePool {
  private readonly idle = new Map<string, ModuleProcess[]>();
  private readonly live = new Set<ModuleProcess>();
  private readonly options: ModulePoolOptions;
  /** Processes started so far (for tests and diagnostics). */
  started = 0;

  constructor(options: ModulePoolOptions) {
    this.options = options;
  }

  /** Ids of this pool's processes that have not exited yet, idle or running a step (for tests and diagnostics). */
  get pids(): number[] {
    return [...this.live].flatMap((proc) => (proc.child.pid === undefined ? [] : [proc.child.pid]));
  }

  /** Idle processes kept for `module` right now. */
  idleCount(module: string): number {
    return this.idle.get(module)?.length ?? 0;
  }

  /**
   * Runs one task of `module` in its process. Aborting the signal tells the process to stop, then kills it: the
   * promise rejects with the signal's reason once the process has ended.
   */
  run(
    module: string,
    task: StepTask,
    signal: AbortSignal,
    onProgress: (fraction: number) => void = () => undefined,
  ): Promise<Record<string, unknown>> {
    if (signal.aborted) return Promise.reject(signal.reason);
    const proc = this.takeIdle(module) ?? this.start(module);
    const { child } = proc;
    child.ref();
    child.channel?.ref();
    return new Promise((resolve, reject) => {
      let stopping = false;
      let done = false;
      let graceTimer: NodeJS.Timeout | undefined;
      /** Stops listening; false when the step was already settled. */
      const detach = (): boolean => {
        if (done) return false;
        done = true;
        clearTimeout(graceTimer);
        signal.removeEventListener("abort", onAbort);
        child.off("message", onMessage).off("error", onError).off("exit", onExit);
        return true;
      };
      /** Settles once the process has ended (killed now if it has not): nothing it runs outlives the step. */
      const settleAfterEnd = (settle: () => void) => {
        if (detach()) void this.end(proc).then(settle);
      };
      const stopped = () => settleAfterEnd(() => reject(signal.reason));
      const onAbort = () => {
        stopping = true;
        if (child.connected) child.send({ abort: true } satisfies StepAbort, () => undefined);
        graceTimer = setTimeout(stopped, ABORT_GRACE_MS);
      };
      const onMessage = (message: StepReply | StepProgress) => {
        if ("progress" in message) return void (stopping || onProgress(message.progress));
        // An answer while stopping: the module noticed its signal (or had just finished); the grace ends early.
        if (stopping) return stopped();
        if (!detach()) return;
        if (message.ok && message.residentBytes <= this.options.retireBytes) this.keepIdle(proc);
        else void this.end(proc);
        if (message.ok) resolve(message.outputs);
        else reject(deserializeError(message.error));
      };
      const onError = (error: Error) => settleAfterEnd(() => reject(stopping ? signal.reason : error));
      const onExit = (code: number | null, killedBy: NodeJS.Signals | null) => {
        if (stopping) return stopped();
        const how = killedBy ? `was killed by ${killedBy}` : `exited with code ${code}`;
        const message = `The ${module} module's process ${how} while it ran this step; retrying may help.`;
        settleAfterEnd(() => reject(new JobFailure("INTERNAL_ERROR", message)));
      };
      signal.addEventListener("abort", onAbort, { once: true });
      child.on("message", onMessage).on("error", onError).on("exit", onExit);
      try {
        child.send(task satisfies StepTask, (error) => error && onError(error));
      } catch (error) {
        onError(error as Error); // not serialisable
      }
    });
  }

  /** Ends every idle process now. */
  async closeIdle(): Promise<void> {
    const procs = [...this.idle.values()].flat();
    this.idle.clear();
    await Promise.all(procs.map((proc) => this.end(proc)));
  }

  private start(module: string): ModuleProcess {
    const modulesDir = this.options.modulesDir ?? MODULES_DIR;
    const execArgv = [
      "--disable-warning=ExperimentalWarning",
      ...process.execArgv.filter((flag) => INHERITED_FLAGS.test(flag)),
    ];
    // Its own process group, so that killing it kills the tools it started too, and a terminal's Ctrl-C, meant
    // for the server, reaches the server only (the server stops its steps itself).
    const child = fork(ENTRY, [modulesDir, module], {
      execArgv,
      serialization: "advanced",
      detached: true,
      stdio: ["ignore", "inherit", "inherit", "ipc"],
    });
    this.started++;
    const exited = new Promise<void>((resolve) => {
      child.once("exit", () => resolve());
      child.once("error", () => child.pid === undefined && resolve()); // it never started
    });
    const proc: ModuleProcess = { child, module, exited };
    this.live.add(proc);
    // A process that dies while idle leaves the idle list; its error, with no step to fail, is not this process's.
    child.on("error", () => {});
    void exited.then(() => {
      this.live.delete(proc);
      this.forget(proc);
      killGroup(child); // what it started and left behind
    });
    return proc;
  }

  private takeIdle(module: string): ModuleProcess | undefined {
    const proc = this.idle.get(module)?.pop();
    if (proc) clearTimeout(proc.idleTimer);
    return proc;
  }

  private keepIdle(proc: ModuleProcess): void {
    proc.child.unref();
    proc.child.channel?.unref();
    proc.idleTimer = setTimeout(() => void this.end(proc), this.options.idleMs).unref();
    const list = this.idle.get(proc.module) ?? [];
    list.push(proc);
    this.idle.set(proc.module, list);
  }

  /** Kills the process and what it started; resolves once it has exited. */
  private async end(proc: ModuleProcess): Promise<void> {
    this.forget(proc);
    proc.child.ref(); // until its exit is seen: whoever awaits this waits for it
    killGroup(proc.child);
    await proc.exited;
  }

  private forget(proc: ModuleProcess): void {
    clearTimeout(proc.idleTimer);
    const list = this.idle.get(proc.module);
    const index = list?.indexOf(proc) ?? -1;
    if (list && index >= 0) list.splice(index, 1);
  }
}

/** SIGKILL to a module process's group (it leads it), or to it alone where groups are not there. */
function killGroup(child: ChildProcess): void {
  if (child.pid === undefined) return;
  try {
    process.kill(-child.pid, "SIGKILL");
  } catch {
    // The group is gone (nothing left), or this platform has none.
    if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
  }
}

/**
 * The process's module processes (heavy modules run there): idle ones end after a minute; one holding over
 * 1 GiB resident after a step is not kept.
 */
export const modulePool = new ModulePool({ idleMs: 60_000, retireBytes: 1024 ** 3 });
