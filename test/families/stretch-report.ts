/**
 * Whether the bpm follows a time stretch on the development plan's tracks (tracks.ts; never the held-out
 * families): each track (every n-th, default every fourth) stretched by ×0.85 and ×1.15 (sox `tempo -m`, as
 * test/analysis/invariance.ts does), its bpm against the original's times the factor (±3 %), and where it does not
 * follow, the metrical level's climb (src/dsp/metrical-level.ts) on both, to see which step flipped.
 * Run: node test/families/stretch-report.ts [n]
 */
import { execFile } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { ANALYSIS_SAMPLE_RATE, analyzeMusic } from "../../src/dsp/analyze-music.ts";
import { type ClimbStep, findMetricalLevel } from "../../src/dsp/metrical-level.ts";
import { onsetEnvelope } from "../../src/dsp/onsets.ts";
import { decodeAudio } from "../../src/media/pcm.ts";
import { renderedFamilyTracks } from "./cache.ts";
import { developmentPlan } from "./tracks.ts";

const execFileAsync = promisify(execFile);
const every = Number(process.argv[2] ?? 4);
const STRETCHES = [0.85, 1.15];
const TOLERANCE = 0.03;

const describe = (s: ClimbStep) =>
  s.outcome === "doubled"
    ? "doubled (eight-beat pattern)"
    : `${s.fromBpm.toFixed(1)}: ${s.ratios.map((r) => `by ${r.size} ${r.ratio.toFixed(2)}`).join(", ")} ` +
      `(needed < ${s.needed.toFixed(2)}) → ${s.outcome}`;

async function analyse(file: string) {
  const pcm = await decodeAudio(file, { sampleRate: ANALYSIS_SAMPLE_RATE, channels: 1 });
  const signal = pcm.channels[0] as Float32Array;
  return {
    bpm: analyzeMusic(signal, pcm.sampleRate).bpm,
    level: findMetricalLevel(onsetEnvelope(signal, pcm.sampleRate)),
  };
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
      await execFileAsync("sox", [track.mixture, stretched, "tempo", "-m", String(factor)]);
      const moved = await analyse(stretched);
      counts.total++;
      const follows =
        original.bpm !== null && moved.bpm !== null && Math.abs(moved.bpm / (original.bpm * factor) - 1) <= TOLERANCE;
      if (follows) {
        counts.follows++;
        continue;
      }
      if (original.bpm !== null && moved.bpm === null) counts.toNull++;
      if (Math.abs(moved.level.bpm / (original.level.bpm * factor) - 1) > TOLERANCE) counts.levelFlips++;
      console.log(`${track.id} ×${factor}: bpm ${original.bpm} → ${moved.bpm} (truth ${track.truth.bpm})`);
      for (const [name, run] of [
        ["original", original],
        ["stretched", moved],
      ] as const) {
        console.log(`  ${name}, level ${run.level.bpm.toFixed(1)}`);
        for (const step of run.level.steps) console.log(`    ${describe(step)}`);
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
