/**
 * Harmonic/percussive separation by median filtering (D. Fitzgerald, "Harmonic/percussive separation using
 * median filtering", DAFx 2010): harmonic sounds are smooth along time, percussive ones along frequency, so a
 * median across frames keeps the first and a median across bins keeps the second; soft (Wiener-style) masks
 * of the two enhanced spectrograms split the mixture.
 *
 * The medians slide a sorted window (one value out, one in: a binary search and a short shift), so a
 * 17-wide median costs a few operations per cell instead of a sort.
 */

/** Index reflected into 0..n-1 without repeating the edge (… 2 1 | 0 1 2 …), as scipy's "mirror" mode. */
export function mirror(index: number, n: number): number {
  if (n === 1) return 0;
  let i = index;
  const period = 2 * (n - 1);
  i %= period;
  if (i < 0) i += period;
  return i < n ? i : period - i;
}

/** Replaces `old` (present in the sorted window) by `value`, keeping the window sorted. */
function replaceSorted(window: Float32Array, start: number, width: number, old: number, value: number): void {
  let lo = start;
  let hi = start + width - 1;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if ((window[mid] as number) < old) lo = mid + 1;
    else hi = mid;
  }
  let i = lo;
  const last = start + width - 1;
  if (value > old) {
    while (i < last && (window[i + 1] as number) < value) {
      window[i] = window[i + 1] as number;
      i++;
    }
  } else {
    while (i > start && (window[i - 1] as number) > value) {
      window[i] = window[i - 1] as number;
      i--;
    }
  }
  window[i] = value;
}

function sortRange(window: Float32Array, start: number, width: number): void {
  for (let i = start + 1; i < start + width; i++) {
    const value = window[i] as number;
    let j = i - 1;
    while (j >= start && (window[j] as number) > value) {
      window[j + 1] = window[j] as number;
      j--;
    }
    window[j + 1] = value;
  }
}

function checkWidth(width: number): number {
  if (!Number.isInteger(width) || width < 1 || width % 2 === 0) throw new RangeError(`median width ${width}: odd`);
  return (width - 1) / 2;
}

/** Median of each cell over `width` neighbouring bins of its own frame (frame-major layout, mirrored edges). */
export function medianAcrossBins(values: Float32Array, frames: number, bins: number, width: number): Float32Array {
  const half = checkWidth(width);
  const out = new Float32Array(frames * bins);
  const window = new Float32Array(width);
  // The bin leaving and the bin entering the window after each step, edges mirrored.
  const leaving = Int32Array.from({ length: bins }, (_, k) => mirror(k - half, bins));
  const entering = Int32Array.from({ length: bins }, (_, k) => mirror(k + half + 1, bins));
  for (let t = 0; t < frames; t++) {
    const row = t * bins;
    for (let j = 0; j < width; j++) window[j] = values[row + mirror(j - half, bins)] as number;
    sortRange(window, 0, width);
    for (let k = 0; k < bins - 1; k++) {
      out[row + k] = window[half] as number;
      replaceSorted(
        window,
        0,
        width,
        values[row + (leaving[k] as number)] as number,
        values[row + (entering[k] as number)] as number,
      );
    }
    out[row + bins - 1] = window[half] as number;
  }
  return out;
}

/**
 * Median of each cell over `width` neighbouring frames of its own bin. The frames are walked in order with one
 * sorted window per bin, so memory is read row by row.
 */
export function medianAcrossFrames(values: Float32Array, frames: number, bins: number, width: number): Float32Array {
  const half = checkWidth(width);
  const out = new Float32Array(frames * bins);
  const windows = new Float32Array(bins * width);
  for (let k = 0; k < bins; k++) {
    for (let j = 0; j < width; j++) windows[k * width + j] = values[mirror(j - half, frames) * bins + k] as number;
    sortRange(windows, k * width, width);
  }
  for (let t = 0; t < frames; t++) {
    const row = t * bins;
    const leaving = mirror(t - half, frames) * bins;
    const entering = mirror(t + half + 1, frames) * bins;
    for (let k = 0; k < bins; k++) {
      const start = k * width;
      out[row + k] = windows[start + half] as number;
      if (t + 1 < frames) {
        replaceSorted(windows, start, width, values[leaving + k] as number, values[entering + k] as number);
      }
    }
  }
  return out;
}

export interface HpssOptions {
  /** Median length along time, frames (odd): longer keeps only steadier sounds as harmonic. */
  harmonicFrames: number;
  /** Median length along frequency, bins (odd): longer keeps only broader-band sounds as percussive. */
  percussiveBins: number;
  /** Exponent of the soft mask: 1 = ratio, 2 = Wiener, large → binary. */
  power: number;
  /**
   * Bins (from 0) where what the median across time does not explain also counts as percussive: a kick's
   * body is a decaying low sine, too narrow-band for the median across frequency to see (Fitzgerald's method
   * hands it to the harmonic part); 0 = none.
   */
  transientBins: number;
}

export const HPSS_DEFAULTS: Omit<HpssOptions, "transientBins"> = { harmonicFrames: 17, percussiveBins: 17, power: 2 };

/**
 * The percussive soft mask P^p / (H^p + P^p) of a magnitude spectrogram (frame-major), with H its median
 * across frames and P its median across bins (or, in the transient bins, the larger of P and |X| − H). The
 * harmonic mask is its complement, so the two sum to exactly 1. A cell where both are 0 is split evenly.
 */
export function percussiveMask(
  magnitude: Float32Array,
  frames: number,
  bins: number,
  options: HpssOptions,
): Float32Array {
  const harmonic = medianAcrossFrames(magnitude, frames, bins, options.harmonicFrames);
  const mask = medianAcrossBins(magnitude, frames, bins, options.percussiveBins);
  const p = options.power;
  const transient = Math.min(bins, options.transientBins);
  for (let t = 0; t < frames; t++) {
    const row = t * bins;
    for (let k = 0; k < bins; k++) {
      const i = row + k;
      const hv = harmonic[i] as number;
      let pv = mask[i] as number;
      if (k < transient) pv = Math.max(pv, (magnitude[i] as number) - hv);
      const pp = p === 2 ? pv * pv : pv ** p;
      const hp = p === 2 ? hv * hv : hv ** p;
      const sum = pp + hp;
      mask[i] = sum > 0 ? pp / sum : 0.5;
    }
  }
  return mask;
}
