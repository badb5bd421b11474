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
 *   the stereo centre, where lead vocals sit) for the melody. Octave errors are checked both ways by the
 *   partials' odd/even balance. The f0 track is median-smoothed, and the bins around its partials form a
 *   harmonic mask (as in J.-L. Durrieu et al.'s source/filter melody separation, without its NMF). All
 *   harmonic energy below `bassAllBelowHz` is the bass.
 * - The vocal mask is taken first (its partials' harmonic share, centre-weighted); drums, bass and other
 *   split what it leaves, so a voice's partials are not also counted in the drums' residual.
 * - other: what the three leave, so the four masks sum to 1 in every cell.
 */
export interface FourStemOptions {
  /** Median lengths of the harmonic/percussive split (frames, bins; odd). */
  harmonicFrames: number;
  percussiveBins: number;
  /**
   * A cell is harmonic where H > β · P (Driedger's separation factor), softly: H² / (H² + (β·P)²). β is
   * `lowSeparationFactor` up to `lowBandHz` and `separationFactor` from `highBandHz` up, log-linear between:
   * in the low band the bass's decaying notes must stay harmonic, above it sustained noise (cymbals) is drums.
   */
  separationFactor: number;
  lowSeparationFactor: number;
  lowBandHz: number;
  highBandHz: number;
  /** Below this, a kick's or tom's decaying body (|X| − H) also counts as percussive (see hpss.ts). */
  transientBelowHz: number;
  /**
   * A struck drum's body below `hitDecayBelowHz` and a cymbal's ring above `hitDecayAboveHz` (harmonicWeight): a
   * cell that starts percussive on a rise of at least `hitRiseDb` in its bin, and the cells after it while they
   * decay at least `hitDecayDbPerSecond` fast, are percussive.
   */
  hitDecayBelowHz: number;
  hitDecayDbPerSecond: number;
  hitRiseDb: number;
  hitDecayAboveHz: number;
  /** Bass line f0 search range, Hz. */
  bassMinHz: number;
  bassMaxHz: number;
  /**
   * Partials of the bass line masked, and its mask's upper limit, Hz: its fundamental and lowest partials only.
   * Above ~300 Hz the bass's partials are weaker than the chords', pads' and voice's that share the band, so a
   * bass mask there takes more of them than of the bass (500 Hz → 300 Hz: bass SDR +0.2…+2.3 dB on four
   * development/tuning subsets, other within ±0.7 dB).
   */
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
  /** …and at least this share of the energy of the song's median voiced frame. */
  voicingRelative: number;
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
  separationFactor: 4,
  lowSeparationFactor: 1.2,
  lowBandHz: 500,
  highBandHz: 2000,
  transientBelowHz: 200,
  hitDecayBelowHz: 500,
  hitDecayAboveHz: 2000,
  hitDecayDbPerSecond: 20,
  hitRiseDb: 3,
  bassMinHz: 30,
  bassMaxHz: 250,
  bassHarmonics: 4,
  bassTopHz: 300,
  bassAllBelowHz: 120,
  melodyMinHz: 200,
  melodyMaxHz: 1100,
  melodyHarmonics: 12,
  melodyTopHz: 6000,
  voicingShare: 0.05,
  voicingRelative: 0.3,
  partialWidth: 4,
  smoothFrames: 5,
  centreExponent: 1,
};

export interface FourStemMasks {
  drums: Float32Array;
  bass: Float32Array;
  vocals: Float32Array;
  /** The f0 tracks behind the bass and vocal masks, Hz per frame (0: none). */
  bassF0: Float64Array;
  melodyF0: Float64Array;
}

/**
 * Harmonic weight H^2 / (H^2 + (βP)^2) of every cell (frame-major), with the transient rule in low bins and
 * the hit-decay rule: a struck drum's decaying body belongs to the hit (the "percussive + its decaying residual"
 * reading of Driedger et al. 2014, locked to the hit as an exponential drum envelope is). A tom's or kick's
 * tonal body lasts a few hundred milliseconds and a cymbal's ring longer, so the median across time takes them
 * for notes (toms 73–83 %, open hi-hat 83 %, ride 84 %, ride bell 67 % in drums). A cell that starts percussive
 * (weight below ½) on a rise of at least `hitRiseDb` in its bin over two frames, and the cells after it in that
 * bin while each decays at least `hitDecayDbPerSecond` from the one before, take |X| as their percussive
 * estimate: weight H² / (H² + β²|X|²). Soft, so a bass note that starts with a kick (H as large as |X|) keeps
 * ~40 % of those cells (a hard 0 cost the bass 0.2–0.3 dB on development and tuning); a sustained note's onset
 * is harmonic already (H ≈ |X|) and starts no hit. Only below `hitDecayBelowHz` (drum bodies) and above
 * `hitDecayAboveHz` (cymbals, where pitched instruments' partials are weak): between, decaying piano and guitar
 * partials were taken (stems-4 drums −0.4 dB, other −0.3 dB on development).
 */
export function harmonicWeight(
  magnitude: Float32Array,
  frames: number,
  bins: number,
  transientBins: number,
  binHz: number,
  frameSeconds: number,
  options: FourStemOptions,
): Float32Array {
  const h = medianAcrossFrames(magnitude, frames, bins, options.harmonicFrames);
  const p = medianAcrossBins(magnitude, frames, bins, options.percussiveBins);
  const betaSquared = Float32Array.from({ length: bins }, (_, k) => {
    const f = Math.min(options.highBandHz, Math.max(options.lowBandHz, k * binHz));
    const x = Math.log(f / options.lowBandHz) / Math.log(options.highBandHz / options.lowBandHz);
    return (options.lowSeparationFactor * (options.separationFactor / options.lowSeparationFactor) ** x) ** 2;
  });
  // Bins where a struck drum's decaying body counts as the hit (hitDecayBelowHz, hitDecayAboveHz).
  const lowHitBins = Math.min(bins, Math.round(options.hitDecayBelowHz / binHz));
  const highHitBins = Math.round(options.hitDecayAboveHz / binHz);
  const decay = 10 ** ((-options.hitDecayDbPerSecond * frameSeconds) / 20);
  const rise = 10 ** (options.hitRiseDb / 20);
  const inHit = new Uint8Array(bins);
  const out = h;
  for (let t = 0; t < frames; t++) {
    const row = t * bins;
    for (let k = 0; k < bins; k++) {
      const i = row + k;
      const x = magnitude[i] as number;
      const hv = h[i] as number;
      let pv = p[i] as number;
      if (k < transientBins) pv = Math.max(pv, x - hv);
      const hh = hv * hv;
      const betaP = (betaSquared[k] as number) * pv * pv;
      let w = hh + betaP > 0 ? hh / (hh + betaP) : 0.5;
      if (t >= 2 && (k < lowHitBins || k >= highHitBins)) {
        // A hit starts where the cell is percussive and rose by `hitRiseDb` over two frames; it goes on while
        // each frame decays by at least `hitDecayDbPerSecond`; the first frame that doesn't ends it.
        if (x > 0 && x >= rise * (magnitude[i - 2 * bins] as number) && w < 0.5) inHit[k] = 1;
        else if (!(inHit[k] === 1 && x <= decay * (magnitude[i - bins] as number))) inHit[k] = 0;
        if (inHit[k] === 1 && hh > 0) w = Math.min(w, hh / (hh + (betaSquared[k] as number) * x * x));
      }
      out[i] = w;
    }
  }
  return out;
}

/** The drum mask alone (percussive + residual, 1 − harmonicWeight) of a mixture's channels. */
export function drumMask(
  channels: readonly Spectrogram[],
  sampleRate: number,
  options: FourStemOptions = FOUR_STEM_DEFAULTS,
): Float32Array {
  const { frames, bins, fftSize } = channels[0] as Spectrogram;
  const binHz = sampleRate / fftSize;
  const transientBins = Math.round(options.transientBelowHz / binHz);
  const { hop } = channels[0] as Spectrogram;
  const frameSeconds = hop / sampleRate;
  const mask = harmonicWeight(meanMagnitude(channels), frames, bins, transientBins, binHz, frameSeconds, options);
  for (let i = 0; i < mask.length; i++) mask[i] = 1 - (mask[i] as number);
  return mask;
}

/**
 * Stereo-centre weight per cell, 1 everywhere for mono or γ = 0 (undefined): the larger of the coherence
 * (2·Re(L·R*) / (|L|² + |R|²))₊ and the level balance min(|L|, |R|) / max(|L|, |R|), to the power γ. Both are 1
 * for a centred source and lower for one panned aside; the coherence alone also takes a centred voice rendered
 * with stereo chorus or from a wide sample (equal levels, decorrelated phases, as GM "Lead 6 (voice)" is) for a
 * side source, and lost it (tuning split: vocals −5.0 → +1.3 dB with the larger of the two).
 */
function centreWeight(channels: readonly Spectrogram[], gamma: number): Float32Array | undefined {
  if (channels.length !== 2 || gamma === 0) return undefined;
  const [left, right] = channels as [Spectrogram, Spectrogram];
  const out = new Float32Array(left.re.length);
  for (let i = 0; i < out.length; i++) {
    const lr = left.re[i] as number;
    const li = left.im[i] as number;
    const rr = right.re[i] as number;
    const ri = right.im[i] as number;
    const l = lr * lr + li * li;
    const r = rr * rr + ri * ri;
    const coherence = l + r > 0 ? Math.max(0, (2 * (lr * rr + li * ri)) / (l + r)) : 1;
    const balance = l + r > 0 ? Math.sqrt(Math.min(l, r) / Math.max(l, r)) : 1;
    const centre = Math.max(coherence, balance);
    out[i] = gamma === 1 ? centre : centre ** gamma;
  }
  return out;
}

interface F0Search {
  minHz: number;
  maxHz: number;
  harmonics: number;
  topHz: number;
}

/** Candidate f0s a third of a semitone apart. */
function candidates(search: F0Search): Float64Array {
  const count = Math.floor(36 * Math.log2(search.maxHz / search.minHz)) + 1;
  return Float64Array.from({ length: count }, (_, i) => search.minHz * 2 ** (i / 36));
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
  const harmonics = search.harmonics;
  const weights = Float64Array.from({ length: harmonics }, (_, h) => 0.8 ** h);
  // The bin below each candidate's partials (−1 past the top), worked out once for all frames.
  const partialBins = new Int32Array(f0s.length * harmonics).fill(-1);
  f0s.forEach((f0, c) => {
    for (let h = 1; h <= harmonics; h++) {
      const k = Math.floor((h * f0) / binHz);
      if (h * f0 > search.topHz || k + 1 >= bins) break;
      partialBins[c * harmonics + h - 1] = k;
    }
  });
  const track = new Float64Array(frames);
  for (let t = 0; t < frames; t++) {
    const row = t * bins;
    let best = 0;
    let bestF0 = 0;
    for (let c = 0; c < f0s.length; c++) {
      let salience = 0;
      for (let h = 0; h < harmonics; h++) {
        const k = partialBins[c * harmonics + h] as number;
        if (k < 0) break;
        const a = magnitude[row + k] as number;
        const b = magnitude[row + k + 1] as number;
        salience += (weights[h] as number) * Math.max(a, b);
      }
      if (salience > best) {
        best = salience;
        bestF0 = f0s[c] as number;
      }
    }
    // A sub-octave (f0/2 of the true one) collects the true partials as its even ones, and between them (its
    // odd ones) only the background: while the odd partials are much weaker than the even ones, go up an octave.
    while (bestF0 > 0 && 2 * bestF0 <= search.maxHz && oddToEven(magnitude, row, bins, binHz, bestF0, search) < 0.5)
      bestF0 *= 2;
    // The converse, an octave above the true f0 when its fundamental is weak (low bass notes): the partials
    // of f0/2 that f0's own series lacks, its odd ones, hold as much as its even ones: go down an octave.
    if (bestF0 / 2 >= search.minHz && oddToEven(magnitude, row, bins, binHz, bestF0 / 2, search) >= 0.5) bestF0 /= 2;
    track[t] = bestF0;
  }
  return medianTrack(track, smoothFrames);
}

/** Mean magnitude at the odd partials of f0 over that at the even ones (the first `harmonics` partials). */
function oddToEven(magnitude: Float32Array, row: number, bins: number, binHz: number, f0: number, search: F0Search) {
  let odd = 0;
  let even = 0;
  for (let h = 1; h <= search.harmonics; h++) {
    const k = Math.floor((h * f0) / binHz);
    if (h * f0 > search.topHz || k + 1 >= bins) break;
    const value = Math.max(magnitude[row + k] as number, magnitude[row + k + 1] as number);
    if (h % 2 === 1) odd += value;
    else even += value;
  }
  return even > 0 ? odd / even : 1;
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
  const harmonic = harmonicWeight(
    magnitude,
    frames,
    bins,
    Math.round(options.transientBelowHz / binHz),
    binHz,
    first.hop / sampleRate,
    options,
  );
  const centre = centreWeight(channels, options.centreExponent);

  // The harmonic part's magnitude in the bass's bins, and everywhere weighted to the centre for the melody
  // (in place of the magnitude: a whole-song spectrogram is tens of megabytes).
  const lowBins = Math.min(bins, Math.ceil(options.bassTopHz / binHz) + 2);
  const tonal = new Float32Array(frames * lowBins);
  const central = magnitude;
  for (let t = 0; t < frames; t++)
    for (let k = 0; k < bins; k++) {
      const i = t * bins + k;
      const value = (magnitude[i] as number) * (harmonic[i] as number);
      if (k < lowBins) tonal[t * lowBins + k] = value;
      central[i] = centre ? value * (centre[i] as number) : value;
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
  const bassF0 = predominantF0(tonal, frames, lowBins, binHz, bassSearch, options.smoothFrames);
  const melodyF0 = predominantF0(central, frames, bins, binHz, melodySearch, options.smoothFrames);

  const bassWeight = new Float32Array(magnitude.length);
  const voiceWeight = new Float32Array(magnitude.length);
  const allBass = Math.round(options.bassAllBelowHz / binHz);
  const melodyEnergy = new Float64Array(frames);
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
        const c = central[row + k] as number;
        const e = c * c;
        all += e;
        on += e * (voiceWeight[row + k] as number);
      }
      if (on < options.voicingShare * all) {
        voiceWeight.fill(0, row, row + bins);
        melodyF0[t] = 0;
      } else melodyEnergy[t] = on;
    }
  }
  // Voicing across the song (as Salamon & Gómez filter contours by salience): frames whose melody is much
  // weaker than the song's typical melody frame are accompaniment alone.
  const voiced = [...melodyEnergy].filter((e) => e > 0).sort((a, b) => a - b);
  const typical = voiced[voiced.length >> 1] ?? 0;
  for (let t = 0; t < frames; t++) {
    const e = melodyEnergy[t] as number;
    if (e > 0 && e < options.voicingRelative * typical) {
      voiceWeight.fill(0, t * bins, (t + 1) * bins);
      melodyF0[t] = 0;
    }
  }

  const drums = harmonic;
  for (let i = 0; i < drums.length; i++) {
    const h = harmonic[i] as number;
    const b = bassWeight[i] as number;
    const v = (voiceWeight[i] as number) * (centre ? (centre[i] as number) : 1) * h;
    const rest = 1 - v;
    drums[i] = (1 - h) * rest;
    bassWeight[i] = h * b * rest;
    voiceWeight[i] = v;
  }
  return { drums, bass: bassWeight, vocals: voiceWeight, bassF0, melodyF0 };
}
