import assert from "node:assert/strict";
import { test } from "node:test";
import { analyzeMusic } from "../../src/dsp/analyze-music.ts";
import { chordOverlap, fMeasure, tempoVerdict } from "../helpers/mir-metrics.ts";
import { generateTrack, suiteSpecs } from "../music/generator.ts";

const mono = ([left, right]: [Float32Array, Float32Array]) =>
  Float32Array.from(left, (v, i) => (v + (right[i] as number)) / 2);

test("music analysis on the generated suite meets the accuracy targets", (t) => {
  const specs = suiteSpecs();
  assert.ok(specs.length >= 40);
  const rows = specs.map((spec) => {
    const track = generateTrack({ ...spec, sampleRate: 22050 });
    const analysis = analyzeMusic(mono(track.channels), 22050);
    const { truth } = track;
    return {
      seed: spec.seed,
      truthBpm: Math.round(truth.bpm * 10) / 10,
      bpm: analysis.bpm,
      tempo: analysis.bpm === null ? "wrong" : tempoVerdict(truth.bpm, analysis.bpm),
      meter: `${truth.meter}→${analysis.meter}`,
      beatF: fMeasure(
        truth.beats.map((b) => b.time),
        analysis.beats.map((b) => b.time),
      ),
      downbeatF: fMeasure(
        truth.beats.filter((b) => b.beatNum === 1).map((b) => b.time),
        analysis.beats.filter((b) => b.beatNum === 1).map((b) => b.time),
      ),
      key: `${truth.key}→${analysis.key}`,
      keyRight: truth.key === analysis.key,
      chordOverlap: chordOverlap(truth.chords, analysis.chords),
    };
  });
  const share = (predicate: (r: (typeof rows)[number]) => boolean) => rows.filter(predicate).length / rows.length;
  const mean = (pick: (r: (typeof rows)[number]) => number) => rows.reduce((a, r) => a + pick(r), 0) / rows.length;
  const summary = {
    tracks: rows.length,
    tempoWithin2Percent: share((r) => r.tempo === "correct"),
    octaveErrors: rows.filter((r) => r.tempo === "octave").length,
    otherTempoErrors: rows.filter((r) => r.tempo === "wrong").length,
    beatF: mean((r) => r.beatF),
    downbeatF: mean((r) => r.downbeatF),
    keyExact: share((r) => r.keyRight),
    chordOverlap: mean((r) => r.chordOverlap),
  };
  for (const r of rows.filter(
    (r) => r.tempo !== "correct" || !r.keyRight || r.beatF < 0.9 || r.downbeatF < 0.8 || r.chordOverlap < 0.8,
  )) {
    t.diagnostic(`weak: ${JSON.stringify(r)}`);
  }
  t.diagnostic(`summary: ${JSON.stringify(summary)}`);
  assert.ok(summary.tempoWithin2Percent >= 0.95, `tempo within 2 % on ${summary.tempoWithin2Percent}`);
  assert.ok(summary.beatF >= 0.9, `beat F-measure ${summary.beatF}`);
  assert.ok(summary.downbeatF >= 0.8, `downbeat accuracy ${summary.downbeatF}`);
  assert.ok(summary.keyExact >= 0.9, `key exact ${summary.keyExact}`);
  assert.ok(summary.chordOverlap >= 0.8, `chord overlap ${summary.chordOverlap}`);
});
