/**
 * The fundamental of a recorded note or word: YIN (de Cheveigné & Kawahara 2002, cumulative mean normalised
 * difference, absolute threshold 0.15) on 46 ms frames, the median over the voiced frames. Used to find the
 * pitch a library sample was recorded at and the pitch a spoken word sits on.
 */
const THRESHOLD = 0.15;

/** f0 in Hz of one frame, or 0 when unvoiced; `low`..`high` bound the search. */
function yinFrame(x: Float32Array, start: number, size: number, rate: number, low: number, high: number): number {
  const maxLag = Math.min(size - 1, Math.floor(rate / low));
  const minLag = Math.max(2, Math.floor(rate / high));
  const d = new Float64Array(maxLag + 1);
  for (let lag = 1; lag <= maxLag; lag++) {
    let sum = 0;
    for (let i = 0; i < size - maxLag; i++) {
      const diff = (x[start + i] as number) - (x[start + i + lag] as number);
      sum += diff * diff;
    }
    d[lag] = sum;
  }
  let running = 0;
  for (let lag = 1; lag <= maxLag; lag++) {
    running += d[lag] as number;
    d[lag] = running > 0 ? ((d[lag] as number) * lag) / running : 1;
  }
  for (let lag = minLag; lag < maxLag; lag++) {
    if ((d[lag] as number) < THRESHOLD) {
      while (lag + 1 < maxLag && (d[lag + 1] as number) < (d[lag] as number)) lag++;
      const a = d[lag - 1] as number;
      const b = d[lag] as number;
      const c = d[lag + 1] as number;
      const shift = a - 2 * b + c === 0 ? 0 : (a - c) / (2 * (a - 2 * b + c));
      return rate / (lag + shift);
    }
  }
  return 0;
}

/** The median f0 (Hz) of the voiced frames of `x` (mono), or 0 when fewer than three frames are voiced. */
export function medianF0(x: Float32Array, rate: number, low = 30, high = 1200): number {
  const size = Math.round(0.046 * rate);
  const hop = Math.round(0.023 * rate);
  let peak = 0;
  for (const v of x) peak = Math.max(peak, Math.abs(v));
  const found: number[] = [];
  for (let start = 0; start + size < x.length; start += hop) {
    let power = 0;
    for (let i = start; i < start + size; i++) power += (x[i] as number) ** 2;
    if (Math.sqrt(power / size) < 0.05 * peak) continue;
    const f = yinFrame(x, start, size, rate, low, high);
    if (f > 0) found.push(f);
  }
  if (found.length < 3) return 0;
  found.sort((a, b) => a - b);
  return found[Math.floor(found.length / 2)] as number;
}

/** Hz to a (fractional) MIDI note number. */
export const midiOf = (hz: number): number => 69 + 12 * Math.log2(hz / 440);
