/**
 * Properties of the music analysis that need no labels (issue 18, part 2; invariance.ts), on every track of the
 * rendered corpus: transposed by −5…+6 semitones, the key and the chord roots should move by the same interval;
 * time-stretched by ×0.85…×1.15, the bpm should scale by the same factor (±3 %).
 * Goals: ≥ 95 % of tracks each. The held-out key floor is at the goal (reached); the other floors are the
 * measured figures less about two tracks, so a regression fails (~6 min of CPU).
 */
import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { test } from "node:test";
import { renderedCorpus, type Split } from "../corpus/corpus.ts";
import { type InvarianceRow, invarianceRow, summariseInvariance } from "./invariance.ts";

/**
 * Measured: development key 100 %, chords 0.870, bpm 98.3 %; held-out 95 % / 0.899 / 95 % (2026-12-05, after the
 * tuning was read from tonal peaks only; before: 98.3 % / 0.874 / 98.3 % and 95 % / 0.872 / 95 %; before the tempo
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

test("music analysis follows transposition and time-stretching of the corpus", async (t) => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "mixdown-invariance-"));
  try {
    for (const split of SPLITS_TO_MEASURE) {
      const rows: InvarianceRow[] = [];
      const tracks = await renderedCorpus(split);
      for (const [i, track] of tracks.entries()) rows.push(await invarianceRow(track.id, track.mixture, i, dir));
      for (const r of rows) t.diagnostic(`${JSON.stringify(r)}`);
      const summary = summariseInvariance(rows);
      t.diagnostic(`summary ${split}: ${JSON.stringify(summary)}`);
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
