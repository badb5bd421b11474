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

/** A cluster index per segment, numbered in order of first appearance (0, 1, 0, 2 …). */
export function clusterSegments(rows: Float64Array[], segments: BarRange[], threshold: number): number[] {
  const means = segments.map((s) => meanOf(rows, s));
  const pairDistance = segments.map((_, i) =>
    segments.map((_, j) => rmsDistance(means[i] as Float64Array, means[j] as Float64Array)),
  );
  const linkage = (x: number[], y: number[]) => {
    let sum = 0;
    for (const i of x) for (const j of y) sum += pairDistance[i]?.[j] as number;
    return sum / (x.length * y.length);
  };
  const clusters = segments.map((_, i) => [i]);
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
  return segments.map((_, i) => {
    const c = clusterOf.get(i) as number;
    if (!order.has(c)) order.set(c, order.size);
    return order.get(c) as number;
  });
}
