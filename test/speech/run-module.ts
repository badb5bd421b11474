import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import type { Module } from "../../src/engine/types.ts";

/** Runs a module directly on a WAV (as the engine would, minus the worker thread) in a scratch dir of its own. */
export async function runModule(
  module: Module,
  wav: Buffer,
  params: Record<string, unknown>,
  modelsDir = os.tmpdir(),
): Promise<{ outputs: Record<string, unknown>; dir: string }> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), `mixdown-${module.name}-`));
  const input = path.join(dir, "input.wav");
  fs.writeFileSync(input, wav);
  const outputDir = path.join(dir, "out");
  fs.mkdirSync(outputDir);
  const outputs = await module.run({
    params,
    inputs: { audio: input },
    outputDir,
    modelsDir,
    signal: new AbortController().signal,
    fetchInput: () => Promise.reject(new Error("no fetching in module tests")),
  });
  return { outputs, dir };
}

export const readJson = (file: unknown): any => JSON.parse(fs.readFileSync(String(file), "utf8"));
