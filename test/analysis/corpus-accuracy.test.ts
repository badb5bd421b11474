/**
 * The music analysis of mixdown/beats-chords (ffmpeg decode to 22.05 kHz mono, then analyzeMusic) on the
 * rendered corpus (test/corpus/): FluidSynth songs with GM drums in ten grooves, bass, comping, pads, lead and
 * voice, sections, pickups, ritardandos, swing, 3/4 and 6/8. Both splits are reported; the methods were tuned on
 * the development and tuning splits (and their time-stretched copies) only. The goals of issue 18 (held-out split):
 *   tempo within 4 % (no octave allowance) ≥ 95 %   octave errors (×2, ×½, ×3, ×⅓) ≤ 3 %
 *   beat F-measure (±70 ms) ≥ 0.90                   downbeat F-measure ≥ 0.80
 *   key exact ≥ 85 %, MIREX weighted score ≥ 0.90    chord overlap (maj/min + N) ≥ 75 %
 * Floors: the held-out key at the goals (reached); every other floor at the measured figure less about two
 * tracks' worth, so a regression fails and an improvement should raise them.
 * In 6/8 the counted beat is the dotted quarter (two a bar), so eighth-note tempo is a ×3 octave error.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { type AssertedSplit, renderedCorpus } from "../corpus/corpus.ts";
import { evaluate, type Row, round3, summarise } from "./corpus-evaluation.ts";

/**
 * Measured (development / held-out) on 2026-12-06, after beats moved onto kicks halfway (beats.ts's onTheBeat):
 * tempo 1.000 / 0.975, octave errors 0 / 0.025, beat F 0.972 / 0.943, downbeat F 0.948 / 0.849, key 1.000 / 1.000,
 * MIREX 1.000 / 1.000, chords 0.858 / 0.861 (before it: held-out beat F 0.927, downbeat F 0.852, chords 0.854; one
 * four-on-the-floor song's beats moved onto the beat, its bars did not follow); earlier (development / held-out):
 * tempo 1.000 / 0.975, octave errors 0 / 0.025, beat F 0.972 / 0.927, downbeat F 0.941 / 0.851, key 1.000 / 0.975,
 * MIREX 1.000 / 0.975, chords 0.853 / 0.854; the tuning split (not
 * asserted): 0.96, 0.04, 0.941, 0.853, 0.99, 0.99, 0.864 (0.95, 0.05, 0.938, 0.843, 0.99, 0.99, 0.863 before the
 * fast pulse was tracked on drum hits; 0.94, 0.06, 0.934, 0.833, 0.99, 0.99, 0.860 before the backbeat check in
 * metrical-level.ts; both leave development unchanged, held-out above measured before them; 0.86, 0.14,
 * 0.907, 0.747, 0.99, 0.99, 0.78 before the tuning split was tuned on). Before the tempo prior and the 60 BPM bound on eight-beat doubling (metrical-level.ts): held-out
 * 0.925, 0.075, 0.911, 0.809, 0.975, 0.975, 0.835; tuning 0.91, 0.09, 0.924, 0.811, 0.99, 0.99, 0.852. Before (development / held-out): tempo 1.000 / 0.825, octave errors 0 / 0.10, beat F 0.949 / 0.872,
 * downbeat F 0.892 / 0.670, key 1.000 / 0.975, chords 0.762 / 0.741. When the corpus was added: tempo 0.617 / 0.60,
 * octave errors 0.333 / 0.35, beat F 0.776 / 0.731, downbeat F 0.615 / 0.544, key 0.85 / 0.85 (MIREX 0.86 / 0.857),
 * chords 0.72 / 0.75.
 */
/** Sections have their own floors (sections.test.ts). */
type AnalysisFloors = Omit<
  ReturnType<typeof summarise>,
  "sectionBoundaryF" | "sectionPairwiseF" | "sectionLabelsEnough"
>;
const FLOORS: Record<AssertedSplit, AnalysisFloors> = {
  development: {
    tracks: 60,
    tempoWithin4Percent: 0.96,
    octaveErrors: 0.04,
    beatF: 0.94,
    downbeatF: 0.91,
    keyExact: 0.96,
    keyMirex: 0.96,
    chordOverlap: 0.83,
  },
  "held-out": {
    tracks: 40,
    tempoWithin4Percent: 0.925,
    octaveErrors: 0.075,
    beatF: 0.895,
    downbeatF: 0.81,
    keyExact: 0.85,
    keyMirex: 0.9,
    chordOverlap: 0.82,
  },
};

for (const split of ["development", "held-out"] as const) {
  test(`music analysis on the rendered corpus, ${split} split: at or above the floors`, async (t) => {
    const tracks = await renderedCorpus(split);
    const rows: Row[] = [];
    for (const track of tracks) rows.push(await evaluate(track));
    const summary = summarise(rows);
    for (const r of rows)
      t.diagnostic(
        `track: ${JSON.stringify({ ...r, beatF: round3(r.beatF), downbeatF: round3(r.downbeatF), chordOverlap: round3(r.chordOverlap) })}`,
      );
    const byGroove = new Map<string, Row[]>();
    for (const r of rows) byGroove.set(r.groove, [...(byGroove.get(r.groove) ?? []), r]);
    for (const [groove, group] of byGroove) t.diagnostic(`groove ${groove}: ${JSON.stringify(summarise(group))}`);
    t.diagnostic(`summary ${split}: ${JSON.stringify(summary)}`);
    const floor = FLOORS[split];
    assert.equal(summary.tracks, floor.tracks);
    assert.ok(
      summary.tempoWithin4Percent >= floor.tempoWithin4Percent,
      `tempo within 4 % ${summary.tempoWithin4Percent}`,
    );
    assert.ok(summary.octaveErrors <= floor.octaveErrors, `octave errors ${summary.octaveErrors}`);
    assert.ok(summary.beatF >= floor.beatF, `beat F-measure ${summary.beatF}`);
    assert.ok(summary.downbeatF >= floor.downbeatF, `downbeat F-measure ${summary.downbeatF}`);
    assert.ok(summary.keyExact >= floor.keyExact, `key exact ${summary.keyExact}`);
    assert.ok(summary.keyMirex >= floor.keyMirex, `key MIREX score ${summary.keyMirex}`);
    assert.ok(summary.chordOverlap >= floor.chordOverlap, `chord overlap ${summary.chordOverlap}`);
  });
}
