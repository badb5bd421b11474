import assert from "node:assert/strict";
import { test } from "node:test";
import { SplicedAudio } from "../../src/speech/splice.ts";
import { DEFAULT_VAD, detectSpeech, SPEECH_SAMPLE_RATE, speechSpans } from "../../src/speech/vad.ts";
import { programme, RATE, silence, speak, toneBed } from "./speech-audio.ts";

const WINDOW = 512 / SPEECH_SAMPLE_RATE;

/** Window probabilities: `value` over [from, to) seconds, 0 elsewhere. */
function probabilities(seconds: number, ...runs: [number, number, number][]): Float32Array {
  const p = new Float32Array(Math.ceil(seconds / WINDOW));
  for (const [from, to, value] of runs)
    for (let i = Math.round(from / WINDOW); i < Math.round(to / WINDOW); i++) p[i] = value;
  return p;
}

test("speech spans: hysteresis holds through short dips, short bursts are dropped, spans padded and merged", () => {
  const options = { ...DEFAULT_VAD, padding: 0.2, mergeGap: 0.6 };
  // 1–3 s speech with a 0.2 s dip (kept), a 0.1 s click at 5 s (dropped), speech 6–7 s and 7.5–8 s (merged
  // once padded: 0.1 s apart), speech 12–13 s (separate).
  const p = probabilities(
    15,
    [1, 2, 0.9],
    [2, 2.2, 0.1],
    [2.2, 3, 0.9],
    [5, 5.1, 0.95],
    [6, 7, 0.8],
    [7.5, 8, 0.8],
    [12, 13, 0.7],
  );
  const spans = speechSpans(p, 15, options).map((s) => [Number(s.start.toFixed(2)), Number(s.end.toFixed(2))]);
  const near = (a: number, b: number) => Math.abs(a - b) <= WINDOW + 1e-9;
  assert.equal(spans.length, 3, JSON.stringify(spans));
  const expected = [
    [0.8, 3.2],
    [5.8, 8.2],
    [11.8, 13.2],
  ];
  spans.forEach(([start, end], i) => {
    assert.ok(near(start as number, expected[i]?.[0] as number), `span ${i} start ${start}`);
    assert.ok(near(end as number, expected[i]?.[1] as number), `span ${i} end ${end}`);
  });
  // Probabilities between the two thresholds (0.35–0.5) neither start nor end speech.
  assert.deepEqual(speechSpans(probabilities(4, [1, 3, 0.45]), 4, options), []);
  // Speech running to the end of the input ends there.
  assert.deepEqual(speechSpans(probabilities(2, [1, 2, 0.9]), 2, { ...options, padding: 0 }), [
    { start: Math.round(1 / WINDOW) * WINDOW, end: 2 },
  ]);
});

test("spliced audio maps its times back to the input's timeline, part by part", () => {
  const rate = 100;
  const input = Float32Array.from({ length: 1000 }, (_, i) => i);
  const spliced = new SplicedAudio(
    input,
    rate,
    [
      { start: 1, end: 2 },
      { start: 5, end: 5.5 },
    ],
    0.25,
  );
  assert.equal(spliced.samples.length, 100 + 25 + 50);
  assert.equal(spliced.samples[0], 100);
  assert.equal(spliced.samples[125], 500);
  assert.deepEqual(spliced.parts, [
    { start: 1, end: 2, at: 0 },
    { start: 5, end: 5.5, at: 1.25 },
  ]);
  assert.equal(spliced.toInput(0.5), 1.5);
  assert.equal(spliced.toInput(1.35), 5.1);
  assert.equal(spliced.partAt(1.1), 0, "in the gap, nearer the first part");
  assert.equal(spliced.partAt(1.2), 1, "in the gap, nearer the second part");
  assert.equal(spliced.toInput(1.1), 2, "clamped to its part");
});

test("Silero VAD finds espeak-ng speech between silences and a tone bed, and nothing in the tone bed", async () => {
  const { samples, spoken } = programme([
    silence(1),
    { text: "Good morning everyone.", audio: await speak("Good morning everyone.") },
    toneBed(4),
    { text: "See you tomorrow.", audio: await speak("See you tomorrow.") },
    silence(1),
  ]);
  // To 16 kHz by picking the nearest sample: rough, but VAD only needs the envelope and the formants.
  const resampled = Float32Array.from(
    { length: Math.floor((samples.length * SPEECH_SAMPLE_RATE) / RATE) },
    (_, i) => samples[Math.round((i * RATE) / SPEECH_SAMPLE_RATE)] ?? 0,
  );
  const spans = await detectSpeech(resampled);
  assert.equal(spans.length, 2, JSON.stringify(spans));
  spans.forEach((span, i) => {
    const truth = spoken[i] as { start: number; end: number };
    assert.ok(Math.abs(span.start - (truth.start - DEFAULT_VAD.padding)) < 0.15, `span ${i} start ${span.start}`);
    assert.ok(Math.abs(span.end - (truth.end + DEFAULT_VAD.padding)) < 0.35, `span ${i} end ${span.end}`);
  });
});
