import assert from "node:assert/strict";
import { test } from "node:test";
import { utterancesOf } from "../../src/modules/transcribe/engines/pocketsphinx.ts";
import { suppressNoise } from "../../src/speech/denoise.ts";
import { parseHypseg } from "../../src/speech/pocketsphinx.ts";
import { estimateSnrDb } from "../../src/speech/snr.ts";
import { pinkNoise } from "./corpus.ts";

const RATE = 16000;

/** A 440 Hz tone that comes and goes (0.5 s on, 0.5 s off), as speech does. */
function burstyTone(seconds: number): Float32Array {
  return Float32Array.from({ length: seconds * RATE }, (_, i) =>
    Math.floor(i / (RATE / 2)) % 2 === 0 ? 0.3 * Math.sin((2 * Math.PI * 440 * i) / RATE) : 0,
  );
}

const snrDb = (clean: Float32Array, processed: Float32Array): number => {
  let signal = 0;
  let error = 0;
  for (let i = 0; i < clean.length; i++) {
    signal += (clean[i] as number) ** 2;
    error += ((processed[i] as number) - (clean[i] as number)) ** 2;
  }
  return 10 * Math.log10(signal / error);
};

test("noise suppression: pink noise at 0 dB SNR under a bursty tone is taken down by 5 dB or more, in blocks too", () => {
  for (const seconds of [4, 70]) {
    const clean = burstyTone(seconds);
    const noise = pinkNoise(clean.length);
    const noisy = clean.map((s, i) => s + (noise[i] as number) * 0.3 * Math.SQRT1_2);
    const cleaned = suppressNoise(noisy, RATE);
    assert.equal(cleaned.length, noisy.length);
    const before = snrDb(clean, noisy);
    const after = snrDb(clean, cleaned);
    assert.ok(after - before >= 5, `${seconds} s: SNR ${before.toFixed(1)} → ${after.toFixed(1)} dB`);
  }
});

test("noise suppression leaves a clean signal (silence between its bursts) as it was", () => {
  const clean = burstyTone(4);
  assert.ok(snrDb(clean, suppressNoise(clean, RATE)) > 30);
});

test("pocketsphinx_batch's -hypseg: tokens with times on the file's timeline, pronunciation marks dropped", () => {
  const hypseg = [
    "u0 S 0 T -6999001 A -6472704 L -526297 0 -138240 0 <s> 16 -533504 -227 but 28 -1444864 -494 the(2) 58 -720896 -165 </s> 70",
    "u1 S 0 T -1 A -1 L -1 0 -1 0 <s> 10 -1 -1 hello 50",
  ].join("\n");
  assert.deepEqual(parseHypseg(hypseg, [{ start: 1 }, { start: 10 }]), [
    { token: "<s>", start: 1, end: 1.16, utterance: 0 },
    { token: "but", start: 1.16, end: 1.28, utterance: 0 },
    { token: "the", start: 1.28, end: 1.58, utterance: 0 },
    { token: "</s>", start: 1.58, end: 1.7, utterance: 0 },
    { token: "<s>", start: 10, end: 10.1, utterance: 1 },
    { token: "hello", start: 10.1, end: 10.5, utterance: 1 },
  ]);
});

test("voiced spans longer than 25 s are decoded as equal parts", () => {
  assert.deepEqual(
    utterancesOf([
      { start: 1, end: 3 },
      { start: 10, end: 70 },
    ]),
    [
      { start: 1, end: 3 },
      { start: 10, end: 30 },
      { start: 30, end: 50 },
      { start: 50, end: 70 },
    ],
  );
});

test("SNR estimate from the VAD's spans: pink noise added at +10 dB under a bursty tone reads 10 ± 1 dB, clean reads above 60 dB", () => {
  const clean = burstyTone(4);
  const spans = [0, 1, 2, 3].map((s) => ({ start: s, end: s + 0.5 }));
  const noise = pinkNoise(clean.length);
  let signal = 0;
  let power = 0;
  for (let i = 0; i < clean.length; i++) {
    signal += (clean[i] as number) ** 2;
    power += (noise[i] as number) ** 2;
  }
  // The tone's power inside its spans against the noise's power everywhere: +10 dB.
  const scale = Math.sqrt((signal / (clean.length / 2) / (power / clean.length)) * 10 ** -1);
  const noisy = clean.map((x, i) => x + scale * (noise[i] as number));
  assert.ok(Math.abs(estimateSnrDb(noisy, spans, RATE) - 10) < 1, `${estimateSnrDb(noisy, spans, RATE)}`);
  assert.ok(
    estimateSnrDb(
      clean.map((x, i) => x + 1e-5 * (noise[i] as number)),
      spans,
      RATE,
    ) > 60,
  );
  assert.equal(estimateSnrDb(clean, [], RATE), Number.NEGATIVE_INFINITY);
  assert.equal(estimateSnrDb(clean, [{ start: 0, end: 4 }], RATE), Number.POSITIVE_INFINITY);
});
