/**
 * Whether the bpm follows a time stretch on the development plan's tracks (tracks.ts; never the held-out
 * families): each track (every n-th, default every fourth) stretched by ×0.85 and ×1.15 as
 * test/analysis/invariance.ts does, its bpm against the original's times the factor (±3 %), and where it does not
 * follow, the metrical level's climb (src/dsp/metrical-level.ts) on both, to see which step flipped.
 * Run: node test/families/stretch-report.ts [n]
 */
import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { ANALYSIS_SAMPLE_RATE, analyzeMusic } from "../../src/dsp/analyze-music.ts";
import { findMetricalLevel, type MetricalLevel } from "../../src/dsp/metrical-level.ts";
import { onsetEnvelope } from "../../src/dsp/onsets.ts";
import { decodeAudio } from "../../src/media/pcm.ts";
import { bpmFollows, stretchCopy } from "../analysis/invariance.ts";
import { renderedFamilyTracks } from "./cache.ts";
import { describeClimbStep } from "./climb-step.ts";
import { developmentPlan } from "./tracks.ts";

const every = Number(process.argv[2] ?? 4);
const STRETCHES = [0.85, 1.15];

async function analyse(file: string) {
  const pcm = await decodeAudio(file, { sampleRate: ANALYSIS_SAMPLE_RATE, channels: 1 });
  const signal = pcm.channels[0] as Float32Array;
  // The metrical level again, with its steps, only for a copy whose bpm did not follow (once per copy).
  let found: MetricalLevel | undefined;
  const level = () => {
    found ??= findMetricalLevel(onsetEnvelope(signal, pcm.sampleRate));
    return found;
  };
  return { bpm: analyzeMusic(signal, pcm.sampleRate).bpm, level };
}

const tracks = (await renderedFamilyTracks(developmentPlan(), (line) => console.error(line))).filter(
  (_, i) => i % every === 0,
);
const scratch = await mkdtemp(path.join(os.tmpdir(), "mixdown-stretch-"));
const counts = { follows: 0, toNull: 0, levelFlips: 0, total: 0 };
try {
  for (const track of tracks) {
    const original = await analyse(track.mixture);
    for (const factor of STRETCHES) {
      const stretched = path.join(scratch, "stretched.wav");
      await stretchCopy(track.mixture, stretched, factor);
      const moved = await analyse(stretched);
      counts.total++;
      if (bpmFollows(original.bpm, moved.bpm, factor)) {
        counts.follows++;
        continue;
      }
      if (original.bpm !== null && moved.bpm === null) counts.toNull++;
      const levels = { original: original.level(), stretched: moved.level() };
      if (!bpmFollows(levels.original.bpm, levels.stretched.bpm, factor)) counts.levelFlips++;
      console.log(`${track.id} ×${factor}: bpm ${original.bpm} → ${moved.bpm} (truth ${track.truth.bpm})`);
      for (const [name, level] of Object.entries(levels)) {
        console.log(`  ${name}, level ${level.bpm.toFixed(1)}`);
        for (const step of level.steps) console.log(`    ${describeClimbStep(step)}`);
      }
    }
  }
} finally {
  await rm(scratch, { recursive: true, force: true });
}
console.log(
  `bpm follows on ${counts.follows} of ${counts.total} stretched copies; of the rest, the metrical level did not ` +
    `follow on ${counts.levelFlips}, the bpm went null on ${counts.toNull}`,
);
