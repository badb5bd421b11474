import fs from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";

const require = createRequire(import.meta.url);

/** basic-pitch's model and tfjs' WASM binaries: files inside node_modules, never fetched. */
export function modelFiles(): { modelJson: string; wasmDir: string } {
  const basicPitch = path.dirname(require.resolve("@spotify/basic-pitch/package.json"));
  const wasm = path.dirname(require.resolve("@tensorflow/tfjs-backend-wasm/package.json"));
  return { modelJson: path.join(basicPitch, "model", "model.json"), wasmDir: path.join(wasm, "dist") };
}

/** Why the model cannot be loaded here (a package or file missing from node_modules), or undefined. */
export function modelUnavailable(): string | undefined {
  let files: { modelJson: string; wasmDir: string };
  try {
    files = modelFiles();
  } catch {
    return "the @spotify/basic-pitch or @tensorflow/tfjs-backend-wasm package is not installed";
  }
  for (const file of [files.modelJson, path.join(files.wasmDir, "tfjs-backend-wasm-simd.wasm")]) {
    if (!fs.existsSync(file)) return `${path.relative(process.cwd(), file)} is missing`;
  }
  return undefined;
}
