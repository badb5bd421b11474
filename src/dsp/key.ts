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
  /** How far the best key's score stands above the runner-up's (see keyConfidence in tonal-evidence.ts). */
  margin: number;
  /** The best key's score (profile correlation plus harmonic fit). */
  score: number;
}

/** A recognised chord and how long it sounds. */
export interface ChordOccurrence {
  root: number;
  quality: "maj" | "min";
  seconds: number;
}

/**
 * How well chords fit a key, by harmonic function: tonic, dominant and subdominant chords count most,
 * other diatonic chords less, chords foreign to the key against it (the chord-based side of key finding, cf.
 * Papadopoulos & Peeters 2011, "Local key estimation from an audio signal relying on harmonic and metrical
 * structures"). Minor keys count the major dominant (harmonic minor) as their own, and a major chord on their
 * tonic as fully as a major key does: power chords (root and fifth, which distorted guitars play) are recognised as
 * major, so a minor rock song's tonic chord reads major (as may a Picardy third), and the chord alone cannot tell the
 * modes apart; the pitch profile (the thirds, sixths and sevenths the melody and the other chords play) decides.
 * At half weight, power-chord songs in minor read as their parallel major (the family development plan: key exact
 * 48 % → 55 % at full weight, docs/decisions.md).
 */
const FUNCTION_WEIGHTS: Record<"major" | "minor", Record<string, number>> = {
  major: { "0maj": 1, "7maj": 0.8, "5maj": 0.8, "9min": 0.6, "2min": 0.6, "4min": 0.4 },
  minor: { "0min": 1, "0maj": 1, "7maj": 0.8, "5min": 0.8, "7min": 0.5, "8maj": 0.6, "3maj": 0.6, "10maj": 0.6 },
};
const FOREIGN_WEIGHT = -0.3;
/**
 * Pieces mostly start on their tonic chord, and end on its root more often still (the final cadence; only the
 * root counts there, since a long-ringing last chord's third is the easiest part to mishear). An opening chord on
 * the tonic of the other quality (a power chord read as major) earns half the opening bonus.
 */
const OPENING_TONIC_BONUS = 0.3;
const CLOSING_TONIC_BONUS = 0.5;

function harmonicFit(chords: ChordOccurrence[], tonic: number, mode: "major" | "minor"): number {
  const total = chords.reduce((a, c) => a + c.seconds, 0);
  if (total === 0) return 0;
  let fit = 0;
  for (const chord of chords) {
    const degree = (chord.root - tonic + 12) % 12;
    fit += chord.seconds * (FUNCTION_WEIGHTS[mode][`${degree}${chord.quality}`] ?? FOREIGN_WEIGHT);
  }
  const isTonic = (chord: ChordOccurrence | undefined) =>
    chord !== undefined && chord.root === tonic && chord.quality === (mode === "major" ? "maj" : "min");
  const opening = isTonic(chords[0]) ? OPENING_TONIC_BONUS : chords[0]?.root === tonic ? OPENING_TONIC_BONUS / 2 : 0;
  return fit / total + opening + (chords.at(-1)?.root === tonic ? CLOSING_TONIC_BONUS : 0);
}

/**
 * The key that best explains both the pitch-class distribution (Krumhansl & Schmuckler's profile
 * correlation, with Temperley's profiles) and, when given, the chords heard (their harmonic functions).
 */
export function estimateKey(distribution: ArrayLike<number>, chords: ChordOccurrence[] = []): KeyEstimate {
  const scores: { tonic: number; mode: "major" | "minor"; r: number }[] = [];
  for (let tonic = 0; tonic < 12; tonic++) {
    const rotated = Array.from({ length: 12 }, (_, i) => distribution[(i + tonic) % 12] as number);
    for (const mode of ["major", "minor"] as const) {
      const profile = correlation(rotated, mode === "major" ? MAJOR : MINOR);
      scores.push({ tonic, mode, r: profile + harmonicFit(chords, tonic, mode) });
    }
  }
  scores.sort((a, b) => b.r - a.r);
  const [best, second] = scores as [(typeof scores)[0], (typeof scores)[0]];
  return {
    tonic: best.tonic,
    mode: best.mode,
    name: `${pitchName(best.tonic)} ${best.mode}`,
    margin: best.r - second.r,
    score: best.r,
  };
}
