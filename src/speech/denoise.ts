import { istft, stft } from "../dsp/spectrogram.ts";

/** 32 ms frames with 8 ms hops at 16 kHz. */
const FFT_SIZE = 512;
const HOP = 128;
/** The noise level of a frequency bin is read at this quantile of its power over the whole input. */
const NOISE_QUANTILE = 0.1;
/** Decision-directed smoothing of the a-priori SNR (Ephraim–Malah); 0.98 is the textbook value. */
const SMOOTHING = 0.9;
/** The least gain of a bin: about -10 dB. */
const GAIN_FLOOR = 0.3;
/**
 * Long inputs are cleaned a block at a time (memory stays flat; the noise estimate follows noise that
 * changes), blocks crossfaded over their overlap.
 */
const BLOCK_SECONDS = 30;
const OVERLAP_SECONDS = 1;

/**
 * Stationary noise suppression before recognition: a Wiener gain per STFT bin with the decision-directed
 * a-priori SNR estimate, against a noise spectrum read from each bin's quiet moments (its 10th percentile of
 * power, corrected for the bias of a low quantile of a chi-square power), so no noise-only stretch has to be
 * found first. Tuned on the development voices of `test/speech/corpus.ts` under pink noise at +10 dB SNR, each
 * voiced span decoded apart: WER 0.73 without it, 0.50 with it. A floor of 0.1 (-20 dB) cut the speech's weak
 * consonants with the noise (0.68), 0.2 gave 0.57; smoothing at the textbook 0.98 smeared onsets (0.56 against
 * 0.50 at 0.9); 256- or 1024-point frames, a 5th or 20th percentile and over-subtraction were no better. Clean speech
 * is left as it was (its quiet moments are silence: no noise to take away). Blocks of 30 s are cleaned
 * one by one.
 */
export function suppressNoise(samples: Float32Array, sampleRate: number): Float32Array {
  const block = BLOCK_SECONDS * sampleRate;
  const overlap = OVERLAP_SECONDS * sampleRate;
  if (samples.length <= block + overlap) return suppressBlock(samples);
  const out = new Float32Array(samples.length);
  for (let from = 0; from < samples.length; from += block) {
    const start = Math.max(0, from - overlap);
    const cleaned = suppressBlock(samples.subarray(start, Math.min(samples.length, from + block)));
    for (let i = 0; i < cleaned.length; i++) {
      const at = start + i;
      // Linear crossfade over the overlap with the block before.
      const w = from === 0 || at >= from ? 1 : (at - start) / overlap;
      out[at] = (out[at] as number) * (1 - w) + (cleaned[i] as number) * w;
    }
  }
  return out;
}

function suppressBlock(samples: Float32Array): Float32Array {
  if (samples.length < FFT_SIZE) return samples.slice();
  const spec = stft(samples, FFT_SIZE, HOP);
  const { frames, bins, re, im } = spec;
  const power = new Float32Array(frames * bins);
  for (let i = 0; i < power.length; i++) power[i] = (re[i] as number) ** 2 + (im[i] as number) ** 2;

  const noise = new Float64Array(bins);
  const column = new Float32Array(frames);
  const bias = -Math.log(1 - NOISE_QUANTILE);
  for (let k = 0; k < bins; k++) {
    for (let t = 0; t < frames; t++) column[t] = power[t * bins + k] as number;
    column.sort();
    noise[k] = (column[Math.floor(NOISE_QUANTILE * (frames - 1))] as number) / bias + 1e-12;
  }

  const mask = new Float32Array(frames * bins);
  const previousGain = new Float64Array(bins).fill(1);
  const previousSnr = new Float64Array(bins).fill(1);
  for (let t = 0; t < frames; t++) {
    for (let k = 0; k < bins; k++) {
      const i = t * bins + k;
      const posterior = (power[i] as number) / (noise[k] as number);
      const prior =
        SMOOTHING * (previousGain[k] as number) ** 2 * (previousSnr[k] as number) +
        (1 - SMOOTHING) * Math.max(posterior - 1, 0);
      const gain = Math.max(GAIN_FLOOR, prior / (1 + prior));
      mask[i] = gain;
      previousGain[k] = gain;
      previousSnr[k] = posterior;
    }
  }
  return istft(spec, mask);
}
