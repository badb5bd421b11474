import type { TimeSpan } from "./vad.ts";

/**
 * The input's signal-to-noise ratio in dB, from the VAD's spans: the power outside them is the noise, the power
 * inside them is speech plus that noise. Infinity when nothing lies outside the spans or it is silent; -Infinity
 * when the spans are no louder than the rest. On the development voices of `test/speech/corpus.ts` it reads
 * 98–99 dB clean, 19.2–19.4 at +20 dB pink noise, 9.1–9.5 at +10, 4.1–4.5 at +5 and 8.5–9.4 under the music bed
 * at +10 dB.
 */
export function estimateSnrDb(samples: Float32Array, spans: TimeSpan[], sampleRate: number): number {
  let speech = 0;
  let speechCount = 0;
  let total = 0;
  for (let i = 0; i < samples.length; i++) total += (samples[i] as number) ** 2;
  let last = 0;
  for (const span of spans) {
    const from = Math.max(last, Math.floor(span.start * sampleRate));
    const to = Math.min(samples.length, Math.ceil(span.end * sampleRate));
    for (let i = from; i < to; i++) speech += (samples[i] as number) ** 2;
    speechCount += Math.max(0, to - from);
    last = Math.max(last, to);
  }
  const noiseCount = samples.length - speechCount;
  if (speechCount === 0) return Number.NEGATIVE_INFINITY;
  if (noiseCount === 0) return Number.POSITIVE_INFINITY;
  const noisePower = (total - speech) / noiseCount;
  const speechPower = speech / speechCount - noisePower;
  if (noisePower <= 0) return Number.POSITIVE_INFINITY;
  if (speechPower <= 0) return Number.NEGATIVE_INFINITY;
  return 10 * Math.log10(speechPower / noisePower);
}
