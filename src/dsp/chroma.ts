import { decimateByTwo } from "./decimate.ts";
import { FrameAnalyzer } from "./stft.ts";

export interface Chromagram {
  /** 12-bin pitch-class energy per frame (C = 0), treble range. */
  treble: Float32Array[];
  /** The same for the bass range. */
  bass: Float32Array[];
  /** Seconds between frames (frame i is centred at i × hop). */
  hopSeconds: number;
  /** Estimated deviation of the tuning from A = 440 Hz, in cents. */
  tuningCents: number;
  /**
   * 0..1: how closely the tonal spectral peaks keep to one tuning (the length of their magnitude-weighted mean
   * tuning phasor over their summed magnitude, shrunk where tonal peaks are a small share of all; see
   * estimateTuning). Tuned instruments hold their notes on one grid; speech glides between pitches and noise has
   * none, so their peaks fall anywhere on it. Only tonal peaks count, so that drums, cymbals and a distorted
   * guitar's noise over the notes do not hide the notes' tuning.
   */
  tuningClarity: number;
}

/** At half the input rate (chroma needs nothing above 2.1 kHz): 2.7 Hz bins, a frame every ~93 ms at 22.05 kHz input. */
const FFT_SIZE = 4096;
const HOP = 1024;
const BASS = [40, 160];
const TREBLE = [100, 2100];

/** A peak counts as tonal from this many times the median magnitude of the BLOCK bins (~67 Hz) it lies in. */
const TONAL_PROMINENCE = 4;
const BLOCK = 25;
/**
 * Clarity is the tonal peaks' concentration on the grid, shrunk towards 0 by this share of all peaks' summed
 * magnitude: a few tonal peaks that noise throws up by chance, carrying nothing of its spectrum, say nothing.
 */
const TONAL_SHRINK = 0.1;

/**
 * One spectrum's peaks in the treble range: the sum of the tonal peaks' tuning phasors weighted by magnitude, the
 * sum of those magnitudes, and the summed magnitude of all peaks. A peak is tonal when it stands TONAL_PROMINENCE
 * times above the median of the bins of its block, as a sustained partial does; a periodogram's peaks over noise (a
 * cymbal, a distorted guitar's hiss, a breath) almost never do (for Gaussian noise, about once in 70,000 bins).
 */
function tuningPhasor(spectrum: Float32Array, binHz: number, around: Float32Array): [number, number, number, number] {
  let x = 0;
  let y = 0;
  let tonal = 0;
  let total = 0;
  let sortedBlock = -1;
  let median = 0;
  const last = Math.min(spectrum.length - 1, (TREBLE[1] as number) / binHz);
  for (let k = Math.ceil((TREBLE[0] as number) / binHz); k < last; k++) {
    const m = spectrum[k] as number;
    const left = spectrum[k - 1] as number;
    const right = spectrum[k + 1] as number;
    if (m <= left || m <= right) continue;
    total += m;
    const block = Math.floor(k / BLOCK);
    if (block !== sortedBlock) {
      sortedBlock = block;
      const from = Math.max(1, block * BLOCK);
      const bins = around.subarray(0, Math.min(spectrum.length, (block + 1) * BLOCK) - from);
      bins.set(spectrum.subarray(from, from + bins.length));
      bins.sort();
      median = bins[bins.length >> 1] as number;
    }
    if (m < TONAL_PROMINENCE * median) continue;
    // Parabolic interpolation of the peak's frequency.
    const offset = (0.5 * (left - right)) / (left - 2 * m + right);
    const frequency = (k + offset) * binHz;
    const semitones = 12 * Math.log2(frequency / 440);
    const angle = 2 * Math.PI * (semitones - Math.round(semitones));
    x += m * Math.cos(angle);
    y += m * Math.sin(angle);
    tonal += m;
  }
  return [x, y, tonal, total];
}

/**
 * Deviation (cents, −50..50) of the tonal spectral peaks from the equal-tempered grid on A440, as a circular mean
 * weighted by magnitude, and how concentrated they are around it (see Chromagram.tuningClarity).
 * The per-spectrum loop is its own function: V8 then optimizes it whole instead of re-entering an
 * on-stack-replaced inner loop (and throwing that code away) once per spectrum.
 */
