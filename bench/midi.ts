/**
 * MIDI transcription speed: the audio-to-midi module on a 30 s track with Mixdown's copy kernels for tfjs' WASM
 * backend (src/modules/audio-to-midi/copy-kernels.ts) ÷ the same with tfjs' own kernels, side by side: each round
 * runs both, one after the other, in fresh processes (bench/lib/midi-transcribe.ts). Goal: at least 1.3× faster.
 * Settings: BENCH_ROUNDS (3), BENCH_RUNS (transcriptions per process, 4). Run: node bench/midi.ts
 */
import { execFile } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { promisify } from "node:util";
import { encodeWav, generateTrack, suiteSpecs } from "../test/music/generator.ts";
import { envInt, makeTempDir, printTable, round, runBench } from "./lib/harness.ts";

const ROUNDS = envInt("BENCH_ROUNDS", 3);
const RUNS = envInt("BENCH_RUNS", 4);
const GOAL = 1.3;

interface Figures {
  secondsPerJob: number;
  cpuSecondsPerJob: number;
}

async function transcribe(kernels: "mixdown" | "tfjs", file: string): Promise<Figures> {
  const script = path.join(import.meta.dirname, "lib/midi-transcribe.ts");
  const { stdout } = await promisify(execFile)(process.execPath, [script, kernels, file, String(RUNS)]);
  return JSON.parse(stdout.trim().split("\n").at(-1) ?? "") as Figures;
}

runBench(async () => {
  const file = path.join(makeTempDir("mixdown-bench-midi-"), "track-30s.wav");
  const spec = suiteSpecs()[3] as ReturnType<typeof suiteSpecs>[number];
  fs.writeFileSync(file, encodeWav(generateTrack({ ...spec, durationSeconds: 30 })));
  const runs = { mixdown: [] as Figures[], tfjs: [] as Figures[] };
  for (let r = 0; r < ROUNDS; r++) {
    runs.tfjs.push(await transcribe("tfjs", file));
    runs.mixdown.push(await transcribe("mixdown", file));
  }
  const fastest = (list: Figures[]) => list.reduce((a, b) => (b.secondsPerJob < a.secondsPerJob ? b : a));
  const tfjs = fastest(runs.tfjs);
  const mixdown = fastest(runs.mixdown);
  const speedup = tfjs.secondsPerJob / mixdown.secondsPerJob;
  console.log(`MIDI of a 30 s track, ${RUNS} transcriptions per process, best of ${ROUNDS} rounds:`);
  printTable([
    ["kernels", "s per job", "CPU s per job"],
    ["tfjs' own", round(tfjs.secondsPerJob), round(tfjs.cpuSecondsPerJob)],
    ["Mixdown's copy kernels", round(mixdown.secondsPerJob), round(mixdown.cpuSecondsPerJob)],
  ]);
  console.log(`speed-up: ${speedup.toFixed(2)}× (goal ≥ ${GOAL}×: ${speedup >= GOAL ? "met" : "NOT met"})`);
  console.log(JSON.stringify({ bench: "midi", tfjs, mixdown, speedup, goal: GOAL, goalMet: speedup >= GOAL }));
});
