/**
 * Evaluation of music structure (segment boundaries and labels) as mir_eval.segment defines it (Raffel et al.
 * 2014): boundary detection within a window (`detection`) and pairwise frame clustering (`pairwise`).
 */

export interface LabelledSpan {
  start: number;
  end: number;
  label: string;
}

/** How many distinct labels the spans use. */
export const distinctLabels = (spans: readonly LabelledSpan[]): number => new Set(spans.map((s) => s.label)).size;

/** Inner boundaries: every start but the first (the ends of the first to the last-but-one span). */
const innerBoundaries = (spans: LabelledSpan[]) => spans.slice(1).map((s) => s.start);

/** The largest one-to-one matching of reference to estimated events within ±window (Kuhn's augmenting paths). */
function matchedCount(reference: number[], estimated: number[], window: number): number {
  const matchOf = new Array<number>(estimated.length).fill(-1);
  const augment = (r: number, seen: boolean[]): boolean => {
    for (let e = 0; e < estimated.length; e++) {
      if (seen[e] || Math.abs((estimated[e] as number) - (reference[r] as number)) > window) continue;
      seen[e] = true;
      if (matchOf[e] === -1 || augment(matchOf[e] as number, seen)) {
        matchOf[e] = r;
        return true;
      }
    }
    return false;
  };
  let matched = 0;
  for (let r = 0; r < reference.length; r++)
    if (augment(r, new Array<boolean>(estimated.length).fill(false))) matched++;
  return matched;
}

/**
 * Boundary detection F-measure within ±window seconds (mir_eval.segment.detection with trim=True): the start
 * and end of the piece are not counted, only the boundaries between sections, each matched at most once.
 */
export function boundaryF(reference: LabelledSpan[], estimated: LabelledSpan[], window = 3): number {
  const ref = innerBoundaries(reference);
  const est = innerBoundaries(estimated);
  if (ref.length === 0 && est.length === 0) return 1;
  if (ref.length === 0 || est.length === 0) return 0;
  const matched = matchedCount(ref, est, window);
  const precision = matched / est.length;
  const recall = matched / ref.length;
  return precision + recall === 0 ? 0 : (2 * precision * recall) / (precision + recall);
}

/** The label at time t (the last span if t is past the end). */
function labelAt(spans: LabelledSpan[], t: number): string {
  for (const span of spans) if (t < span.end) return span.label;
  return spans.at(-1)?.label ?? "";
}

/**
 * Pairwise frame clustering F-measure (mir_eval.segment.pairwise, Levy & Sandler 2008): both annotations sampled
 * every `frame` seconds over the reference's span; of the pairs of distinct frames, precision is the share of
 * those labelled alike in the estimate that are alike in the reference, recall the converse.
 */
export function pairwiseF(reference: LabelledSpan[], estimated: LabelledSpan[], frame = 0.1): number {
  const end = reference.at(-1)?.end ?? 0;
  const pairs = (counts: Map<string, number>) => [...counts.values()].reduce((a, n) => a + (n * (n - 1)) / 2, 0);
  const ref = new Map<string, number>();
  const est = new Map<string, number>();
  const both = new Map<string, number>();
  for (let i = 0; i * frame < end; i++) {
    const r = labelAt(reference, i * frame);
    const e = labelAt(estimated, i * frame);
    ref.set(r, (ref.get(r) ?? 0) + 1);
    est.set(e, (est.get(e) ?? 0) + 1);
    both.set(`${r}\u0000${e}`, (both.get(`${r}\u0000${e}`) ?? 0) + 1);
  }
  const agreeBoth = pairs(both);
  const precision = agreeBoth / Math.max(1, pairs(est));
  const recall = agreeBoth / Math.max(1, pairs(ref));
  return precision + recall === 0 ? 0 : (2 * precision * recall) / (precision + recall);
}
