import { parentPort, workerData } from "node:worker_threads";
import { lowerPriority } from "../media/run-tool.ts";
import { serializeError } from "./thread-errors.ts";
import type { Module } from "./types.ts";

/**
 * Worker-thread entry: runs one heavy module with the inputs it was given and posts its outputs back.
 * Only that module is imported (modules live in src/modules/<name>/index.ts), so a thread starts quickly.
 */
const {
  module: name,
  params,
  inputs,
  outputDir,
  modelsDir,
} = workerData as {
  module: string;
  params: Record<string, unknown>;
  inputs: Record<string, unknown>;
  outputDir: string;
  modelsDir: string;
};
// On Linux this lowers just this thread (and what it starts): heavy work yields to the API's event loop.
lowerPriority(0);
const controller = new AbortController();
const fetchInput = () => Promise.reject(new Error("fetchInput is not available in a worker thread"));

async function load(): Promise<Module> {
  if (!/^[a-z0-9-]+$/.test(name)) throw new Error(`invalid module name ${name}`);
  const exports = (await import(`../modules/${name}/index.ts`)) as Record<string, unknown>;
  const module = Object.values(exports).find((value) => (value as Module | undefined)?.name === name);
  if (!module) throw new Error(`src/modules/${name}/index.ts exports no module named ${name}`);
  return module as Module;
}

load()
  .then((module) => module.run({ params, inputs, outputDir, modelsDir, signal: controller.signal, fetchInput }))
  .then(
    (outputs) => parentPort?.postMessage({ ok: true, outputs }),
    (error: unknown) => parentPort?.postMessage({ ok: false, error: serializeError(error) }),
  );
