/**
 * How much the chroma supports a chord or a key. A chord recogniser and a key finder always name their best
 * candidate, even for noise (whose flat chroma fits every triad a little); these figures say how far the best
 * candidate stands above what no harmony at all would give, and above its rivals.
 * - Triad fit: the cosine between a segment's chroma (linear energy, not log-compressed, so a flat spectrum stays
 *   flat) and a triad's template. A flat chroma fits every triad at 0.5, one pitch at 0.58, a bare fifth at 0.82, a
 *   clean triad at 1 (template matching as in Fujishima 1999; the fit as a chord's salience, cf. Harte's chroma
 *   "chordness").
 * - Chord margin: the chosen triad's fit over the best other triad's (the match margin).
 * - Key margin: the best key's score (profile correlation plus harmonic fit, key.ts) over the runner-up's. It says
 *   which key (a major key and its relative minor often stand close), not whether there is one: noise's flat
 *   chroma and a drone give large margins.
 * - Key support, whether there is a key at all: the spectral peaks keep to one tuning as tuned instruments do
 *   (speech glides, noise has no pitch; Chromagram.tuningClarity) and the harmony moves (a drone holds one sound;
 *   harmonicMovement below). Each on a logistic curve, the smaller counts. The triad fit is no cue
 *   for it: a melody over the chords lowers it in songs as much as speech does.
 * The curves' midpoints and widths were calibrated on the calibration material (see
 * test/analysis/calibration-report.ts: calibration-material.ts against the suite, the corpus' development and
 * tuning splits and the family material's development plan), not on the test material.
 */
import { CHORDS, type ChordLabel } from "./chords.ts";
import { averageFrames, type Chromagram, unitChromaCosine } from "./chroma.ts";
import { logistic } from "./pulse-evidence.ts";

export const FIT_CURVE = { midpoint: 0.7, width: 0.04 };
export const CHORD_MARGIN_CURVE = { midpoint: 0.03, width: 0.02 };
export const KEY_MARGIN_CURVE = { midpoint: 0.12, width: 0.03 };
export const TUNING_CURVE = { midpoint: 0.27, width: 0.02 };
export const MOVEMENT_CURVE = { midpoint: 0.012, width: 0.0025 };

const INTERVALS = { maj: [0, 4, 7], min: [0, 3, 7] };

/** The cosine of unit-free chroma with the triad's template (0 when the chroma is silent). */
export function triadFit(chroma: Float32Array, chord: ChordLabel): number {
  let norm = 0;
  for (let c = 0; c < 12; c++) norm += (chroma[c] as number) ** 2;
  if (norm <= 0) return 0;
  let dot = 0;
  for (const interval of INTERVALS[chord.quality]) dot += chroma[(chord.root + interval) % 12] as number;
  return dot / Math.sqrt(3 * norm);
}

/** 0..1: how clearly the chroma sounds some triad at all (the best triad's fit on the logistic curve). */
export function harmonicPresence(chroma: Float32Array): number {
  let best = 0;
  for (const chord of CHORDS) best = Math.max(best, triadFit(chroma, chord));
  return logistic(best, FIT_CURVE);
}

/**
 * 0..1 for a recognised chord over a segment: it must be heard (its fit) and stand out from the other triads (its
 * margin). For "N" (null): 1 over silence, else how clearly no triad sounds.
 */
export function chordConfidence(chroma: Float32Array | null, chord: ChordLabel | null): number {
  if (!chroma) return chord === null ? 1 : 0;
  if (chord === null) return 1 - harmonicPresence(chroma);
  const fit = triadFit(chroma, chord);
  let rival = 0;
  for (const other of CHORDS)
    if (other.root !== chord.root || other.quality !== chord.quality) rival = Math.max(rival, triadFit(chroma, other));
  return Math.min(logistic(fit, FIT_CURVE), logistic(fit - rival, CHORD_MARGIN_CURVE));
}

/** 0..1: whether the signal has a key at all (see above); below 0.5 the key is reported as null. */
export function keySupport(tuningClarity: number, movement: number): number {
  return Math.min(logistic(tuningClarity, TUNING_CURVE), logistic(movement, MOVEMENT_CURVE));
}

/**
 * 0..1 for the key reported: its support, times a factor from 0.5 to 1 for how clearly the best key stands above
 * the runner-up (a key and its relative minor, sharing their notes, can stand close).
 */
export function keyConfidence(support: number, margin: number): number {
  return support * (0.5 + 0.5 * logistic(margin, KEY_MARGIN_CURVE));
}

/** The window over which harmonicMovement compares the sound with the sound just before. */
const MOVEMENT_WINDOW_SECONDS = 0.25;

/**
 * How much the harmony moves from moment to moment: the mean of 1 − cosine between the treble chroma of consecutive
 * quarter seconds, over pairs that both sound (summed chroma above floor). The chroma is taken as amplitude (the
 * square root of its energy), so a quieter melody over a held chord still counts and a drone's beating partials
 * little: on the calibration material drones give 0.0001-0.007, music 0.021 and up, where energy gave 0.023
 * against 0.042 and log-compressed chroma 0.003 against 0.0066 (decisions.md). Measured against the whole piece's
 * mean instead, a riff that keeps to one chord looked as still as a drone.
 */
export function harmonicMovement(chroma: Chromagram, floor: number): number {
  const duration = chroma.treble.length * chroma.hopSeconds;
  let previous: Float32Array | null = null;
  let moved = 0;
  let pairs = 0;
  for (let start = 0; start + MOVEMENT_WINDOW_SECONDS <= duration; start += MOVEMENT_WINDOW_SECONDS) {
    const window = averageFrames(chroma.treble, chroma.hopSeconds, start, start + MOVEMENT_WINDOW_SECONDS);
    const energy = window.reduce((a, b) => a + b, 0);
    const current = energy > floor ? unitAmplitude(window) : null;
    if (previous && current) {
      moved += 1 - unitChromaCosine(previous, current);
      pairs++;
    }
    previous = current;
  }
  return pairs > 0 ? moved / pairs : 0;
}

/** The chroma as amplitude (square root of each energy), to unit length. */
function unitAmplitude(energy: Float32Array): Float32Array {
  const amplitude = energy.map(Math.sqrt);
  const norm = Math.hypot(...amplitude);
  return amplitude.map((v) => v / norm);
}
