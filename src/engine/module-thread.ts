import { parentPort, workerData } from "node:worker_threads";
import { lowerPriority } from "../media/run-tool.ts";
import { MODULES } from "../modules/index.ts";
import { serializeError } from "./thread-errors.ts";

/** Worker-thread entry: runs one heavy module with the inputs it was given and posts its outputs back. */
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
const module = MODULES.get(name);
const controller = new AbortController();
const fetchInput = () => Promise.reject(new Error("fetchInput is not available in a worker thread"));

if (!module) {
  parentPort?.postMessage({ ok: false, error: { message: `unknown module ${name}` } });
} else {
  module.run({ params, inputs, outputDir, modelsDir, signal: controller.signal, fetchInput }).then(
    (outputs) => parentPort?.postMessage({ ok: true, outputs }),
    (error: unknown) => parentPort?.postMessage({ ok: false, error: serializeError(error) }),
  );
}
