/**
 * Entry of a module process (module-pool.ts): imports one heavy module once, then runs each task its parent
 * sends and sends back the outputs. Arguments: the modules folder and the module's name; only that module is
 * imported (from <folder>/<name>/index.ts), so a process starts quickly.
 */
import fs from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { BACKGROUND_PRIORITY, lowerPriority } from "../media/run-tool.ts";
import { toolLauncher } from "../media/tool-launcher.ts";
import { serializeError } from "./module-errors.ts";
import type { StepAbort, StepProgress, StepReply, StepTask } from "./module-pool.ts";
import type { Module } from "./types.ts";

const [modulesDir = "", name = ""] = process.argv.slice(2);
/** A process posts progress at most this often (modules may report it every frame). */
const PROGRESS_EVERY_MS = 100;
const fetchInput = () => Promise.reject(new Error("fetchInput is not available in a module process"));

// The whole process runs below the API's priority: on Linux a priority is per thread, so each thread started so
// far is lowered (V8's own start with the process); threads started later (libuv's pool, onnxruntime's, the
// tools) inherit it from the thread that starts them.
let threads: string[] = [];
try {
  threads = fs.readdirSync("/proc/self/task");
} catch {}
if (threads.length === 0) lowerPriority(0);
for (const tid of threads) lowerPriority(Number(tid));
// The pool starts this process in a session of its own, which Linux's autogroup scheduling makes a group of its
// own: the CPU is shared between groups as equals whatever their threads' priorities (the API answered 25% fewer
// requests while two modules ran, measured), so the group's priority is lowered too.
try {
  fs.writeFileSync("/proc/self/autogroup", String(BACKGROUND_PRIORITY));
} catch {}
// The tool launcher spares the API's event loop the cost of starting a process; this process answers no
// requests, and a launcher would only add a process between it and its tools.
toolLauncher.startToolsHere();

async function load(): Promise<Module> {
  if (!/^[a-z0-9-]+$/.test(name)) throw new Error(`invalid module name ${name}`);
  const file = path.join(modulesDir, name, "index.ts");
  const exports = (await import(pathToFileURL(file).href)) as Record<string, unknown>;
  const module = Object.values(exports).find((value) => (value as Module | undefined)?.name === name);
  if (!module) throw new Error(`${file} exports no module named ${name}`);
  return module as Module;
}

const loaded = load();

function send(message: StepReply | StepProgress): void {
  if (process.connected) process.send?.(message);
}

function reply(answer: { ok: true; outputs: Record<string, unknown> } | { ok: false; error: unknown }): void {
  const residentBytes = process.memoryUsage.rss();
  send(answer.ok ? { ...answer, residentBytes } : { ok: false, error: serializeError(answer.error), residentBytes });
}

/** The running task's controller: the parent's abort message aborts it, so the module's child processes end. */
let running: AbortController | undefined;

function progressPoster(): (fraction: number) => void {
  let postedAt = Number.NEGATIVE_INFINITY; // the first report goes out at once, however young the process
  return (fraction) => {
    const now = performance.now();
    if (now - postedAt < PROGRESS_EVERY_MS) return;
    postedAt = now;
    send({ progress: fraction });
  };
}

process.on("message", (message: StepTask | StepAbort) => {
  if ("abort" in message) return void running?.abort(new Error("the step was stopped"));
  const task = message;
  const controller = new AbortController();
  running = controller;
  loaded
    .then((module) => module.run({ ...task, signal: controller.signal, fetchInput, reportProgress: progressPoster() }))
    .then(
      (outputs) => reply({ ok: true, outputs }),
      (error: unknown) => reply({ ok: false, error }),
    );
});

// Its life is its parent's: a SIGINT or SIGTERM (a service manager signals every process of the service) is for
// the parent, which stops its steps through this process or, when it exits, closes the channel.
for (const signal of ["SIGINT", "SIGTERM"] as const) process.on(signal, () => {});

// The parent has gone: stop the step's tools (their signal) and exit.
process.on("disconnect", () => {
  running?.abort(new Error("the server has gone"));
  process.exit(0);
});
