/**
 * Song sections: spans from 0 to the end whose letters group repeated sections (A, B, A, C …), boundaries on
 * the analysis' downbeats.
 * - Features (section-features.ts): per bar, the log of the mean energy in 20 log-spaced bands, 50 Hz–10 kHz:
 *   the instrumentation and loudness, what changes most from one section to the next.
 * - Boundaries (section-novelty.ts): Foote's novelty (ICME 2000) on the bars' self-distance matrix, the kernel
 *   about 3 s either side; the strongest peaks, no section shorter than 4 s (an intro 2 s, the last 3 s; the
 *   edges of a lone first or last bar apart, see pickBoundaries); then
 *   a segment about twice the typical length is split where novelty peaks near its middle (regularity).
 * - Labels (section-labels.ts): average-linkage clustering of the segments' mean band levels, merged while
 *   closer than 2.5 dB RMS (the "state" approach of Paulus, Müller & Klapuri, ISMIR 2010).
 * Chroma was tried as well, in the distance matrix, per bar and time-delay embedded over 2 and 4 bars (as in
 * Serrà et al. 2014's structure features and McFee & Ellis 2014's recurrence graph): on the development split
 * of the corpus it lowered every figure (its sections differ above all in instrumentation), so it is left out.
 * The time scales were chosen on that split, whose sections last 2.4–8 s; in longer songs the method cuts
 * more finely than a listener would annotate.
 */
import { barFeatures } from "./section-features.ts";
import { clearlyApart, clusterSegments, labelConfidences, segmentDistances } from "./section-labels.ts";
import {
  distanceMatrix,
  footeNovelty,
  type PeakRules,
  pickBoundaries,
  splitLongSegments,
  standardize,
} from "./section-novelty.ts";

export interface SongSection {
  start: number;
  end: number;
  label: string;
  /**
   * 0..1: how clearly the section stands apart — the smaller of its edges' strength (how far it differs in sound
   * from its neighbours; the song's start and end are certain) and its letter's (nearer the sections of its own
   * letter than those of any other, see labelConfidences).
   */
  confidence: number;
}

export interface SectionOptions extends PeakRules {
  /** Seconds the novelty kernel looks either side of an edge (at least two bars). */
  kernelSeconds: number;
  /** Segments at least this many times as long as the typical one are split in two. */
  splitRatio: number;
  /** Segments whose mean band levels differ by less than this many dB (RMS over the bands) share a label. */
  labelThreshold: number;
  /**
   * From this distance (dB RMS) two sections count as clearly apart, for the confidences: a little above the
   * label threshold, so that sections told apart by less than it are labelled apart but not sure of it.
   */
  clearlyApartDb: number;
}

export const SECTION_OPTIONS: SectionOptions = {
  kernelSeconds: 3,
  minSection: 4,
  minFirst: 2,
  minLast: 3,
  relativeThreshold: 0.1,
  minNovelty: 0.1,
  splitRatio: 1.8,
  labelThreshold: 2.5,
  clearlyApartDb: 3,
};

/** Band levels that vary less than this over the song (dB, standard deviation) are taken as steady. */
const MIN_BAND_DEVIATION_DB = 1;

const round3 = (seconds: number) => Math.round(seconds * 1000) / 1000;
const round2 = (value: number) => Math.round(value * 100) / 100;

const letter = (i: number) => (i < 26 ? String.fromCharCode(65 + i) : `Z${i - 25}`);

export function findSections(
  signal: Float32Array,
  sampleRate: number,
  beats: { time: number; beatNum: number }[],
  options: SectionOptions = SECTION_OPTIONS,
): SongSection[] {
  const duration = signal.length / sampleRate;
  if (duration === 0) return [];
  const { edges, timbre } = barFeatures(signal, sampleRate, beats);
  const bars = edges.length - 1;
  const rows = standardize(timbre, MIN_BAND_DEVIATION_DB);
  const half = Math.max(2, Math.round((options.kernelSeconds * bars) / duration));
  const novelty = footeNovelty(distanceMatrix(rows), bars, half);
  const cuts = splitLongSegments([0, ...pickBoundaries(novelty, edges, options), bars], novelty, options.splitRatio);
  const segments = cuts.slice(0, -1).map((from, i) => ({ from, to: cuts[i + 1] as number }));
  const distances = segmentDistances(timbre, segments);
  const clusters = clusterSegments(distances, options.labelThreshold);
  const labelSure = labelConfidences(distances, clusters, options.clearlyApartDb);
  // An inner edge is as sure as the sections either side of it differ in sound (dB, unstandardised: the
  // standardised features make any song's largest change look large, a steady song's too).
  const edgeSure = (i: number) =>
    i <= 0 || i >= segments.length ? 1 : clearlyApart(distances[i - 1]?.[i] as number, options.clearlyApartDb);
  return segments.map((s, i) => ({
    start: round3(edges[s.from] as number),
    end: round3(edges[s.to] as number),
    label: letter(clusters[i] as number),
    confidence: round2(Math.min((edgeSure(i) + edgeSure(i + 1)) / 2, labelSure[i] as number)),
  }));
}
