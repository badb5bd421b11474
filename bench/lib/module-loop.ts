// The work of one job's heavy step without Mixdown around it: a module (src/modules/<name>) run on a file
// in this plain process, RUNS times in a row, with no worker thread, database or object store.
// bench/distributed.ts runs one and two of these at once to measure how far this machine itself scales
// the same work. Like a Mixdown worker after its warm-up job, each first runs the module once untimed (loading
// its code and models), prints "warm", and starts the timed runs when a line arrives on stdin, so that two
// processes start together. Usage: node module-loop.ts <module> <file> <runs> [params as JSON; defaults fill in]
import { moduleRunner } from "./run-module.ts";

const [name = "", file = "", runs = "1", paramsJson = "{}"] = process.argv.slice(2);
const runner = await moduleRunner(name, file, JSON.parse(paramsJson) as Record<string, unknown>);
try {
  await runner.runOnce();
  process.stdout.write("warm\n");
  await new Promise((resolve) => process.stdin.once("data", resolve));
  process.stdin.pause();
  for (let run = 0; run < Number(runs); run++) await runner.runOnce();
} finally {
  runner.dispose();
}
