import { pitchName } from "./pitch.ts";

/**
 * Key-finding profiles of Temperley (2007, "Music and Probability", from the Kostka–Payne corpus): how
 * much each scale degree is used in major and minor keys (tonic first).
 */
const MAJOR = [0.748, 0.06, 0.488, 0.082, 0.67, 0.46, 0.096, 0.715, 0.104, 0.366, 0.057, 0.4];
const MINOR = [0.712, 0.084, 0.474, 0.618, 0.049, 0.46, 0.105, 0.747, 0.404, 0.067, 0.133, 0.33];

function correlation(a: ArrayLike<number>, b: ArrayLike<number>): number {
  const n = a.length;
  let meanA = 0;
  let meanB = 0;
  for (let i = 0; i < n; i++) {
    meanA += (a[i] as number) / n;
    meanB += (b[i] as number) / n;
  }
  let num = 0;
  let da = 0;
  let db = 0;
  for (let i = 0; i < n; i++) {
    const x = (a[i] as number) - meanA;
    const y = (b[i] as number) - meanB;
    num += x * y;
    da += x * x;
    db += y * y;
  }
  return da > 0 && db > 0 ? num / Math.sqrt(da * db) : 0;
}

export interface KeyEstimate {
  tonic: number;
  mode: "major" | "minor";
  /** "C major", "F# minor", … */
  name: string;
  /** 0..1: how far the best key's correlation stands above the runner-up's. */
  confidence: number;
  /** Correlation of the chroma with the best key's profile. */
  correlation: number;
}

/**
 * The key whose profile, rotated to its tonic, correlates best with a pitch-class distribution
 * (Krumhansl & Schmuckler's key-finding algorithm, with Temperley's profiles).
 */
export function estimateKey(distribution: ArrayLike<number>): KeyEstimate {
  const scores: { tonic: number; mode: "major" | "minor"; r: number }[] = [];
  for (let tonic = 0; tonic < 12; tonic++) {
    const rotated = Array.from({ length: 12 }, (_, i) => distribution[(i + tonic) % 12] as number);
    scores.push({ tonic, mode: "major", r: correlation(rotated, MAJOR) });
    scores.push({ tonic, mode: "minor", r: correlation(rotated, MINOR) });
  }
  scores.sort((a, b) => b.r - a.r);
  const [best, second] = scores as [(typeof scores)[0], (typeof scores)[0]];
  const confidence = Math.max(0, Math.min(1, ((best.r - second.r) / Math.max(1e-9, 1 - second.r)) * 4));
  return {
    tonic: best.tonic,
    mode: best.mode,
    name: `${pitchName(best.tonic)} ${best.mode}`,
    confidence: Math.round(confidence * 100) / 100,
    correlation: best.r,
  };
}
