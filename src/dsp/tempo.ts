/**
 * Global tempo from an onset envelope by pulse matching. For each candidate tempo a pulse train is
 * fitted (best phase) to the envelope in short windows (so mild tempo drift does not matter), and two
 * figures are kept: the mean onset strength on the pulses (how well the tempo fits) and their lower
 * quartile (whether nearly every pulse carries an onset). The beat level is the fastest well-fitting
 * tempo on which nearly every pulse sounds: its double leaves every other pulse empty, its half skips
 * beats that are there. This resolves the octave ambiguity that autocorrelation alone leaves (cf. the
 * metrical-level discussion in Ellis 2007, "Beat tracking by dynamic programming", and Percival &
 * Tzanetakis 2014, "Streamlined tempo estimation based on autocorrelation and cross-correlation with pulses").
 */

const WINDOW_SECONDS = 8;
/** Candidate tempi are spaced by this ratio (1.2 BPM at 120 BPM): the beat tracker refines the tempo. */
const STEP_RATIO = 1.01;

export interface TempoOptions {
  minBpm?: number;
  maxBpm?: number;
}

interface Candidate {
  bpm: number;
  mean: number;
  lowerQuartile: number;
}

function quantile(values: number[], q: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(q * (sorted.length - 1)))] ?? 0;
}

/** Envelope value at a fractional frame, the largest within ±1 frame (timing jitter tolerance). */
function peakNear(envelope: Float32Array, position: number): number {
  const i = Math.round(position);
  return Math.max(envelope[i - 1] ?? 0, envelope[i] ?? 0, envelope[i + 1] ?? 0);
}

function scoreTempo(envelope: Float32Array, frameRate: number, bpm: number): Candidate {
  const period = (60 * frameRate) / bpm;
  const window = Math.min(envelope.length, Math.round(WINDOW_SECONDS * frameRate));
  const starts: number[] = [];
  for (let start = 0; start + window <= envelope.length; start += Math.round(window / 2)) starts.push(start);
  if (starts.length === 0) starts.push(0);
  let meanSum = 0;
  let quartileSum = 0;
  for (const start of starts) {
    // The best phase by mean; only its values are kept, for the quartile.
    let bestMean = -1;
    let bestPhase = 0;
    for (let phase = 0; phase < period; phase++) {
      let sum = 0;
      let count = 0;
      for (let position = start + phase; position < start + window; position += period) {
        sum += peakNear(envelope, position);
        count++;
      }
      const mean = sum / Math.max(1, count);
      if (mean > bestMean) {
        bestMean = mean;
        bestPhase = phase;
      }
    }
    const values: number[] = [];
    for (let position = start + bestPhase; position < start + window; position += period)
      values.push(peakNear(envelope, position));
    meanSum += bestMean;
    quartileSum += quantile(values, 0.25);
  }
  return { bpm, mean: meanSum / starts.length, lowerQuartile: quartileSum / starts.length };
}

/** The tempo in BPM (within minBpm..maxBpm) of an onset envelope sampled at frameRate. */
export function estimateTempo(envelope: Float32Array, frameRate: number, options: TempoOptions = {}): number {
  const minBpm = options.minBpm ?? 60;
  const maxBpm = options.maxBpm ?? 200;
  const candidates: Candidate[] = [];
  for (let bpm = minBpm * 0.97; bpm <= maxBpm * 1.03; bpm *= STEP_RATIO)
    candidates.push(scoreTempo(envelope, frameRate, bpm));
  // Local maxima of the fit, each a metrical level (beat, half, double, bar…).
  const peaks = candidates.filter(
    (c, i) => c.mean >= (candidates[i - 1]?.mean ?? 0) && c.mean >= (candidates[i + 1]?.mean ?? 0),
  );
  const bestMean = Math.max(...peaks.map((c) => c.mean));
  const bestQuartile = Math.max(...peaks.map((c) => c.lowerQuartile));
  const levels = peaks.filter((c) => c.mean >= 0.6 * bestMean && c.lowerQuartile >= 0.5 * bestQuartile);
  const chosen = levels.reduce(
    (fastest, c) => (c.bpm > fastest.bpm ? c : fastest),
    levels[0] ?? (peaks[0] as Candidate),
  );
  return Math.min(maxBpm, Math.max(minBpm, chosen.bpm));
}
