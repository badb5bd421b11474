/**
 * Section boundaries by novelty (J. Foote, "Automatic audio segmentation using a measure of audio novelty",
 * ICME 2000): a checkerboard kernel slid along the diagonal of the bars' self-distance matrix scores how much
 * the bars before an edge differ from those after it, beyond how much each side differs within itself. The
 * strongest peaks become boundaries, no two closer than a section can be short.
 */

/**
 * Each dimension centred and scaled to unit variance over the bars (so no band outweighs the others); a
 * standard deviation below `floor` counts as `floor`, so a band that holds still is not blown up to noise.
 */
export function standardize(rows: Float64Array[], floor: number): Float64Array[] {
  const out = rows.map((row) => Float64Array.from(row));
  const dims = rows[0]?.length ?? 0;
  for (let k = 0; k < dims; k++) {
    let mean = 0;
    for (const row of rows) mean += row[k] as number;
    mean /= rows.length;
    let variance = 0;
    for (const row of rows) variance += ((row[k] as number) - mean) ** 2;
    const sd = Math.max(floor, Math.sqrt(variance / rows.length));
    for (const row of out) row[k] = ((row[k] as number) - mean) / sd;
  }
  return out;
}

/** Root-mean-square difference per dimension. */
export function rmsDistance(a: Float64Array, b: Float64Array): number {
  let sum = 0;
  for (let k = 0; k < a.length; k++) sum += ((a[k] as number) - (b[k] as number)) ** 2;
  return Math.sqrt(sum / Math.max(1, a.length));
}

/** The n×n matrix of distances between rows, row-major. */
export function distanceMatrix(rows: Float64Array[]): Float64Array {
  const n = rows.length;
  const d = new Float64Array(n * n);
  for (let i = 0; i < n; i++)
    for (let j = i + 1; j < n; j++) {
      const v = rmsDistance(rows[i] as Float64Array, rows[j] as Float64Array);
      d[i * n + j] = v;
      d[j * n + i] = v;
    }
  return d;
}

/**
 * Novelty at each edge b (between bars b−1 and b; 0 at the ends): the Gaussian-tapered mean distance across the
 * edge minus that within either side, over `half` bars each side (fewer near the ends, the weights renormalised).
 */
export function footeNovelty(d: Float64Array, n: number, half: number): Float64Array {
  const out = new Float64Array(n + 1);
  const sigma = half / 2;
  const taper = (i: number, b: number) => Math.exp(-0.5 * ((i - b + 0.5) / sigma) ** 2);
  for (let b = 1; b < n; b++) {
    let across = 0;
    let acrossWeight = 0;
    let within = 0;
    let withinWeight = 0;
    for (let i = Math.max(0, b - half); i < Math.min(n, b + half); i++) {
      for (let j = Math.max(0, b - half); j < Math.min(n, b + half); j++) {
        if (i === j) continue;
        const w = taper(i, b) * taper(j, b);
        if (i < b !== j < b) {
          across += w * (d[i * n + j] as number);
          acrossWeight += w;
        } else {
          within += w * (d[i * n + j] as number);
          withinWeight += w;
        }
      }
    }
    out[b] = (acrossWeight > 0 ? across / acrossWeight : 0) - (withinWeight > 0 ? within / withinWeight : 0);
  }
  return out;
}

export interface PeakRules {
  /** Seconds between two boundaries, at least. */
  minSection: number;
  /** Seconds from the start to the first boundary, at least (an intro may be shorter than other sections). */
  minFirst: number;
  /** Seconds from the last boundary to the end, at least. */
  minLast: number;
  /** A peak below this share of the strongest one is not a boundary. */
  relativeThreshold: number;
  /** Nor is one below this (in standardised units): changes too small to hear. */
  minNovelty: number;
}

/**
 * Bar edges at local maxima of the novelty, strongest first, each kept if it respects the rules against those
 * kept before it; in time order. The edges that close off a lone bar, the first and the last (a lead-in; the final
 * chord ringing out), are weighed apart: their kernel sees that one bar on one side, which differs from any playing,
 * so they peaked above a section's true start a bar or two away and, within 4 s of it, kept it out (the family
 * development plan's metal songs: outros found a bar late in every rendering, an intro's end missed). They neither
 * mask a neighbour's peak nor keep other boundaries away, and are kept themselves where they peak on their own.
 */
export function pickBoundaries(novelty: Float64Array, edges: number[], rules: PeakRules): number[] {
  const n = edges.length - 1;
  const duration = edges[n] as number;
  const lone = n >= 3 ? [1, n - 1] : [];
  const value = (b: number) => (lone.includes(b) ? Number.NEGATIVE_INFINITY : (novelty[b] as number));
  const isPeak = (b: number) => {
    const t = edges[b] as number;
    const v = novelty[b] as number;
    return (
      t >= rules.minFirst &&
      duration - t >= rules.minLast &&
      v >= rules.minNovelty &&
      v >= value(b - 1) &&
      v >= value(b + 1)
    );
  };
  const candidates = Array.from({ length: Math.max(0, n - 1) }, (_, i) => i + 1).filter(
    (b) => !lone.includes(b) && isPeak(b),
  );
  candidates.sort((a, b) => value(b) - value(a));
  const floor = rules.relativeThreshold * (candidates[0] === undefined ? 0 : value(candidates[0]));
  const kept: number[] = [];
  for (const b of candidates) {
    if (value(b) < floor) break;
    const t = edges[b] as number;
    if (kept.every((k) => Math.abs((edges[k] as number) - t) >= rules.minSection)) kept.push(b);
  }
  // The lone edges keep the minimum length between themselves (a clip of three bars is not cut into three).
  const keptLone: number[] = [];
  for (const b of [...lone].sort((a, b) => (novelty[b] as number) - (novelty[a] as number))) {
    const t = edges[b] as number;
    const apart = keptLone.every((k) => Math.abs((edges[k] as number) - t) >= rules.minSection);
    if (isPeak(b) && (novelty[b] as number) >= floor && apart) keptLone.push(b);
  }
  return [...kept, ...keptLone].sort((a, b) => a - b);
}

/**
 * Cuts (bar indices from 0 to the bar count) with every segment at least `ratio` times the typical inner one
 * split once, on the bar edge of highest novelty within a bar of one typical length from its start: a section
 * repeated back to back (verse, verse) changes little at the join, and popular songs keep their sections to
 * regular lengths (the regularity constraint of Sargent, Bimbot & Vincent, IEEE/ACM TASLP 2017).
 */
export function splitLongSegments(cuts: number[], novelty: Float64Array, ratio: number): number[] {
  const inner = cuts.slice(2, -1).map((cut, i) => cut - (cuts[i + 1] as number));
  if (inner.length < 2) return cuts;
  const typical = [...inner].sort((a, b) => a - b)[Math.floor((inner.length - 1) / 2)] as number;
  const out = [0];
  for (let i = 1; i < cuts.length; i++) {
    const from = cuts[i - 1] as number;
    const to = cuts[i] as number;
    if (to - from >= ratio * typical) {
      let best = -1;
      for (let b = Math.max(from + 2, from + typical - 1); b <= Math.min(to - 2, from + typical + 1); b++)
        if (best < 0 || (novelty[b] as number) > (novelty[best] as number)) best = b;
      if (best > 0) out.push(best);
    }
    out.push(to);
  }
  return out;
}
