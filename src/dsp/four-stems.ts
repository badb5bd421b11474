import { medianAcrossBins, medianAcrossFrames } from "./hpss.ts";
import { meanMagnitude, type Spectrogram } from "./spectrogram.ts";

/**
 * Soft masks for four stems (drums, bass, vocals, other) from one STFT, all classical:
 *
 * - drums: harmonic/percussive/residual separation (J. Driedger, M. Müller, S. Disch, "Extending harmonic-
 *   percussive separation of audio signals", ISMIR 2014). A cell is harmonic only where the median across time
 *   exceeds `separationFactor` × the median across frequency (Fitzgerald 2010); the rest, percussive and the
 *   noise-like residual, goes to the drums. Cymbals, open hi-hats and rides are noisy and sustained: their
 *   two medians are alike, so Fitzgerald's two-way mask splits them about evenly between the stems, while
 *   here they stay in the drums.
 * - bass and vocals: the harmonic part is searched for a predominant f0 by harmonic summation (A. Klapuri,
 *   "Multiple fundamental frequency estimation by summing harmonic amplitudes", ISMIR 2006; J. Salamon and
 *   E. Gómez, "Melody extraction from polyphonic music signals using pitch contour characteristics", IEEE TASLP
 *   2012, for the salience function): in a low band for the bass line, in the voice range (weighted towards
 *   the stereo centre, where lead vocals sit) for the melody. The f0 track is median-smoothed, and the bins
 *   around its partials form a harmonic mask (as in J.-L. Durrieu et al.'s source/filter melody separation,
 *   without its NMF). All harmonic energy below `bassAllBelowHz` is the bass.
 * - other: what the three leave, so the four masks sum to 1 in every cell.
 */
export interface FourStemOptions {
  /** Median lengths of the harmonic/percussive split (frames, bins; odd). */
  harmonicFrames: number;
  percussiveBins: number;
  /** A cell is harmonic where H > separationFactor · P (Driedger's β), softly: H² / (H² + (β·P)²). */
  separationFactor: number;
  /** Below this, a kick's or tom's decaying body (|X| − H) also counts as percussive (see hpss.ts). */
  transientBelowHz: number;
  /** Bass line f0 search range, Hz. */
  bassMinHz: number;
  bassMaxHz: number;
  /** Partials of the bass line masked, and its mask's upper limit, Hz. */
  bassHarmonics: number;
  bassTopHz: number;
  /** All harmonic energy below this is the bass. */
  bassAllBelowHz: number;
  /** Melody f0 search range, Hz. */
  melodyMinHz: number;
  melodyMaxHz: number;
  melodyHarmonics: number;
  melodyTopHz: number;
  /** A melody frame is voiced when its partials hold this share of the frame's harmonic energy in range. */
  voicingShare: number;
  /** Half-width of a partial's mask, bins. */
  partialWidth: number;
  /** Frames of the median that smooths an f0 track (odd). */
  smoothFrames: number;
  /** Exponent of the stereo-centre weight of the melody salience and mask (0 = none). */
  centreExponent: number;
}

export const FOUR_STEM_DEFAULTS: FourStemOptions = {
  harmonicFrames: 17,
  percussiveBins: 17,
  separationFactor: 2,
  transientBelowHz: 200,
  bassMinHz: 30,
  bassMaxHz: 250,
  bassHarmonics: 4,
  bassTopHz: 500,
  bassAllBelowHz: 120,
  melodyMinHz: 200,
  melodyMaxHz: 1100,
  melodyHarmonics: 12,
  melodyTopHz: 6000,
  voicingShare: 0.15,
  partialWidth: 3,
  smoothFrames: 5,
  centreExponent: 2,
};

export interface FourStemMasks {
  drums: Float32Array;
  bass: Float32Array;
  vocals: Float32Array;
}

