import fsp from "node:fs/promises";
import path from "node:path";
import * as tf from "@tensorflow/tfjs";
import { setWasmPaths } from "@tensorflow/tfjs-backend-wasm";
import { registerCopyKernels } from "./copy-kernels.ts";
import { modelFiles } from "./files.ts";

let ready: Promise<tf.GraphModel> | undefined;

/**
 * Selects tfjs' WASM backend (useWasmBackend) and loads basic-pitch's graph model through an IO handler reading
 * model.json and its weight shards, so nothing is fetched over the network. Once per thread.
 */
export function loadModel(): Promise<tf.GraphModel> {
  ready ??= load().catch((error: unknown) => {
    ready = undefined;
    throw error;
  });
  return ready;
}

/** tfjs' WASM backend, its binary read from disk, with the faster copying kernels of copy-kernels.ts. */
export async function useWasmBackend(): Promise<void> {
  // A directory prefix: in Node, the Emscripten loader reads `${prefix}tfjs-backend-wasm-simd.wasm` (or the
  // plain one without SIMD) with fs.
  setWasmPaths(`${modelFiles().wasmDir}${path.sep}`);
  registerCopyKernels();
  if (!(await tf.setBackend("wasm"))) throw new Error("the tfjs WASM backend failed to initialise");
}

async function load(): Promise<tf.GraphModel> {
  await useWasmBackend();
  const { modelJson } = modelFiles();
  const json = JSON.parse(await fsp.readFile(modelJson, "utf8")) as tf.io.ModelJSON;
  const artifacts = await tf.io.getModelArtifactsForJSON(json, async (manifest) => {
    const shards = await Promise.all(
      manifest.flatMap((group) => group.paths).map((file) => fsp.readFile(path.join(path.dirname(modelJson), file))),
    );
    const buffers = shards.map((b) => b.buffer.slice(b.byteOffset, b.byteOffset + b.byteLength) as ArrayBuffer);
    return [manifest.flatMap((group) => group.weights), tf.io.concatenateArrayBuffers(buffers)];
  });
  return tf.loadGraphModel({ load: async () => artifacts });
}
