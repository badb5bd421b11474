/** Halves the sample rate: a 4th-order Butterworth low-pass (at 0.8 × the new Nyquist), then every other sample. */
export function decimateByTwo(signal: Float32Array, sampleRate: number): Float32Array {
  const cutoff = 0.4 * (sampleRate / 2); // well inside the new band, so aliasing stays far below chroma's range
  const out = new Float32Array(Math.floor(signal.length / 2));
  let filtered = Float32Array.from(signal);
  // Two biquad sections with the Q values of a 4th-order Butterworth (RBJ cookbook low-pass).
  for (const q of [0.5411961, 1.306563]) {
    const w = (2 * Math.PI * cutoff) / sampleRate;
    const alpha = Math.sin(w) / (2 * q);
    const cos = Math.cos(w);
    const a0 = 1 + alpha;
    const b0 = (1 - cos) / 2 / a0;
    const b1 = (1 - cos) / a0;
    const a1 = (-2 * cos) / a0;
    const a2 = (1 - alpha) / a0;
    let x1 = 0;
    let x2 = 0;
    let y1 = 0;
    let y2 = 0;
    const next = new Float32Array(filtered.length);
    for (let i = 0; i < filtered.length; i++) {
      const x = filtered[i] as number;
      const y = b0 * x + b1 * x1 + b0 * x2 - a1 * y1 - a2 * y2;
      next[i] = y;
      x2 = x1;
      x1 = x;
      y2 = y1;
      y1 = y;
    }
    filtered = next;
  }
  for (let i = 0; i < out.length; i++) out[i] = filtered[2 * i] as number;
  return out;
}
