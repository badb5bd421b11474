import assert from "node:assert/strict";
import { test } from "node:test";
import { formatJson } from "../../src/dashboard/pages/format-json.ts";
import { shapeOf } from "../../src/dashboard/pages/result-shapes.ts";

test("JSON results are told apart by shape: the music-analysis, midi, transcribe and align-lyrics outputs", () => {
  assert.equal(shapeOf([{ time: 0.5, beatNum: 1 }])?.shape, "beats");
  assert.equal(shapeOf([{ start: 0, end: 2, chord: "Am" }])?.shape, "chords");
  assert.equal(shapeOf([{ start: 0, end: 8, label: "A" }])?.shape, "sections");
  assert.equal(shapeOf([{ pitch: 60, start: 0, end: 1, velocity: 90 }])?.shape, "notes");
  const segment = { start: 0, end: 1, text: "hi", words: [{ word: "hi", start: 0.1, end: 0.4 }] };
  assert.equal(shapeOf([segment])?.shape, "transcript");
  assert.equal(shapeOf([{ word: "hi", start: null, end: null }])?.shape, "words");
});

test("anything else is no view's: shown formatted instead", () => {
  for (const value of [
    [],
    {},
    "text",
    [1, 2, 3],
    [{ time: 1, beatNum: 1 }, { time: 2 }],
    [{ time: -1, beatNum: 1 }],
    [{ pitch: 200, start: 0, end: 1 }],
    [{ start: 0, end: 1, text: "x", words: [{ word: 3 }] }],
    { min: [0], max: [1] },
  ])
    assert.equal(shapeOf(value), undefined, JSON.stringify(value));
});

test("only the fields a view uses are kept; a note without velocity gets a default", () => {
  assert.deepEqual(shapeOf([{ time: 1, beatNum: 2, extra: "<b>" }]), {
    shape: "beats",
    beats: [{ time: 1, beatNum: 2 }],
  });
  assert.deepEqual(shapeOf([{ pitch: 60, start: 0, end: 1 }]), {
    shape: "notes",
    notes: [{ pitch: 60, start: 0, end: 1, velocity: 100 }],
  });
});

test("formatted JSON keeps lists of plain values on one line", () => {
  assert.equal(
    formatJson({ peaks: [0.1, -0.2], meta: { rate: 50, tags: [] } }),
    '{\n  "peaks": [0.1, -0.2],\n  "meta": {\n    "rate": 50,\n    "tags": []\n  }\n}',
  );
  assert.equal(formatJson([{ a: null }]), '[\n  {\n    "a": null\n  }\n]');
  assert.deepEqual(JSON.parse(formatJson({ s: 'q"\n', n: [true, null, "x"] })), { s: 'q"\n', n: [true, null, "x"] });
});
