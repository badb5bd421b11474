import { applyBiquad } from "./biquad.ts";

/** Halves the sample rate: a 4th-order Butterworth low-pass (at 0.8 × the new Nyquist), then every other sample. */
export function decimateByTwo(signal: Float32Array, sampleRate: number): Float32Array {
  const cutoff = 0.4 * (sampleRate / 2); // well inside the new band, so aliasing stays far below chroma's range
  const out = new Float32Array(Math.floor(signal.length / 2));
  let filtered: ArrayLike<number> = signal;
  // Two biquad sections with the Q values of a 4th-order Butterworth (RBJ cookbook low-pass).
  const w = (2 * Math.PI * cutoff) / sampleRate;
  const cos = Math.cos(w);
  for (const q of [0.5411961, 1.306563]) {
    const alpha = Math.sin(w) / (2 * q);
    const a0 = 1 + alpha;
    const b0 = (1 - cos) / 2 / a0;
    filtered = applyBiquad(filtered, { b0, b1: (1 - cos) / a0, b2: b0, a1: (-2 * cos) / a0, a2: (1 - alpha) / a0 });
  }
  for (let i = 0; i < out.length; i++) out[i] = filtered[2 * i] as number;
  return out;
}
