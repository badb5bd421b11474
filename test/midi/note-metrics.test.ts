import assert from "node:assert/strict";
import { test } from "node:test";
import { noteScores } from "./note-metrics.ts";

test("noteScores matches same pitch within ±50 ms, each note once", () => {
  const reference = [
    { pitch: 60, start: 1 },
    { pitch: 64, start: 1 },
    { pitch: 67, start: 2 },
  ];
  assert.deepEqual(noteScores(reference, reference), { precision: 1, recall: 1, f: 1, matched: 3 });
  // Wrong pitch, 60 ms late, and a duplicate that may not match twice.
  const estimated = [
    { pitch: 61, start: 1 },
    { pitch: 64, start: 1.03 },
    { pitch: 64, start: 1.01 },
    { pitch: 67, start: 2.06 },
  ];
  const scores = noteScores(reference, estimated);
  assert.equal(scores.matched, 1);
  assert.equal(scores.precision, 1 / 4);
  assert.equal(scores.recall, 1 / 3);
  assert.ok(Math.abs(scores.f - (2 * (1 / 4) * (1 / 3)) / (1 / 4 + 1 / 3)) < 1e-12);
  assert.equal(noteScores(reference, []).f, 0);
});

test("noteScores finds the largest matching, where matching greedily in order would not", () => {
  // The first reference note is closest to the second estimate, which the second reference note needs.
  const reference = [
    { pitch: 60, start: 1.0 },
    { pitch: 60, start: 1.06 },
  ];
  const estimated = [
    { pitch: 60, start: 1.02 },
    { pitch: 60, start: 0.96 },
  ];
  assert.equal(noteScores(reference, estimated).matched, 2);
});
