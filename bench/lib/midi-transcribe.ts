// MIDI transcription (the audio-to-midi module's decode + basic-pitch + note decoding) of a file, RUNS times in a
// row after one warm-up run, in this plain process; prints {"secondsPerJob", "cpuSecondsPerJob"} (the CPU of all
// this process's threads; ffmpeg's decoding, a few % of it, not counted). KERNELS: "mixdown" (the module as it runs, with copy-kernels.ts) or
// "tfjs" (tfjs' own Concat, Pack, Slice and StridedSlice put back). bench/midi.ts runs both side by side.
// Usage: node midi-transcribe.ts <mixdown|tfjs> <file> <runs>
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import * as tf from "@tensorflow/tfjs";
import "@tensorflow/tfjs-backend-wasm";
import { audioToMidiModule } from "../../src/modules/audio-to-midi/index.ts";
import { loadModel } from "../../src/modules/audio-to-midi/model.ts";

const [kernels = "", file = "", runs = "1"] = process.argv.slice(2);
if (kernels !== "mixdown" && kernels !== "tfjs") throw new Error(`KERNELS must be mixdown or tfjs, got ${kernels}`);
const tfjsOwn = ["Concat", "Pack", "Slice", "StridedSlice"].map((name) => tf.getKernel(name, "wasm"));
await loadModel();
if (kernels === "tfjs") {
  for (const config of tfjsOwn) {
    if (!config) throw new Error("tfjs' WASM backend lacks a kernel");
    tf.unregisterKernel(config.kernelName, "wasm");
    tf.registerKernel(config);
  }
}
const outputDir = fs.mkdtempSync(path.join(os.tmpdir(), "mixdown-midi-transcribe-"));
const params = { onsetThreshold: 0.5, frameThreshold: 0.3, minNoteLengthMs: 127.7 };
const transcribe = () =>
  audioToMidiModule.run({
    params,
    inputs: { audio: file },
    outputDir,
    modelsDir: outputDir,
    signal: new AbortController().signal,
    fetchInput: () => Promise.reject(new Error("no fetching here")),
  });
try {
  await transcribe();
  const cpu = process.cpuUsage();
  const start = performance.now();
  for (let run = 0; run < Number(runs); run++) await transcribe();
  const seconds = (performance.now() - start) / 1000;
  const used = process.cpuUsage(cpu);
  console.log(
    JSON.stringify({
      secondsPerJob: seconds / Number(runs),
      cpuSecondsPerJob: (used.user + used.system) / 1e6 / Number(runs),
    }),
  );
} finally {
  fs.rmSync(outputDir, { recursive: true, force: true });
}
