import fsp from "node:fs/promises";
import { encodeWav16 } from "../media/wav.ts";

/**
 * Peak-normalises to -1 dBFS and adds a white noise floor about 60 dB below it. Pocketsphinx's noise
 * tracking and live cepstral mean normalisation go wrong on digital silence (the log energy of zero): on the
 * tests' espeak-ng sentences, whose pauses are exact zeros, this floor takes the word error rate from 24 % to
 * 4 %, and forced alignment from misplaced words to a 69 ms worst start error. Real recordings already have a
 * floor far above this one. The noise is seeded, so results are reproducible.
 */
export function conditionForRecognition(samples: Float32Array): Float32Array {
  let peak = 0;
  for (const s of samples) peak = Math.max(peak, Math.abs(s));
  const gain = peak > 0 ? 0.89 / peak : 1;
  const out = new Float32Array(samples.length);
  let seed = 0x9e3779b9;
  for (let i = 0; i < samples.length; i++) {
    seed = (Math.imul(seed, 1664525) + 1013904223) >>> 0;
    const noise = (seed / 0x100000000 - 0.5) * 0.004;
    out[i] = (samples[i] as number) * gain + noise;
  }
  return out;
}

/** Writes mono float samples as a 16-bit PCM WAV (what pocketsphinx_continuous reads). */
export async function writeWav16(file: string, samples: Float32Array, sampleRate: number): Promise<void> {
  await fsp.writeFile(file, encodeWav16([samples], sampleRate));
}
