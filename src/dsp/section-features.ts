/**
 * Bar-synchronous features for song structure: what a bar sounds like, as the log of its mean energy in
 * log-spaced bands (the instrumentation, whether drums, bass or a voice play, how loud). Bars run from downbeat
 * to downbeat, as structure analyses beat- or bar-synchronise their features (Müller, "Fundamentals of Music
 * Processing", §4.2) so that boundaries fall on bar lines and repeated sections line up bar for bar.
 */
import { logBandEdges } from "./repet-sim.ts";
import { FrameAnalyzer } from "./stft.ts";

export interface BarFeatures {
  /** Bar boundaries in seconds: bar i spans [edges[i], edges[i + 1]); the first is 0, the last the duration. */
  edges: number[];
  /** Per bar: 10·log10 of the mean energy in each band. */
  timbre: Float64Array[];
}

const FFT_SIZE = 2048;
/** Frames 93 ms apart at 22.05 kHz: bars last a second or more, so a sparse sampling of them is enough. */
const HOP = 2048;
const BANDS = 20;
const LOW_HZ = 50;
const HIGH_HZ = 10_000;
/** Band energies more than this many dB below the loudest band of the song are taken as silence. */
const FLOOR_DB = 40;
/**
 * Seconds the bar lines are moved earlier for the features: a downbeat found a little late (beat trackers err
 * by tens of ms) would otherwise let its attack into the bar before.
 */
const EDGE_MARGIN_SECONDS = 0.03;
/** Bars of this many seconds when too few downbeats were found to count bars. */
const FALLBACK_BAR_SECONDS = 2;

/** Bar boundaries from the beats' downbeats (beatNum 1), from 0 to the end of the signal. */
export function barEdges(beats: { time: number; beatNum: number }[], duration: number): number[] {
  const downbeats = beats.filter((b) => b.beatNum === 1 && b.time > 0 && b.time < duration).map((b) => b.time);
  if (downbeats.length < 2) {
    const count = Math.max(1, Math.round(duration / FALLBACK_BAR_SECONDS));
    return Array.from({ length: count + 1 }, (_, i) => (i * duration) / count);
  }
  // A first or last bar shorter than half a bar (a pickup, a lead-in, the last beat) joins its neighbour.
  const bar = ((downbeats.at(-1) as number) - (downbeats[0] as number)) / (downbeats.length - 1);
  const edges = [0, ...downbeats.filter((t) => t >= bar / 2), duration];
  if (edges.length > 2 && (edges.at(-1) as number) - (edges.at(-2) as number) < bar / 2) edges.splice(-2, 1);
  return edges;
}

/** Band energies of frames every HOP samples, and the seconds between frames. */
function bandEnergies(signal: Float32Array, sampleRate: number): { rows: Float64Array[]; hopSeconds: number } {
  const analyzer = new FrameAnalyzer(FFT_SIZE);
  const bins = FFT_SIZE / 2 + 1;
  const edges = logBandEdges(bins, sampleRate, LOW_HZ, Math.min(HIGH_HZ, sampleRate / 2 - 1), BANDS);
  const spectrum = new Float32Array(bins);
  const rows: Float64Array[] = [];
  for (let center = 0; center < signal.length; center += HOP) {
    analyzer.magnitudesAt(signal, center, bins, spectrum);
    const row = new Float64Array(edges.length - 1);
    for (let b = 0; b < row.length; b++) {
      let energy = 0;
      for (let k = edges[b] as number; k < (edges[b + 1] as number); k++) energy += (spectrum[k] as number) ** 2;
      row[b] = energy;
    }
    rows.push(row);
  }
  return { rows, hopSeconds: HOP / sampleRate };
}

/**
 * The frames whose whole window lies in the bar moved EDGE_MARGIN_SECONDS earlier (the frame nearest the
 * middle where none does): a frame reaching over the bar line hears the next bar's downbeat, and a kick or a
 * crash there, in the log of a mean, outweighs the rest of the bar — the bar before a new section sounded like
 * the section (boundaries a bar early); moved earlier, the bar keeps its own downbeat's attack.
 */
function framesWithin(rows: number, hopSeconds: number, start: number, end: number): [number, number] {
  const halfWindow = ((FFT_SIZE / HOP) * hopSeconds) / 2;
  const first = Math.ceil((start - EDGE_MARGIN_SECONDS + halfWindow) / hopSeconds);
  const last = Math.floor((end - halfWindow - EDGE_MARGIN_SECONDS) / hopSeconds);
  if (last >= first) return [Math.min(rows - 1, first), Math.min(rows - 1, last)];
  const middle = Math.min(rows - 1, Math.round((start + end) / 2 / hopSeconds));
  return [middle, middle];
}

/**
 * The log of the mean (not the mean of the log): a bar's silent lead-in or a pause between notes barely moves
 * it, so a bar reads as what plays in it. Energies are floored at `floor`, far below the song's loudest band,
 * so that changes nobody could hear under the rest (a click's splatter in an empty band) count for nothing.
 */
function logMeanEnergy(rows: Float64Array[], hopSeconds: number, start: number, end: number, floor: number) {
  const [first, last] = framesWithin(rows.length, hopSeconds, start, end);
  const out = new Float64Array(rows[0]?.length ?? 0);
  for (let i = first; i <= last; i++) {
    const row = rows[i] as Float64Array;
    for (let b = 0; b < out.length; b++) out[b] = (out[b] as number) + (row[b] as number);
  }
  for (let b = 0; b < out.length; b++) out[b] = 10 * Math.log10((out[b] as number) / (last - first + 1) + floor);
  return out;
}

/** The energy FLOOR_DB below that of the loudest band averaged over the whole signal (never zero). */
function energyFloor(rows: Float64Array[]): number {
  const mean = new Float64Array(rows[0]?.length ?? 0);
  for (const row of rows) for (let b = 0; b < mean.length; b++) mean[b] = (mean[b] as number) + (row[b] as number);
  return Math.max(1e-6, (Math.max(0, ...mean) / Math.max(1, rows.length)) * 10 ** (-FLOOR_DB / 10));
}

export function barFeatures(
  signal: Float32Array,
  sampleRate: number,
  beats: { time: number; beatNum: number }[],
): BarFeatures {
  const edges = barEdges(beats, signal.length / sampleRate);
  const { rows, hopSeconds } = bandEnergies(signal, sampleRate);
  const floor = energyFloor(rows);
  const timbre = edges
    .slice(0, -1)
    .map((start, i) => logMeanEnergy(rows, hopSeconds, start, edges[i + 1] as number, floor));
  return { edges, timbre };
}
