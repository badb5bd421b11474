/**
 * REPET-SIM (Z. Rafii and B. Pardo, "Music/voice separation using the similarity matrix", ISMIR 2012): the
 * accompaniment of a song repeats (not necessarily periodically) while the lead voice varies, so the median of
 * the frames most similar to a frame models its repeating part, and what rises above that model is the voice.
 *
 * To keep a whole song cheap, frames are compared on band energies (not every bin) and only within a window
 * of `searchFrames` either side; the median is still taken bin by bin.
 */

export interface RepetSimOptions {
  /** Most similar frames whose median models a frame's repeating part (the frame itself is one of them). */
  repeats: number;
  /** Frames chosen for one model are at least this many frames apart. */
  minDistance: number;
  /** Frames less similar than this (cosine similarity) are never chosen. */
  minSimilarity: number;
  /** Frames are compared with those up to this many frames away. */
  searchFrames: number;
  /** Band edges (bins) of the features frames are compared on. */
  bandEdges: Int32Array;
}

/** Band edges spaced evenly in log frequency from `lowHz` to `highHz`, each band at least one bin. */
export function logBandEdges(
  bins: number,
  sampleRate: number,
  lowHz: number,
  highHz: number,
  bands: number,
): Int32Array {
  const fftSize = 2 * (bins - 1);
  const toBin = (hz: number) => Math.min(bins - 1, Math.max(1, Math.round((hz * fftSize) / sampleRate)));
  const edges: number[] = [toBin(lowHz)];
  for (let b = 1; b <= bands; b++) {
    const edge = toBin(lowHz * (highHz / lowHz) ** (b / bands));
    edges.push(Math.max(edge, (edges.at(-1) as number) + 1));
  }
  return Int32Array.from(edges.filter((e) => e < bins));
}

/**
 * Cube-root-compressed band magnitudes of each frame, scaled to unit length (so dot products are cosines); the
 * compression keeps sustained loud notes from outweighing the drums and quieter parts in the comparison.
 */
function frameFeatures(magnitude: Float32Array, frames: number, bins: number, edges: Int32Array): Float32Array {
  const bands = edges.length - 1;
  const features = new Float32Array(frames * bands);
  for (let t = 0; t < frames; t++) {
    let norm = 0;
    for (let b = 0; b < bands; b++) {
      let sum = 0;
      for (let k = edges[b] as number; k < (edges[b + 1] as number); k++) sum += magnitude[t * bins + k] as number;
      const value = Math.cbrt(sum);
      features[t * bands + b] = value;
      norm += value * value;
    }
    const scale = norm > 0 ? 1 / Math.sqrt(norm) : 0;
    for (let b = 0; b < bands; b++) features[t * bands + b] = (features[t * bands + b] as number) * scale;
  }
  return features;
}

/**
 * For each frame, the frames (its own included) whose similarity is a local maximum at least `minDistance`
 * apart, the `repeats` most similar of them: `chosen[t * repeats + i]`, -1 where fewer qualify.
 */
export function similarFrames(
  magnitude: Float32Array,
  frames: number,
  bins: number,
  options: RepetSimOptions,
): Int32Array {
  const { repeats, minDistance, minSimilarity, searchFrames, bandEdges } = options;
  const bands = bandEdges.length - 1;
  const features = frameFeatures(magnitude, frames, bins, bandEdges);
  const chosen = new Int32Array(frames * repeats).fill(-1);
  const span = 2 * searchFrames + 1;
  const similarity = new Float32Array(span);
  const deque = new Int32Array(span);
  const order: number[] = [];
  for (let t = 0; t < frames; t++) {
    const first = Math.max(0, t - searchFrames);
    const last = Math.min(frames - 1, t + searchFrames);
    const count = last - first + 1;
    const own = t * bands;
    for (let i = 0; i < count; i++) {
      const other = (first + i) * bands;
      let dot = 0;
      for (let b = 0; b < bands; b++) dot += (features[own + b] as number) * (features[other + b] as number);
      similarity[i] = dot;
    }
    // Local maxima: the greatest value within minDistance either side (a sliding maximum over a deque).
    order.length = 0;
    let head = 0;
    let tail = 0;
    for (let end = 0; end < count + minDistance; end++) {
      if (end < count) {
        while (tail > head && (similarity[deque[tail - 1] as number] as number) <= (similarity[end] as number)) tail--;
        deque[tail++] = end;
      }
      const i = end - minDistance;
      if (i < 0) continue;
      while ((deque[head] as number) < i - minDistance) head++;
      const value = similarity[i] as number;
      if (value >= minSimilarity && (similarity[deque[head] as number] as number) === value) order.push(i);
    }
    order.sort((a, b) => (similarity[b] as number) - (similarity[a] as number));
    for (let r = 0; r < Math.min(repeats, order.length); r++) chosen[t * repeats + r] = first + (order[r] as number);
  }
  return chosen;
}

/**
 * The repeating model (per bin, the median of the chosen frames — the upper median for an even count —, never
 * above the mixture) as a soft mask of
 * the repeating part: W / V, in [0, 1].
 */
export function repeatingMask(
  magnitude: Float32Array,
  frames: number,
  bins: number,
  chosen: Int32Array,
  repeats: number,
): Float32Array {
  const mask = new Float32Array(frames * bins);
  const values = new Float32Array(repeats);
  const rows = new Int32Array(repeats);
  for (let t = 0; t < frames; t++) {
    let count = 0;
    for (let r = 0; r < repeats; r++) {
      const frame = chosen[t * repeats + r] as number;
      if (frame >= 0) rows[count++] = frame * bins;
    }
    const middle = count >> 1;
    const row = t * bins;
    for (let k = 0; k < bins; k++) {
      const v = magnitude[row + k] as number;
      // The mask is min(1, median / v), and the median (the upper one for an even count: the value of rank
      // `middle` from 0) is below v only when more than `middle` values are: otherwise the mask is 1, found by
      // counting alone. Else the `middle + 1` smallest values are kept sorted, and the largest of them is it.
      let below = 0;
      // +(a < b) compiles branch-free: these comparisons are coin flips to a branch predictor.
      for (let i = 0; i < count; i++) below += +((magnitude[(rows[i] as number) + k] as number) < v);
      if (below <= middle) {
        mask[row + k] = 1;
        continue;
      }
      let kept = 0;
      for (let i = 0; i < count; i++) {
        const value = magnitude[(rows[i] as number) + k] as number;
        if (kept > middle && value >= (values[middle] as number)) continue;
        let j = Math.min(kept, middle) - 1;
        while (j >= 0 && (values[j] as number) > value) {
          values[j + 1] = values[j] as number;
          j--;
        }
        values[j + 1] = value;
        if (kept <= middle) kept++;
      }
      mask[row + k] = (values[middle] as number) / v;
    }
  }
  return mask;
}
