import { Worker } from "node:worker_threads";
import { deserializeError, type SerializedError } from "./thread-errors.ts";

const ENTRY = new URL("./module-thread.ts", import.meta.url);

/** Runs a heavy module in a worker thread of its own; aborting terminates the thread. */
export function runInThread(
  module: string,
  data: { params: Record<string, unknown>; inputs: Record<string, unknown>; outputDir: string; modelsDir: string },
  signal: AbortSignal,
): Promise<Record<string, unknown>> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason);
    const worker = new Worker(ENTRY, { workerData: { module, ...data } });
    const onAbort = () => {
      void worker.terminate();
      reject(signal.reason);
    };
    signal.addEventListener("abort", onAbort, { once: true });
    const settle = () => signal.removeEventListener("abort", onAbort);
    worker.once(
      "message",
      (message: { ok: true; outputs: Record<string, unknown> } | { ok: false; error: SerializedError }) => {
        settle();
        void worker.terminate();
        if (message.ok) resolve(message.outputs);
        else reject(deserializeError(message.error));
      },
    );
    worker.once("error", (error) => {
      settle();
      reject(error);
    });
    worker.once("exit", (code) => {
      settle();
      reject(new Error(`module thread ${module} exited with code ${code} before answering`));
    });
  });
}
