// The work of one job's heavy step without Mixdown around it: a module (src/modules/<name>) run on a file
// in this plain process, RUNS times in a row, with no worker thread, database or object store.
// bench/distributed.ts runs one and two of these at once to measure how far this machine itself scales
// the same work. Like a Mixdown worker after its warm-up job, each first runs the module once untimed (loading
// its code and models), prints "warm", and starts the timed runs when a line arrives on stdin, so that two
// processes start together. Usage: node module-loop.ts <module> <file> <runs> [params as JSON; defaults fill in]
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
const runOnce = () =>
  module.run({
    params: structuredClone(params),
    inputs: { audio: file },
    outputDir,
    modelsDir: outputDir,
    signal: new AbortController().signal,
    fetchInput: () => Promise.reject(new Error("no fetching here")),
  });
try {
  await runOnce();
  process.stdout.write("warm\n");
  await new Promise((resolve) => process.stdin.once("data", resolve));
  process.stdin.pause();
  for (let run = 0; run < Number(runs); run++) await runOnce();
} finally {
  fs.rmSync(outputDir, { recursive: true, force: true });
}
