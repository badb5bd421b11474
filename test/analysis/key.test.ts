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

test("a major song on its major tonic chord stays major, whatever the minor keys' half weight for it", () => {
  const chords = [chord(0, "maj", 8), chord(5, "maj", 4), chord(7, "maj", 4), chord(0, "maj", 4)];
  assert.equal(estimateKey(scaleDistribution(0, MAJOR), chords).name, "C major");
});
