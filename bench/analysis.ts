/**
 * Music analysis speed: beats + downbeats + key + chords on a 3-minute 44.1 kHz stereo track, excluding
 * decoding, with its real-time factor; and the decode of the same file (to 22.05 kHz mono) as the floor.
 * Goal: analysis under 1 s on one core. Run: node bench/analysis.ts
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { ANALYSIS_SAMPLE_RATE, analyzeMusic } from "../src/dsp/analyze-music.ts";
import { findSections } from "../src/dsp/sections.ts";
import { decodeAudio } from "../src/media/pcm.ts";
import { encodeWav, generateTrack, suiteSpecs } from "../test/music/generator.ts";

const RUNS = 5;
const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] as number;

const dir = fs.mkdtempSync(path.join(os.tmpdir(), "mixdown-bench-analysis-"));
try {
  const spec = {
    ...(suiteSpecs()[5] as ReturnType<typeof suiteSpecs>[number]),
    durationSeconds: 180,
    sampleRate: 44100,
  };
  const file = path.join(dir, "track.wav");
  fs.writeFileSync(file, encodeWav(generateTrack(spec)));

  const decodeTimes: number[] = [];
  const analysisTimes: number[] = [];
  const sectionTimes: number[] = [];
  let result: ReturnType<typeof analyzeMusic> | undefined;
  for (let run = 0; run < RUNS; run++) {
    let start = performance.now();
    const pcm = await decodeAudio(file, { sampleRate: ANALYSIS_SAMPLE_RATE, channels: 1 });
    decodeTimes.push(performance.now() - start);
    start = performance.now();
    result = analyzeMusic(pcm.channels[0] as Float32Array, pcm.sampleRate);
    analysisTimes.push(performance.now() - start);
    start = performance.now();
    findSections(pcm.channels[0] as Float32Array, pcm.sampleRate, result.beats);
    sectionTimes.push(performance.now() - start);
  }
  const analysisMs = median(analysisTimes);
  const decodeMs = median(decodeTimes);
  console.log(`3-minute 44.1 kHz stereo track (${spec.bpm} BPM, ${spec.meter}/4), ${RUNS} runs, medians:`);
  console.log(`  decode to 22.05 kHz mono (ffmpeg, the floor): ${decodeMs.toFixed(0)} ms`);
  console.log(`  analysis (tempo, beats, downbeats, chroma, chords, key): ${analysisMs.toFixed(0)} ms`);
  console.log(
    `  real-time factor of the analysis: ${(analysisMs / 1000 / 180).toFixed(4)} (${(180_000 / analysisMs).toFixed(0)}× faster than real time)`,
  );
  console.log(`  goal: analysis < 1000 ms — ${analysisMs < 1000 ? "met" : "NOT met"}`);
  console.log(`  song sections (mixdown/sections, after the analysis' beats): ${median(sectionTimes).toFixed(0)} ms`);
  console.log(
    `  result: ${result?.bpm} BPM, ${result?.key}, ${result?.beats.length} beats, ${result?.chords.length} chord spans`,
  );
  console.log(
    JSON.stringify({
      bench: "analysis",
      decodeMs,
      analysisMs,
      sectionsMs: median(sectionTimes),
      realTimeFactor: analysisMs / 180_000,
      runs: RUNS,
    }),
  );
} finally {
  fs.rmSync(dir, { recursive: true, force: true });
}
