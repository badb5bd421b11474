import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { checkParams } from "../../src/engine/execute.ts";
import type { Module } from "../../src/engine/types.ts";

/**
 * A module (src/modules/<name>) run on a file in this plain process, with no worker thread, database or object
 * store: `runOnce()` runs it (params checked once, the module's defaults filled in); `dispose()` removes its output.
 */
export async function moduleRunner(
  name: string,
  file: string,
  params: Record<string, unknown> = {},
): Promise<{ runOnce(): Promise<unknown>; dispose(): void }> {
  const exports = (await import(`../../src/modules/${name}/index.ts`)) as Record<string, Module>;
  const module = Object.values(exports).find((value) => value?.name === name);
  if (!module) throw new Error(`no module named ${name}`);
  checkParams(module, name, params);
  const outputDir = fs.mkdtempSync(path.join(os.tmpdir(), `mixdown-bench-${name}-`));
  return {
    runOnce: () =>
      module.run({
        params: structuredClone(params),
        inputs: { audio: file },
        outputDir,
        modelsDir: outputDir,
        signal: new AbortController().signal,
        fetchInput: () => Promise.reject(new Error("no fetching here")),
      }),
    dispose: () => fs.rmSync(outputDir, { recursive: true, force: true }),
  };
}
