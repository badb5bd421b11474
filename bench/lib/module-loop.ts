// The work of one job's heavy step without Mixdown around it: a module (src/modules/<name>) run on a file
// in this plain process, RUNS times in a row, with no worker thread, database or object store.
// bench/distributed.ts runs one and two of these at once to measure how far this machine itself scales
// the same work. Usage: node module-loop.ts <module> <file> <runs> [params as JSON; the module's defaults fill in]
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { checkParams } from "../../src/engine/execute.ts";
import type { Module } from "../../src/engine/types.ts";

const [name = "", file = "", runs = "1", paramsJson = "{}"] = process.argv.slice(2);
const exports = (await import(`../../src/modules/${name}/index.ts`)) as Record<string, Module>;
const module = Object.values(exports).find((value) => value?.name === name);
if (!module) throw new Error(`no module named ${name}`);
const params = JSON.parse(paramsJson) as Record<string, unknown>;
checkParams(module, name, params);
const outputDir = fs.mkdtempSync(path.join(os.tmpdir(), "mixdown-module-loop-"));
try {
  for (let run = 0; run < Number(runs); run++) {
    await module.run({
      params: structuredClone(params),
      inputs: { audio: file },
      outputDir,
      modelsDir: outputDir,
      signal: new AbortController().signal,
      fetchInput: () => Promise.reject(new Error("no fetching here")),
    });
  }
} finally {
  fs.rmSync(outputDir, { recursive: true, force: true });
}
