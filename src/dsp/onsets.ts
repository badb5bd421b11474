import { FrameAnalyzer } from "./stft.ts";

export interface OnsetEnvelope {
  /** Onset strength per frame (all frequencies). */
  strength: Float32Array;
  /** Onset strength of the low band (< 200 Hz): kicks and bass. */
  low: Float32Array;
  /** Onset strength of the middle band (200–2500 Hz): snare, claps, the body of most notes. */
  mid: Float32Array;
  /** Onset strength above 2500 Hz: cymbals, the snap of snare and kick, little of pitched notes. */
  high: Float32Array;
  /**
   * Per frame, the positive flux over the sum of the frame's log-compressed magnitudes (0 in silence): how much of
   * what sounds is new. Onsets renew a large share of the spectrum; a drone's vibrato or a tremolo a small one.
   */
  renewal: Float32Array;
  /**
   * The rise of the frame's whole-band energy in dB (from a floor 60 dB below the loudest frame): loudness onsets,
   * led by the low frequencies that carry most of the energy, so by kicks and bass notes and the swell of a chord,
   * where the log-magnitude flux above counts every bin alike and is led by the many bins of a hi-hat or cymbal.
   */
  loudness: Float32Array;
  /**
   * The frame's energy below 200 Hz in dB, held at least 60 dB below the loudest frame's: how a low note goes on
   * after its onset (a kick drum's dies within 150 ms, a bass note's sustains; see onTheBeat in beats.ts).
   */
  lowLevelDb: Float32Array;
  /** Frames per second. */
  frameRate: number;
}

/** Subtracts a moving average (about `seconds` long) and keeps the positive part. */
function highPass(signal: Float32Array, width: number): Float32Array {
  const out = new Float32Array(signal.length);
  const prefix = new Float64Array(signal.length + 1);
  for (let i = 0; i < signal.length; i++) prefix[i + 1] = (prefix[i] as number) + (signal[i] as number);
  const half = Math.max(1, Math.floor(width / 2));
  for (let i = 0; i < signal.length; i++) {
    const lo = Math.max(0, i - half);
    const hi = Math.min(signal.length, i + half + 1);
    const mean = ((prefix[hi] as number) - (prefix[lo] as number)) / (hi - lo);
    out[i] = Math.max(0, (signal[i] as number) - mean);
  }
  return out;
}

/**
 * Spectral flux of log-compressed magnitudes (Böck, Krebs & Schedl 2012, "Evaluating the online capabilities
 * of onset detection methods"): the summed positive change of log(1 + γ|X|) between frames, then a local mean
 * removed. Three more envelopes keep only the bins below 200 Hz (kick, bass), 200–2500 Hz (snare, clap) and above.
 */
export function onsetEnvelope(signal: Float32Array, sampleRate: number, fftSize = 1024, hop = 512): OnsetEnvelope {
  const analyzer = new FrameAnalyzer(fftSize);
  const frames = Math.ceil(signal.length / hop);
  const bins = fftSize / 2 + 1;
  const lowBins = Math.ceil((200 * fftSize) / sampleRate);
  const midBins = Math.ceil((2500 * fftSize) / sampleRate);
  const flux = new Float32Array(frames);
  const lowFlux = new Float32Array(frames);
  const midFlux = new Float32Array(frames);
  const highFlux = new Float32Array(frames);
  const renewal = new Float32Array(frames);
  const energyDb = new Float32Array(frames);
  const lowEnergyDb = new Float32Array(frames);
  const magnitudes = new Float32Array(bins);
  let previous = new Float32Array(bins);
  let current = new Float32Array(bins);
  for (let f = 0; f < frames; f++) {
    analyzer.magnitudesAt(signal, f * hop, bins, magnitudes);
    let sum = 0;
    let low = 0;
    let mid = 0;
    let high = 0;
    let level = 0;
    let energy = 0;
    let lowEnergy = 0;
    for (let k = 1; k < bins; k++) {
      energy += (magnitudes[k] as number) ** 2;
      if (k < lowBins) lowEnergy += (magnitudes[k] as number) ** 2;
      const value = Math.log1p(100 * (magnitudes[k] as number));
      current[k] = value;
      level += value;
      const rise = value - (previous[k] as number);
      if (rise > 0) {
        sum += rise;
        if (k < lowBins) low += rise;
        else if (k < midBins) mid += rise;
        else high += rise;
      }
    }
    flux[f] = f === 0 ? 0 : sum;
    lowFlux[f] = f === 0 ? 0 : low;
    midFlux[f] = f === 0 ? 0 : mid;
    highFlux[f] = f === 0 ? 0 : high;
    renewal[f] = f === 0 || level <= 0 ? 0 : sum / level;
    energyDb[f] = 10 * Math.log10(energy + 1e-20);
    lowEnergyDb[f] = 10 * Math.log10(lowEnergy + 1e-20);
    [previous, current] = [current, previous];
  }
  const frameRate = sampleRate / hop;
  const width = Math.round(frameRate * 0.5);
  return {
    strength: highPass(flux, width),
    low: highPass(lowFlux, width),
    mid: highPass(midFlux, width),
    high: highPass(highFlux, width),
    renewal,
    loudness: highPass(loudnessRise(energyDb), width),
    lowLevelDb: heldAbove(lowEnergyDb, 60),
    frameRate,
  };
}

/** Levels in dB, none lower than `range` dB below the loudest. */
function heldAbove(levelsDb: Float32Array, range: number): Float32Array {
  let loudest = Number.NEGATIVE_INFINITY;
  for (const value of levelsDb) loudest = Math.max(loudest, value);
  return levelsDb.map((value) => Math.max(loudest - range, value));
}

/** The positive frame-to-frame rise of energy in dB, each frame held at least 60 dB below the loudest. */
function loudnessRise(energyDb: Float32Array): Float32Array {
  const held = heldAbove(energyDb, 60);
  const rise = new Float32Array(held.length);
  for (let f = 1; f < held.length; f++) rise[f] = Math.max(0, (held[f] as number) - (held[f - 1] as number));
  return rise;
}

function percentile95(envelope: Float32Array): number {
  const sorted = Float32Array.from(envelope).sort();
  return sorted[Math.floor(0.95 * (sorted.length - 1))] ?? 0;
}

/**
 * The envelope the beats are tracked on: drum hits first. A kick is a low-band onset that coincides with a
 * high-band one (the beater's click), a snare or clap a mid-band onset that does (its noise): the coincidence, the
 * smaller of the two bands each scaled by its 95th percentile, tells them from bass notes and chords (low or mid
 * only) and from hi-hats (high only), which sit between the beats (Goto 2001, "An audio-based real-time beat
 * tracking system for music with or without drum-sounds": kick and snare on the beats). All onsets, at a lower
 * weight, carry the tracking where there are no drums.
 */
export function drumAccentEnvelope(onsets: OnsetEnvelope): Float32Array {
  const all = 0.3 / (percentile95(onsets.strength) || 1);
  const low = 1 / (percentile95(onsets.low) || 1);
  const mid = 1 / (percentile95(onsets.mid) || 1);
  const high = 1 / (percentile95(onsets.high) || 1);
  return onsets.strength.map((v, i) => {
    const h = (onsets.high[i] as number) * high;
    return v * all + Math.min((onsets.low[i] as number) * low, h) + Math.min((onsets.mid[i] as number) * mid, h);
  });
}
