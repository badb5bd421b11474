/**
 * The key finder's chord side (src/dsp/key.ts): power chords, root and fifth, are recognised as major chords, so a
 * minor song played in them has a "major" tonic chord; its key stays minor when its notes and other chords say so,
 * and a song whose tonic chord is truly major stays major.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { type ChordOccurrence, estimateKey } from "../../src/dsp/key.ts";

/** Pitch-class weights of a melody in a scale (tonic and fifth heaviest), for the profile side. */
function scaleDistribution(tonic: number, steps: number[]): number[] {
  const weights = new Array(12).fill(0.02);
  steps.forEach((step, degree) => {
    weights[(tonic + step) % 12] = degree === 0 ? 1 : degree === 4 ? 0.8 : 0.5;
  });
  return weights;
}
const NATURAL_MINOR = [0, 2, 3, 5, 7, 8, 10];
const MAJOR = [0, 2, 4, 5, 7, 9, 11];
const chord = (root: number, quality: "maj" | "min", seconds: number): ChordOccurrence => ({ root, quality, seconds });

test("a minor riff in power chords (i–VI–VII–i, every chord read as major) keeps its minor key", () => {
  // C minor: C5, Ab5, Bb5, C5, as the chord recogniser names power chords.
  const chords = [chord(0, "maj", 8), chord(8, "maj", 4), chord(10, "maj", 4), chord(0, "maj", 4)];
  assert.equal(estimateKey(scaleDistribution(0, NATURAL_MINOR), chords).name, "C minor");
});

test("a minor riff held on its tonic power chord, its minor third only in the melody, keeps its minor key", () => {
  // The riff's roots and fifths dominate the notes; the melody's minor third, sixth and seventh are lighter. A tonic
  // chord read as major counts for the minor key as fully as for the major one, so the notes decide.
  const notes = new Array(12).fill(0.03);
  Object.assign(notes, { 0: 1, 7: 0.9, 3: 0.3, 5: 0.2, 8: 0.15, 10: 0.2, 2: 0.15 });
  const chords = [chord(0, "maj", 12), chord(3, "maj", 2), chord(0, "maj", 4), chord(10, "maj", 2), chord(0, "maj", 4)];
  assert.equal(estimateKey(notes, chords).name, "C minor");
});

test("a major song on its major tonic chord stays major, though minor keys count that chord as their tonic too", () => {
  const chords = [chord(0, "maj", 8), chord(5, "maj", 4), chord(7, "maj", 4), chord(0, "maj", 4)];
  assert.equal(estimateKey(scaleDistribution(0, MAJOR), chords).name, "C major");
});
