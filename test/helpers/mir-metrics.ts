/** Evaluation measures of music analysis, as mir_eval defines them (Raffel et al. 2014). */

/** F-measure of estimated event times against reference ones, each matched at most once within ±window. */
export function fMeasure(reference: number[], estimated: number[], window = 0.07): number {
  if (reference.length === 0 && estimated.length === 0) return 1;
  if (reference.length === 0 || estimated.length === 0) return 0;
  const used = new Set<number>();
  let matched = 0;
  for (const r of reference) {
    let best = -1;
    let bestDistance = window;
    estimated.forEach((e, i) => {
      const d = Math.abs(e - r);
      if (!used.has(i) && d <= bestDistance) {
        best = i;
        bestDistance = d;
      }
    });
    if (best >= 0) {
      used.add(best);
      matched++;
    }
  }
  const precision = matched / estimated.length;
  const recall = matched / reference.length;
  return precision + recall === 0 ? 0 : (2 * precision * recall) / (precision + recall);
}

/** Tempo within `tolerance` (relative) of the truth; "octave" when it is a double, half, triple or third. */
export function tempoVerdict(truth: number, estimate: number, tolerance = 0.02): "correct" | "octave" | "wrong" {
  if (Math.abs(estimate / truth - 1) <= tolerance) return "correct";
  for (const factor of [2, 0.5, 3, 1 / 3]) if (Math.abs(estimate / (truth * factor) - 1) <= tolerance) return "octave";
  return "wrong";
}

/** Fraction of the reference's duration where the estimated chord label equals the reference label. */
export function chordOverlap(
  reference: { start: number; end: number; chord: string }[],
  estimated: { start: number; end: number; chord: string }[],
): number {
  let total = 0;
  let agree = 0;
  for (const r of reference) {
    total += r.end - r.start;
    for (const e of estimated) {
      const overlap = Math.min(r.end, e.end) - Math.max(r.start, e.start);
      if (overlap > 0 && e.chord === r.chord) agree += overlap;
    }
  }
  return total > 0 ? agree / total : 0;
}

/**
 * MIREX key score of an estimated key against the reference ("C major", "F# minor"), as mir_eval's
 * key.weighted_score: 1 the same key, 0.5 a perfect fifth above in the same mode, 0.3 the relative key,
 * 0.2 the parallel key, else 0.
 */
export function keyScore(reference: string, estimated: string): number {
  const names = ["C", "C#", "D", "Eb", "E", "F", "F#", "G", "Ab", "A", "Bb", "B"];
  const parse = (key: string) => {
    const [tonic = "", mode = ""] = key.split(" ");
    return { tonic: names.indexOf(tonic), mode };
  };
  const r = parse(reference);
  const e = parse(estimated);
  const interval = (((e.tonic - r.tonic) % 12) + 12) % 12;
  if (r.mode === e.mode) return interval === 0 ? 1 : interval === 7 ? 0.5 : 0;
  if (interval === 0) return 0.2;
  return (r.mode === "major" && interval === 9) || (r.mode === "minor" && interval === 3) ? 0.3 : 0;
}
