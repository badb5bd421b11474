import { parentPort, workerData } from "node:worker_threads";
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
