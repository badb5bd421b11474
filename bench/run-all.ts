// Runs the benches one after the other, each in its own process; the last line is one JSON with all figures.
// Usage: node bench/run-all.ts [name-filter…]   (e.g. `node bench/run-all.ts status`)
import { type ChildProcess, spawn } from "node:child_process";
import os from "node:os";
import path from "node:path";

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
const filters = process.argv.slice(2);
const selected = BENCHES.filter((name) => filters.length === 0 || filters.some((f) => name.includes(f)));

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
