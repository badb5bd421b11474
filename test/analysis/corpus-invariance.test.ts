/**
 * Properties of the music analysis that need no labels (issue 18, part 2), on every track of the rendered
 * corpus: transposed by −5…+6 semitones (sox `pitch`), the key and the chord roots should move by the same
 * interval; time-stretched by ×0.85…×1.15 (sox `tempo -m`), the bpm should scale by the same factor (±3 %).
 * Goals: ≥ 95 % of tracks each. The held-out key floor is at the goal (reached); the other floors are the
 * measured figures less about two tracks, so a regression fails (~6 min of CPU).
 */
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { test } from "node:test";
import { promisify } from "node:util";
import { ANALYSIS_SAMPLE_RATE, analyzeMusic, type MusicAnalysis } from "../../src/dsp/analyze-music.ts";
import { decodeAudio } from "../../src/media/pcm.ts";
import { renderedCorpus, type Split } from "../corpus/corpus.ts";
import { chordOverlap } from "../helpers/mir-metrics.ts";
import { PITCH_NAMES } from "../music/theory.ts";

const execFileAsync = promisify(execFile);
const SHIFTS = [-5, -4, -3, -2, -1, 1, 2, 3, 4, 5, 6];
const STRETCHES = [0.85, 0.88, 0.91, 0.94, 0.97, 1.03, 1.06, 1.09, 1.12, 1.15];
/**
 * Measured: development key 98.3 %, chords 0.874, bpm 98.3 %; held-out 95 % / 0.872 / 95 % (before the tempo
 * prior and the 60 BPM bound on eight-beat doubling in metrical-level.ts: 98.3 % / 0.873 / 98.3 % and 95 % / 0.853 /
 * 85 %; before the tuning split was tuned on: 100 % / 0.824 / 96.7 % and 95 % / 0.796 / 77.5 %; when the corpus was
 * added: 80 % / 0.81 / 93.3 % and 87.5 % / 0.81 / 82.5 %). On the tuning split's time-stretched copies (not
 * asserted; MIXDOWN_INVARIANCE_SPLITS=tuning) the bpm follows on 97 % (96 % before the fast pulse was tracked
 * on drum hits, 95 % before the backbeat check of metrical-level.ts, 94 % before the tempo prior).
 */
const FLOORS = {
  development: { keyFollows: 0.95, chordsFollowMean: 0.85, tempoFollows: 0.95 },
  "held-out": { keyFollows: 0.95, chordsFollowMean: 0.84, tempoFollows: 0.9 },
};

/**
 * The splits measured: development and held-out, or those named in MIXDOWN_INVARIANCE_SPLITS (comma-separated), so
 * tuning can be measured without looking at held-out. Tuning has no floors: it is reported, not asserted.
 */
const SPLITS_TO_MEASURE = (process.env.MIXDOWN_INVARIANCE_SPLITS ?? "development,held-out")
  .split(",")
  .map((s) => s.trim()) as Split[];

const analyse = async (file: string): Promise<MusicAnalysis> => {
  const pcm = await decodeAudio(file, { sampleRate: ANALYSIS_SAMPLE_RATE, channels: 1 });
  return analyzeMusic(pcm.channels[0] as Float32Array, pcm.sampleRate);
};

interface Row {
  id: string;
  shift: number;
  key: string;
  keyFollows: boolean;
  chordsFollow: number;
  stretch: number;
  bpm: string;
  tempoFollows: boolean;
}

/** "F#m" or "A minor" moved by `semitones` in the same spelling; "N" stays. */
function transpose(label: string, semitones: number): string {
  const match = /^([A-G][#b]?)(.*)$/.exec(label);
  if (!match) return label;
  const index = PITCH_NAMES.indexOf(match[1] as (typeof PITCH_NAMES)[number]);
  return `${PITCH_NAMES[(((index + semitones) % 12) + 12) % 12]}${match[2]}`;
}

test("music analysis follows transposition and time-stretching of the corpus", async (t) => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "mixdown-invariance-"));
  try {
    for (const split of SPLITS_TO_MEASURE) {
      const rows: Row[] = [];
      const tracks = await renderedCorpus(split);
      for (const [i, track] of tracks.entries()) {
        const shift = SHIFTS[i % SHIFTS.length] as number;
        const stretch = STRETCHES[(i * 7) % STRETCHES.length] as number;
        const shifted = path.join(dir, "shifted.wav");
        const stretched = path.join(dir, "stretched.wav");
        await execFileAsync("sox", [track.mixture, shifted, "pitch", String(100 * shift)]);
        await execFileAsync("sox", [track.mixture, stretched, "tempo", "-m", String(stretch)]);
        const original = await analyse(track.mixture);
        const moved = await analyse(shifted);
        const faster = await analyse(stretched);
        const expectedChords = original.chords.map((c) => ({ ...c, chord: transpose(c.chord, shift) }));
        rows.push({
          id: track.id,
          shift,
          key: `${original.key}→${moved.key}`,
          keyFollows: original.key !== null && moved.key === transpose(original.key, shift),
          chordsFollow: chordOverlap(expectedChords, moved.chords),
          stretch,
          bpm: `${original.bpm}→${faster.bpm}`,
          tempoFollows:
            original.bpm !== null && faster.bpm !== null && Math.abs(faster.bpm / (original.bpm * stretch) - 1) <= 0.03,
        });
      }
      for (const r of rows) t.diagnostic(`${JSON.stringify(r)}`);
      const share = (pick: (r: Row) => boolean) => rows.filter(pick).length / rows.length;
      const summary = {
        keyFollows: share((r) => r.keyFollows),
        chordsFollowMean: rows.reduce((a, r) => a + r.chordsFollow, 0) / rows.length,
        chordsFollowAtLeast90Percent: share((r) => r.chordsFollow >= 0.9),
        tempoFollows: share((r) => r.tempoFollows),
      };
      t.diagnostic(`summary ${split}: ${JSON.stringify({ tracks: rows.length, ...summary })}`);
      if (split === "tuning") continue;
      const floors = FLOORS[split];
      assert.ok(summary.keyFollows >= floors.keyFollows, `${split}: key follows on ${summary.keyFollows}`);
      assert.ok(summary.chordsFollowMean >= floors.chordsFollowMean, `${split}: chords ${summary.chordsFollowMean}`);
      assert.ok(summary.tempoFollows >= floors.tempoFollows, `${split}: bpm follows on ${summary.tempoFollows}`);
    }
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