function estimateTuning(spectra: Float32Array[], binHz: number): { cents: number; clarity: number } {
  let x = 0;
  let y = 0;
  let tonal = 0;
  let total = 0;
  const around = new Float32Array(BLOCK);
  for (const spectrum of spectra) {
    const [sx, sy, st, sa] = tuningPhasor(spectrum, binHz, around);
    x += sx;
    y += sy;
    tonal += st;
    total += sa;
  }
  const clarity = tonal > 0 ? Math.hypot(x, y) / (tonal + TONAL_SHRINK * total) : 0;
  return { cents: (Math.atan2(y, x) / (2 * Math.PI)) * 100, clarity };
}

/**
 * Chroma from an STFT (Fujishima 1999; Müller, "Fundamentals of Music Processing", ch. 3): each bin's
 * energy goes to the pitch class of its frequency, on a grid shifted by the estimated tuning; treble and
 * bass ranges are kept apart (bass for chord roots).
 */
export function chromagram(input: Float32Array, inputRate: number): Chromagram {
  const signal = decimateByTwo(input, inputRate);
  const sampleRate = inputRate / 2;
  const analyzer = new FrameAnalyzer(FFT_SIZE);
  const frames = Math.max(1, Math.ceil(signal.length / HOP));
  const binHz = sampleRate / FFT_SIZE;
  const usedBins = Math.min(FFT_SIZE / 2, Math.ceil((TREBLE[1] as number) / binHz) + 1) + 1;
  const spectra: Float32Array[] = [];
  for (let f = 0; f < frames; f++) spectra.push(analyzer.magnitudesAt(signal, f * HOP, usedBins));
  const tuning = estimateTuning(
    spectra.filter((_, i) => i % 4 === 0),
    binHz,
  );
  const tuningCents = tuning.cents;
  const reference = 440 * 2 ** (tuningCents / 1200);
  const lastBin = usedBins - 2;
  const pitchClassOf = new Int8Array(lastBin + 1).fill(-1);
  const isBass = new Uint8Array(lastBin + 1);
  const isTreble = new Uint8Array(lastBin + 1);
  for (let k = 1; k <= lastBin; k++) {
    const frequency = k * binHz;
    const midi = 69 + 12 * Math.log2(frequency / reference);
    pitchClassOf[k] = ((Math.round(midi) % 12) + 12) % 12;
    isBass[k] = frequency >= (BASS[0] as number) && frequency < (BASS[1] as number) ? 1 : 0;
    isTreble[k] = frequency >= (TREBLE[0] as number) && frequency < (TREBLE[1] as number) ? 1 : 0;
  }
  const treble: Float32Array[] = [];
  const bass: Float32Array[] = [];
  for (const spectrum of spectra) {
    const t = new Float32Array(12);
    const b = new Float32Array(12);
    for (let k = 1; k <= lastBin; k++) {
      const pc = pitchClassOf[k] as number;
      const energy = (spectrum[k] as number) ** 2;
      if (isTreble[k]) t[pc] = (t[pc] as number) + energy;
      if (isBass[k]) b[pc] = (b[pc] as number) + energy;
    }
    treble.push(t);
    bass.push(b);
  }
  return { treble, bass, hopSeconds: HOP / sampleRate, tuningCents, tuningClarity: tuning.clarity };
}

/** Mean of the frames whose centres fall in [start, end) seconds (the nearest frame if none). */
export function averageFrames(frames: Float32Array[], hopSeconds: number, start: number, end: number): Float32Array {
  const sum = new Float32Array(12);
  let first = Math.ceil(start / hopSeconds);
  let last = Math.ceil(end / hopSeconds) - 1;
  if (last < first) {
    first = Math.min(frames.length - 1, Math.round((start + end) / 2 / hopSeconds));
    last = first;
  }
  let count = 0;
  for (let i = Math.max(0, first); i <= Math.min(frames.length - 1, last); i++) {
    const frame = frames[i] as Float32Array;
    for (let c = 0; c < 12; c++) sum[c] = (sum[c] as number) + (frame[c] as number);
    count++;
  }
  if (count > 0) for (let c = 0; c < 12; c++) sum[c] = (sum[c] as number) / count;
  return sum;
}

/** The cosine of two unit-length chroma vectors, their dot product (0 when either is missing, as silence). */
export function unitChromaCosine(a: Float32Array | null, b: Float32Array | null): number {
  if (!a || !b) return 0;
  let dot = 0;
  for (let c = 0; c < 12; c++) dot += (a[c] as number) * (b[c] as number);
  return dot;
}
