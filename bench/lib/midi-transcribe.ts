// MIDI transcription (the audio-to-midi module's decode + basic-pitch + note decoding) of a file, RUNS times in a
// row after one warm-up run, in this plain process; prints {"secondsPerJob", "cpuSecondsPerJob"} (the CPU of all
// this process's threads; ffmpeg's decoding, a few % of it, not counted). KERNELS: "mixdown" (the module as it
// runs, with copy-kernels.ts) or "tfjs" (tfjs' own Concat, Pack, Slice and StridedSlice put back).
// bench/midi.ts runs both side by side. Usage: node midi-transcribe.ts <mixdown|tfjs> <file> <runs>
import * as tf from "@tensorflow/tfjs";
import "@tensorflow/tfjs-backend-wasm";
import { loadModel } from "../../src/modules/audio-to-midi/model.ts";
import { moduleRunner } from "./run-module.ts";

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
const runner = await moduleRunner("audio-to-midi", file);
try {
  await runner.runOnce();
  const cpu = process.cpuUsage();
  const start = performance.now();
  for (let run = 0; run < Number(runs); run++) await runner.runOnce();
  const seconds = (performance.now() - start) / 1000;
  const used = process.cpuUsage(cpu);
  console.log(
    JSON.stringify({
      secondsPerJob: seconds / Number(runs),
      cpuSecondsPerJob: (used.user + used.system) / 1e6 / Number(runs),
    }),
  );
} finally {
  runner.dispose();
}
