/**
 * How the metrical level climbed on each track of the development plan (tracks.ts; never the held-out families):
 * the truth's tempo, the level's, and every step from the fast pulse with the grouping ratios it weighed against
 * the ratio needed (src/dsp/metrical-level.ts), to see why a tempo is read at half, double or a third.
 * Run: node test/families/metrical-level-report.ts [substring of track ids]
 */
import { ANALYSIS_SAMPLE_RATE } from "../../src/dsp/analyze-music.ts";
import { findMetricalLevel } from "../../src/dsp/metrical-level.ts";
import { onsetEnvelope } from "../../src/dsp/onsets.ts";
import { decodeAudio } from "../../src/media/pcm.ts";
import { tempoVerdict } from "../helpers/mir-metrics.ts";
import { renderedFamilyTracks } from "./cache.ts";
import { describeClimbStep } from "./climb-step.ts";
import { developmentPlan } from "./tracks.ts";

const filter = process.argv[2] ?? "";

const tracks = await renderedFamilyTracks(developmentPlan(), (line) => console.error(line));
const verdicts = new Map<string, number>();
for (const track of tracks.filter((t) => t.id.includes(filter))) {
  const pcm = await decodeAudio(track.mixture, { sampleRate: ANALYSIS_SAMPLE_RATE, channels: 1 });
  const level = findMetricalLevel(onsetEnvelope(pcm.channels[0] as Float32Array, pcm.sampleRate));
  const verdict = tempoVerdict(track.truth.bpm, level.bpm, 0.04);
  verdicts.set(verdict, (verdicts.get(verdict) ?? 0) + 1);
  console.log(`${track.id}: truth ${track.truth.bpm}, level ${level.bpm.toFixed(1)} (${verdict})`);
  for (const step of level.steps) console.log(`  ${describeClimbStep(step)}`);
}
console.log(`levels: ${[...verdicts].map(([verdict, n]) => `${verdict} ${n}`).join(", ")}`);