/** Harmonic weight H^2 / (H^2 + (βP)^2) of every cell (frame-major), with the transient rule in low bins. */
export function harmonicWeight(
  magnitude: Float32Array,
  frames: number,
  bins: number,
  transientBins: number,
  options: FourStemOptions,
): Float32Array {
  const h = medianAcrossFrames(magnitude, frames, bins, options.harmonicFrames);
  const p = medianAcrossBins(magnitude, frames, bins, options.percussiveBins);
  const beta = options.separationFactor;
  const out = h;
  for (let t = 0; t < frames; t++) {
    for (let k = 0; k < bins; k++) {
      const i = t * bins + k;
      const hv = h[i] as number;
      let pv = p[i] as number;
      if (k < transientBins) pv = Math.max(pv, (magnitude[i] as number) - hv);
      const hh = hv * hv;
      const pp = beta * beta * pv * pv;
      out[i] = hh + pp > 0 ? hh / (hh + pp) : 0.5;
    }
  }
  return out;
}

/** Stereo-centre weight per cell: (2·Re(L·R*) / (|L|² + |R|²))₊^γ; 1 everywhere for mono or γ = 0. */
function centreWeight(channels: readonly Spectrogram[], gamma: number): Float32Array | undefined {
  if (channels.length !== 2 || gamma === 0) return undefined;
  const [left, right] = channels as [Spectrogram, Spectrogram];
  const out = new Float32Array(left.re.length);
  for (let i = 0; i < out.length; i++) {
    const lr = left.re[i] as number;
    const li = left.im[i] as number;
    const rr = right.re[i] as number;
    const ri = right.im[i] as number;
    const power = lr * lr + li * li + rr * rr + ri * ri;
    out[i] = power > 0 ? Math.max(0, (2 * (lr * rr + li * ri)) / power) ** gamma : 1;
  }
  return out;
}

interface F0Search {
  minHz: number;
  maxHz: number;
  harmonics: number;
  topHz: number;
}

/** Candidate f0s a fifth of a semitone apart. */
function candidates(search: F0Search): Float64Array {
  const count = Math.floor(60 * Math.log2(search.maxHz / search.minHz)) + 1;
  return Float64Array.from({ length: count }, (_, i) => search.minHz * 2 ** (i / 60));
}

/**
 * The most salient f0 of each frame (Hz, 0 for none) of a magnitude spectrogram: harmonic summation
 * Σₕ 0.8^(h−1) · max|X| near h·f0, then a running median of the track (unvoiced frames stay 0).
 */
export function predominantF0(
  magnitude: Float32Array,
  frames: number,
  bins: number,
  binHz: number,
  search: F0Search,
  smoothFrames: number,
): Float64Array {
  const f0s = candidates(search);
  const weights = Float64Array.from({ length: search.harmonics }, (_, h) => 0.8 ** h);
  const track = new Float64Array(frames);
  for (let t = 0; t < frames; t++) {
    const row = t * bins;
    let best = 0;
    let bestF0 = 0;
    for (const f0 of f0s) {
      let salience = 0;
      for (let h = 1; h <= search.harmonics; h++) {
        const f = h * f0;
        if (f > search.topHz) break;
        const k = Math.floor(f / binHz);
        if (k + 1 >= bins) break;
        const a = magnitude[row + k] as number;
        const b = magnitude[row + k + 1] as number;
        salience += (weights[h - 1] as number) * Math.max(a, b);
      }
      if (salience > best) {
        best = salience;
        bestF0 = f0;
      }
    }
    track[t] = bestF0;
  }
  return medianTrack(track, smoothFrames);
}

function medianTrack(track: Float64Array, width: number): Float64Array {
  const half = (width - 1) >> 1;
  const out = new Float64Array(track.length);
  const window: number[] = [];
  for (let t = 0; t < track.length; t++) {
    window.length = 0;
    for (let j = Math.max(0, t - half); j <= Math.min(track.length - 1, t + half); j++) window.push(track[j] as number);
    window.sort((a, b) => a - b);
    out[t] = window[window.length >> 1] as number;
  }
  return out;
}

