import v8 from "node:v8";
import { parentPort, workerData } from "node:worker_threads";
import { lowerPriority } from "../media/run-tool.ts";
import type { ThreadAbort, ThreadProgress, ThreadReply, ThreadTask } from "./run-in-thread.ts";
import { serializeError } from "./thread-errors.ts";
import type { Module } from "./types.ts";

/**
 * Worker-thread entry for one heavy module: imports it once, then runs each task posted to the thread and
 * posts back its outputs. Only that module is imported (modules live in src/modules/<name>/index.ts), so a
 * thread starts quickly.
 */
const { module: name } = workerData as { module: string };
// On Linux this lowers just this thread (and what it starts): heavy work yields to the API's event loop.
lowerPriority(0);
/** A thread posts progress at most this often (modules may report it every frame). */
const PROGRESS_EVERY_MS = 100;
const fetchInput = () => Promise.reject(new Error("fetchInput is not available in a worker thread"));

async function load(): Promise<Module> {
  if (!/^[a-z0-9-]+$/.test(name)) throw new Error(`invalid module name ${name}`);
  const exports = (await import(`../modules/${name}/index.ts`)) as Record<string, unknown>;
  const module = Object.values(exports).find((value) => (value as Module | undefined)?.name === name);
  if (!module) throw new Error(`src/modules/${name}/index.ts exports no module named ${name}`);
  return module as Module;
}

const loaded = load();

function reply(answer: { ok: true; outputs: Record<string, unknown> } | { ok: false; error: unknown }): void {
  const heap = v8.getHeapStatistics();
  const heapBytes = heap.used_heap_size + heap.external_memory;
  const message: ThreadReply = answer.ok
    ? { ...answer, heapBytes }
    : { ok: false, error: serializeError(answer.error), heapBytes };
  parentPort?.postMessage(message);
}

/** The running task's controller: the parent's abort message aborts it, so the module's child processes end. */
let running: AbortController | undefined;

function progressPoster(): (fraction: number) => void {
  let postedAt = 0;
  return (fraction) => {
    const now = performance.now();
    if (now - postedAt < PROGRESS_EVERY_MS) return;
    postedAt = now;
    parentPort?.postMessage({ progress: fraction } satisfies ThreadProgress);
  };
}

parentPort?.on("message", (message: ThreadTask | ThreadAbort) => {
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
