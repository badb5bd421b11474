/**
 * Properties of the music analysis that need no labels (issues 18 and 52): a track transposed by −5…+6 semitones
 * (sox `pitch`) should move its key and chord roots by the same interval; time-stretched by ×0.85…×1.15 (sox
 * `tempo -m`), its bpm should scale by the same factor (±3 %). Shared by the corpus test
 * (corpus-invariance.test.ts) and the family report (test/families/report.ts --invariance).
 */
import { execFile } from "node:child_process";
import path from "node:path";
import { promisify } from "node:util";
import { ANALYSIS_SAMPLE_RATE, analyzeMusic, type MusicAnalysis } from "../../src/dsp/analyze-music.ts";
import { decodeAudio } from "../../src/media/pcm.ts";
import { chordOverlap } from "../helpers/mir-metrics.ts";
import { PITCH_NAMES } from "../music/theory.ts";

const execFileAsync = promisify(execFile);
export const SHIFTS = [-5, -4, -3, -2, -1, 1, 2, 3, 4, 5, 6];
export const STRETCHES = [0.85, 0.88, 0.91, 0.94, 0.97, 1.03, 1.06, 1.09, 1.12, 1.15];

export interface InvarianceRow {
  id: string;
  shift: number;
  key: string;
  keyFollows: boolean;
  chordsFollow: number;
  stretch: number;
  bpm: string;
  tempoFollows: boolean;
}

/** `input` time-stretched by `factor` (faster above 1) into `output`, as the invariance tests do it. */
export async function stretchCopy(input: string, output: string, factor: number): Promise<void> {
  await execFileAsync("sox", [input, output, "tempo", "-m", String(factor)]);
}

/** Whether a bpm read on a copy stretched by `factor` is the original's times the factor, within 3 %. */
export const bpmFollows = (original: number | null, stretched: number | null, factor: number): boolean =>
  original !== null && stretched !== null && Math.abs(stretched / (original * factor) - 1) <= 0.03;

const analyse = async (file: string): Promise<MusicAnalysis> => {
  const pcm = await decodeAudio(file, { sampleRate: ANALYSIS_SAMPLE_RATE, channels: 1 });
  return analyzeMusic(pcm.channels[0] as Float32Array, pcm.sampleRate);
};

/** "F#m" or "A minor" moved by `semitones` in the same spelling; "N" stays. */
export function transpose(label: string, semitones: number): string {
  const match = /^([A-G][#b]?)(.*)$/.exec(label);
  if (!match) return label;
  const index = PITCH_NAMES.indexOf(match[1] as (typeof PITCH_NAMES)[number]);
  return `${PITCH_NAMES[(((index + semitones) % 12) + 12) % 12]}${match[2]}`;
}

/**
 * The i-th track of a list, transposed and stretched by the i-th shift and stretch of the rotation (the shifted
 * and stretched copies are written to `scratchDir`), and whether its key, chords and bpm followed.
 */
export async function invarianceRow(
  id: string,
  mixture: string,
  i: number,
  scratchDir: string,
): Promise<InvarianceRow> {
  const shift = SHIFTS[i % SHIFTS.length] as number;
  const stretch = STRETCHES[(i * 7) % STRETCHES.length] as number;
  const shifted = path.join(scratchDir, "shifted.wav");
  const stretched = path.join(scratchDir, "stretched.wav");
  await execFileAsync("sox", [mixture, shifted, "pitch", String(100 * shift)]);
  await stretchCopy(mixture, stretched, stretch);
  const original = await analyse(mixture);
  const moved = await analyse(shifted);
  const faster = await analyse(stretched);
  const expectedChords = original.chords.map((c) => ({ ...c, chord: transpose(c.chord, shift) }));
  return {
    id,
    shift,
    key: `${original.key}→${moved.key}`,
    keyFollows: original.key !== null && moved.key === transpose(original.key, shift),
    chordsFollow: chordOverlap(expectedChords, moved.chords),
    stretch,
    bpm: `${original.bpm}→${faster.bpm}`,
    tempoFollows: bpmFollows(original.bpm, faster.bpm, stretch),
  };
}

export function summariseInvariance(rows: readonly InvarianceRow[]) {
  const share = (pick: (r: InvarianceRow) => boolean) => rows.filter(pick).length / rows.length;
  return {
    tracks: rows.length,
    keyFollows: share((r) => r.keyFollows),
    chordsFollowMean: rows.reduce((a, r) => a + r.chordsFollow, 0) / rows.length,
    chordsFollowAtLeast90Percent: share((r) => r.chordsFollow >= 0.9),
    tempoFollows: share((r) => r.tempoFollows),
  };
}
