/**
 * Section labels: segments that sound alike get one letter. A repeated section keeps its instrumentation and
 * sound, so segments are grouped by the distance of their mean features (segment statistics clustered, as in
 * Foote & Cooper, "Media segmentation using self-similarity decomposition", SPIE 2003; the "state" view of
 * Paulus, Müller & Klapuri, "Audio-based music structure analysis", ISMIR 2010), with average-linkage
 * agglomerative clustering stopped at a distance threshold (the number of distinct sections is not known).
 */
import { rmsDistance } from "./section-novelty.ts";

export interface BarRange {
  /** First bar. */
  from: number;
  /** One past the last bar. */
  to: number;
}

function meanOf(rows: Float64Array[], range: BarRange): Float64Array {
  const out = new Float64Array(rows[0]?.length ?? 0);
  const count = range.to - range.from;
  for (let i = range.from; i < range.to; i++) {
    const row = rows[i] as Float64Array;
    for (let k = 0; k < out.length; k++) out[k] = (out[k] as number) + (row[k] as number) / count;
  }
  return out;
}

/** The RMS distance (dB) between every two segments' mean feature rows. */
export function segmentDistances(rows: Float64Array[], segments: BarRange[]): number[][] {
  const means = segments.map((s) => meanOf(rows, s));
  return means.map((a) => means.map((b) => rmsDistance(a, b)));
}

/**
 * A cluster index per segment (`pairDistance`: segmentDistances), numbered in order of first appearance
 * (0, 1, 0, 2 …).
 */
export function clusterSegments(pairDistance: number[][], threshold: number): number[] {
  const linkage = (x: number[], y: number[]) => {
    let sum = 0;
    for (const i of x) for (const j of y) sum += pairDistance[i]?.[j] as number;
    return sum / (x.length * y.length);
  };
  const clusters = pairDistance.map((_, i) => [i]);
  for (;;) {
    let best = { x: -1, y: -1, distance: Number.POSITIVE_INFINITY };
    for (let x = 0; x < clusters.length; x++)
      for (let y = 0; y < x; y++) {
        const distance = linkage(clusters[x] as number[], clusters[y] as number[]);
        if (distance < best.distance) best = { x, y, distance };
      }
    if (best.x < 0 || best.distance > threshold) break;
    clusters[best.y]?.push(...(clusters[best.x] as number[]));
    clusters.splice(best.x, 1);
  }
  const clusterOf = new Map<number, number>();
  clusters.forEach((members, c) => {
    for (const i of members) clusterOf.set(i, c);
  });
  const order = new Map<number, number>();
  return pairDistance.map((_, i) => {
    const c = clusterOf.get(i) as number;
    if (!order.has(c)) order.set(c, order.size);
    return order.get(c) as number;
  });
}

/** How far past the label threshold (dB RMS) a distance must lie to count as a clear "same" or "different". */
const LABEL_MARGIN_DB = 1;

/** 0..1: how clearly a distance (dB RMS) lies above the threshold (a logistic curve, LABEL_MARGIN_DB wide). */
export const clearlyApart = (distance: number, threshold: number) =>
  1 / (1 + Math.exp(-(distance - threshold) / LABEL_MARGIN_DB));

/**
 * 0..1 per segment: how clearly its letter is right — its mean distance to the other segments of its letter
 * below the threshold, and to the nearest other letter's segments above it (clearlyApart). A letter alone with
 * no other letters is certain.
 */
export function labelConfidences(pairDistance: number[][], clusters: number[], threshold: number): number[] {
  return pairDistance.map((row, i) => {
    const byCluster = new Map<number, number[]>();
    row.forEach((d, j) => {
      if (j === i) return;
      const c = clusters[j] as number;
      const list = byCluster.get(c);
      if (list) list.push(d);
      else byCluster.set(c, [d]);
    });
    const mean = (values: number[]) => values.reduce((a, b) => a + b, 0) / values.length;
    const own = byCluster.get(clusters[i] as number);
    let nearestOther = Number.POSITIVE_INFINITY;
    for (const [c, distances] of byCluster)
      if (c !== clusters[i]) nearestOther = Math.min(nearestOther, mean(distances));
    const together = own ? 1 - clearlyApart(mean(own), threshold) : 1;
    const apart = Number.isFinite(nearestOther) ? clearlyApart(nearestOther, threshold) : 1;
    return Math.min(together, apart);
  });
}
