/**
 * Song sections: a list of spans with letters that group repeated sections (A, B, A, C …), boundaries on bar
 * lines. Bars are described by their timbre (section-features.ts); boundaries are peaks of Foote's novelty on
 * the bars' self-distance matrix (section-novelty.ts); segments are grouped by average-linkage clustering of
 * their mean features (section-labels.ts).
 */
import { barFeatures } from "./section-features.ts";
import { clusterSegments } from "./section-labels.ts";
import { distanceMatrix, footeNovelty, type PeakRules, pickBoundaries, standardize } from "./section-novelty.ts";

export interface SongSection {
  start: number;
  end: number;
  label: string;
}

export interface SectionOptions extends PeakRules {
  /** Seconds the novelty kernel looks either side of an edge (at least two bars). */
  kernelSeconds: number;
  /** Segments whose mean band levels differ by less than this many dB (RMS over the bands) share a label. */
  labelThreshold: number;
}

export const SECTION_OPTIONS: SectionOptions = {
  kernelSeconds: 3,
  minSection: 4,
  minFirst: 2,
  minLast: 3,
  relativeThreshold: 0.1,
  labelThreshold: 3,
};

const round3 = (seconds: number) => Math.round(seconds * 1000) / 1000;
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
  const rows = standardize(timbre);
  const half = Math.max(2, Math.round((options.kernelSeconds * bars) / duration));
  const novelty = footeNovelty(distanceMatrix(rows), bars, half);
  const cuts = [0, ...pickBoundaries(novelty, edges, options), bars];
  const segments = cuts.slice(0, -1).map((from, i) => ({ from, to: cuts[i + 1] as number }));
  const clusters = clusterSegments(timbre, segments, options.labelThreshold);
  return segments.map((s, i) => ({
    start: round3(edges[s.from] as number),
    end: round3(edges[s.to] as number),
    label: letter(clusters[i] as number),
  }));
}