/** Adds a triangular weight (1 at the partial, 0 at `width` bins away) around each partial of f0 into `row`. */
function addPartials(
  weights: Float32Array,
  row: number,
  bins: number,
  f0: number,
  binHz: number,
  harmonics: number,
  topHz: number,
  width: number,
): void {
  for (let h = 1; h <= harmonics; h++) {
    const centre = (h * f0) / binHz;
    if (h * f0 > topHz || centre + 1 >= bins) break;
    for (let k = Math.max(0, Math.ceil(centre - width)); k <= Math.min(bins - 1, centre + width); k++) {
      const w = 1 - Math.abs(k - centre) / width;
      if (w > (weights[row + k] as number)) weights[row + k] = w;
    }
  }
}

export function fourStemMasks(
  channels: readonly Spectrogram[],
  sampleRate: number,
  options: FourStemOptions = FOUR_STEM_DEFAULTS,
): FourStemMasks {
  const first = channels[0];
  if (!first) throw new RangeError("no channels");
  const { frames, bins, fftSize } = first;
  const binHz = sampleRate / fftSize;
  const magnitude = meanMagnitude(channels);
  const harmonic = harmonicWeight(magnitude, frames, bins, Math.round(options.transientBelowHz / binHz), options);
  const centre = centreWeight(channels, options.centreExponent);

  // The harmonic part's magnitude, and the same weighted to the centre for the melody.
  const tonal = new Float32Array(magnitude.length);
  const central = new Float32Array(magnitude.length);
  for (let i = 0; i < tonal.length; i++) {
    tonal[i] = (magnitude[i] as number) * (harmonic[i] as number);
    central[i] = (tonal[i] as number) * (centre ? (centre[i] as number) : 1);
  }
  const bassSearch = {
    minHz: options.bassMinHz,
    maxHz: options.bassMaxHz,
    harmonics: options.bassHarmonics,
    topHz: options.bassTopHz,
  };
  const melodySearch = {
    minHz: options.melodyMinHz,
    maxHz: options.melodyMaxHz,
    harmonics: options.melodyHarmonics,
    topHz: options.melodyTopHz,
  };
  const bassF0 = predominantF0(tonal, frames, bins, binHz, bassSearch, options.smoothFrames);
  const melodyF0 = predominantF0(central, frames, bins, binHz, melodySearch, options.smoothFrames);

  const bassWeight = new Float32Array(magnitude.length);
  const voiceWeight = new Float32Array(magnitude.length);
  const allBass = Math.round(options.bassAllBelowHz / binHz);
  const melodyLow = Math.floor(options.melodyMinHz / binHz);
  const melodyHigh = Math.min(bins - 1, Math.ceil(options.melodyTopHz / binHz));
  for (let t = 0; t < frames; t++) {
    const row = t * bins;
    for (let k = 0; k < allBass; k++) bassWeight[row + k] = 1;
    const f = bassF0[t] as number;
    if (f > 0)
      addPartials(bassWeight, row, bins, f, binHz, options.bassHarmonics, options.bassTopHz, options.partialWidth);
    const m = melodyF0[t] as number;
    if (m > 0) {
      addPartials(voiceWeight, row, bins, m, binHz, options.melodyHarmonics, options.melodyTopHz, options.partialWidth);
      // Voicing: the partials must hold enough of the frame's central harmonic energy.
      let on = 0;
      let all = 0;
      for (let k = melodyLow; k <= melodyHigh; k++) {
        const e = (central[row + k] as number) ** 2;
        all += e;
        on += e * (voiceWeight[row + k] as number);
      }
      if (on < options.voicingShare * all) voiceWeight.fill(0, row, row + bins);
    }
  }

  const drums = new Float32Array(magnitude.length);
  for (let i = 0; i < drums.length; i++) {
    const h = harmonic[i] as number;
    drums[i] = 1 - h;
    let b = bassWeight[i] as number;
    let v = (voiceWeight[i] as number) * (centre ? (centre[i] as number) : 1);
    if (b + v > 1) {
      const scale = 1 / (b + v);
      b *= scale;
      v *= scale;
    }
    bassWeight[i] = h * b;
    voiceWeight[i] = h * v;
  }
  return { drums, bass: bassWeight, vocals: voiceWeight };
}
