// Runs the benches one after the other, each in its own process; the last line is one JSON with all figures.
// Usage: node bench/run-all.ts [NAME…] [--list]   (through npm, on any Node: npm run bench -- NAME)
// NAME is a bench's file name, with or without ".ts" (e.g. `status-throughput`): that bench runs, also one left
// out of the full sequence; otherwise the benches of the sequence whose file name contains NAME (e.g. `status`).
// A NAME that matches no bench stops the run before anything starts (exit 2), listing the names.
import { type ChildProcess, spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";

/** The full sequence, in order. */
const BENCHES = [
  "status-throughput.ts",
  "rate-limit-overhead.ts",
  "events.ts",
  "upload-throughput.ts",
  "responsiveness.ts",
  "analysis.ts",
  "separation.ts",
  "midi.ts",
  "wav-write.ts",
  "probe-throughput.ts",
  "webhooks.ts",
  "dashboard.ts",
];
/** Every bench in this folder (the sequence, and those run only when named: distributed, s3-put, …). */
const ALL = fs
  .readdirSync(import.meta.dirname)
  .filter((name) => name.endsWith(".ts") && name !== "run-all.ts" && !name.endsWith("-lib.ts"))
  .sort();

const args = process.argv.slice(2);
if (args.includes("--list")) {
  for (const name of ALL)
    console.log(`${name.replace(/\.ts$/, "")}${BENCHES.includes(name) ? "" : "  (only when named)"}`);
  process.exit(0);
}
const selected: string[] = [];
for (const filter of args) {
  const exact = ALL.find((name) => name === filter || name === `${filter}.ts`);
  const matches = exact ? [exact] : BENCHES.filter((name) => name.includes(filter));
  if (matches.length === 0) {
    console.error(`bench: no bench is named or contains "${filter}". The benches (run-all.ts --list):`);
    for (const name of ALL) console.error(`  ${name.replace(/\.ts$/, "")}`);
    process.exit(2);
  }
  for (const name of matches) if (!selected.includes(name)) selected.push(name);
}
if (args.length === 0) selected.push(...BENCHES);

let current: ChildProcess | undefined;
let interrupted: NodeJS.Signals | undefined;
for (const signal of ["SIGINT", "SIGTERM"] as const) {
  process.on(signal, () => {
    interrupted = signal;
    current?.kill(signal); // the bench cleans up, then exits
  });
}

/** Runs one bench, echoing its output; resolves to its exit code and last JSON line. */
function run(name: string): Promise<{ code: number; result: unknown }> {
  const child = spawn(process.execPath, [path.join(import.meta.dirname, name)], {
    stdio: ["ignore", "pipe", "inherit"],
  });
  current = child;
  let last = "";
  child.stdout.on("data", (chunk: Buffer) => {
    process.stdout.write(chunk);
    last = (last + chunk.toString()).split("\n").slice(-2).join("\n");
  });
  return new Promise((resolve) => {
    child.on("exit", (code) => {
      const line = last.trim().split("\n").at(-1) ?? "";
      let result: unknown = null;
      try {
        result = JSON.parse(line);
      } catch {}
      resolve({ code: code ?? 1, result });
    });
  });
}

const results: Record<string, unknown> = {};
const failed: string[] = [];
for (const name of selected) {
  if (interrupted) break;
  console.log(`\n=== ${name} ===`);
  const { code, result } = await run(name);
  results[name.replace(/\.ts$/, "")] = result;
  if (code !== 0) failed.push(name);
}
console.log(JSON.stringify({ bench: "all", results, failed }));
process.exitCode = interrupted ? 128 + os.constants.signals[interrupted] : failed.length > 0 ? 1 : 0;
