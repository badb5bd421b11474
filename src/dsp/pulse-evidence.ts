/**
 * Whether there is a beat to count at all. A beat tracker finds a "tempo" in anything (noise, speech, a drone,
 * a rubato passage), so the tempo is reported only when three cues agree:
 * - periodicity: the onset envelope repeats at the beat period. Per 8 s window, the largest normalised
 *   autocorrelation at lags within ±5 % of the period (so mild drift and ritardandos do not matter), the median over
 *   windows (the pulse clarity of Lartillot et al. 2008, "Multi-feature modeling of pulse clarity", ISMIR). Where
 *   the onsets repeat more clearly over two periods, the mean of the two counts: a strummed tresillo (3+3+2
 *   sixteenths) or a riff of two beats has no onset a beat after another and repeats only over the pair, but the
 *   beat itself must be heard too, so the pair counts half. Noise, speech and free time have onsets, but not at
 *   one period.
 * - salience: those repeats are onsets, not a drone's vibrato or tremolo, which repeat as steadily but renew only a
 *   small share of the spectrum (the 95th percentile of the onset envelope's renewal, see onsets.ts).
 * - length: at least MIN_PERIODS beat periods are heard (a 2.4 s spoken sentence repeats "at 60 BPM" by chance
 *   over its one and a half periods); from MIN_PERIODS − 1 to MIN_PERIODS the cue rises from 0 to 1.
 * The first two are mapped to 0..1 by logistic curves whose midpoints lie between what the calibration material
 * gives with and without a beat (test/analysis/calibration-report.ts: calibration-material.ts against the suite,
 * the corpus' development and tuning splits and the family material's development plan); the confidence
 * is the smallest of the three. Each curve is placed against the material it is there to refuse: periodicity
 * against noise, speech and free time (at most 0.172), salience against drones (at most 0.074; music from 0.114).
 * Noise renews as much of the spectrum as sparse music does (pink 0.096) and is refused by its periodicity (0.08).
 */
import type { OnsetEnvelope } from "./onsets.ts";

const WINDOW_SECONDS = 8;
const LAG_TOLERANCE = 0.05;
/** Beat periods a signal must last for its pulse to count. */
const MIN_PERIODS = 4;
/** Logistic midpoints and widths of the cues (calibrated, see above). */
export const PERIODICITY_CURVE = { midpoint: 0.2, width: 0.025 };
export const SALIENCE_CURVE = { midpoint: 0.094, width: 0.01 };

export interface PulseEvidence {
  /**
   * Median over windows of the onset envelope's autocorrelation at the beat period, or its mean with that at two
   * periods where that is larger, −1..1.
   */
  periodicity: number;
  /** The 95th percentile of the share of the spectrum renewed per frame, 0..1. */
  salience: number;
  /** 0..1: how sure the analysis is that the signal has a beat at this period. */
  confidence: number;
}

export const logistic = (value: number, curve: { midpoint: number; width: number }) =>
  1 / (1 + Math.exp(-(value - curve.midpoint) / curve.width));

/**
 * The largest Pearson correlation of `values[from..to)` with itself `lag` items later (over the overlap), for
 * lags from `shortest` to `longest`.
 */
function bestAutocorrelation(values: Float32Array, from: number, to: number, shortest: number, longest: number) {
  let mean = 0;
  for (let i = from; i < to; i++) mean += values[i] as number;
  mean /= Math.max(1, to - from);
  let den = 0;
  for (let i = from; i < to; i++) den += ((values[i] as number) - mean) ** 2;
  let best = -1;
  for (let lag = shortest; lag <= longest; lag++) {
    let num = 0;
    for (let i = from; i + lag < to; i++) num += ((values[i] as number) - mean) * ((values[i + lag] as number) - mean);
    best = Math.max(best, den > 0 ? num / den : 0);
  }
  return best;
}

function quantile(values: ArrayLike<number>, q: number): number {
  const sorted = Float64Array.from(values).sort();
  return sorted[Math.floor(q * (sorted.length - 1))] ?? 0;
}

export function pulseEvidence(onsets: OnsetEnvelope, bpm: number): PulseEvidence {
  const envelope = onsets.strength;
  const period = (60 * onsets.frameRate) / bpm;
  const window = Math.min(envelope.length, Math.round(WINDOW_SECONDS * onsets.frameRate));
  const shortest = Math.max(1, Math.floor(period * (1 - LAG_TOLERANCE)));
  const longest = Math.ceil(period * (1 + LAG_TOLERANCE));
  const atPeriods = (periods: number) => {
    const perWindow: number[] = [];
    for (let start = 0; start + window <= envelope.length && window > 0; start += Math.max(1, Math.round(window / 2)))
      perWindow.push(bestAutocorrelation(envelope, start, start + window, periods * shortest, periods * longest));
    return perWindow.length > 0 ? quantile(perWindow, 0.5) : 0;
  };
  const atOne = atPeriods(1);
  const periodicity = Math.max(atOne, (atOne + atPeriods(2)) / 2);
  const salience = quantile(onsets.renewal, 0.95);
  const heard = Math.max(0, Math.min(1, envelope.length / period - (MIN_PERIODS - 1)));
  const confidence = Math.min(logistic(periodicity, PERIODICITY_CURVE), logistic(salience, SALIENCE_CURVE), heard);
  return { periodicity, salience, confidence };
}
