/**
 * Scoring the music analysis on rendered corpus tracks: one row per track and a summary per split. Shared by
 * test/analysis/corpus-accuracy.test.ts and the tuning report (test/analysis/corpus-report.ts).
 */
import { ANALYSIS_SAMPLE_RATE, analyzeMusic } from "../../src/dsp/analyze-music.ts";
import { findSections } from "../../src/dsp/sections.ts";
import { decodeAudio } from "../../src/media/pcm.ts";
import type { RenderedTrack } from "../corpus/corpus.ts";
import { chordOverlap, fMeasure, keyScore, tempoVerdict } from "../helpers/mir-metrics.ts";
import { boundaryF, distinctLabels, pairwiseF } from "../helpers/segment-metrics.ts";

export interface Row {
  id: string;
  groove: string;
  meter: string;
  truthBpm: number;
  bpm: number | null;
  tempo: "correct" | "octave" | "wrong";
  beatF: number;
  downbeatF: number;
  key: string;
  keyScore: number;
  chordOverlap: number;
  /**
   * Sections (mixdown/sections on the analysis' beats) against the truth's: boundary F within ±0.5 s, pairwise
   * label F, and whether there are at least as many distinct labels as the truth has (1 or 0; NaN where the truth
   * has fewer than two). All NaN where the truth has no sections (a score excerpt).
   */
  sectionBoundaryF: number;
  sectionPairwiseF: number;
  sectionLabelsEnough: number;
}

export async function evaluate(track: RenderedTrack): Promise<Row> {
  const pcm = await decodeAudio(track.mixture, { sampleRate: ANALYSIS_SAMPLE_RATE, channels: 1 });
  const signal = pcm.channels[0] as Float32Array;
  const analysis = analyzeMusic(signal, pcm.sampleRate);
  const { truth } = track;
  const hasSections = truth.sections.length > 0;
  const sections = hasSections ? findSections(signal, pcm.sampleRate, analysis.beats) : [];
  const downbeats = (beats: { time: number; beatNum: number }[]) =>
    beats.filter((b) => b.beatNum === 1).map((b) => b.time);
  return {
    id: track.id,
    groove: truth.groove,
    meter: `${truth.meter}→${analysis.meter}`,
    truthBpm: truth.bpm,
    bpm: analysis.bpm === null ? null : Math.round(analysis.bpm * 10) / 10,
    tempo: analysis.bpm === null ? "wrong" : tempoVerdict(truth.bpm, analysis.bpm, 0.04),
    beatF: fMeasure(
      truth.beats.map((b) => b.time),
      analysis.beats.map((b) => b.time),
    ),
    downbeatF: fMeasure(downbeats(truth.beats), downbeats(analysis.beats)),
    key: `${truth.key}→${analysis.key}`,
    keyScore: analysis.key === null ? 0 : keyScore(truth.key, analysis.key),
    chordOverlap: chordOverlap(truth.chords, analysis.chords),
    sectionBoundaryF: hasSections ? boundaryF(truth.sections, sections, 0.5) : Number.NaN,
    sectionPairwiseF: hasSections ? pairwiseF(truth.sections, sections) : Number.NaN,
    sectionLabelsEnough:
      distinctLabels(truth.sections) >= 2
        ? Number(distinctLabels(sections) >= distinctLabels(truth.sections))
        : Number.NaN,
  };
}

export const round3 = (x: number) => Math.round(x * 1000) / 1000;

export function summarise(rows: Row[]) {
  const share = (predicate: (r: Row) => boolean) => round3(rows.filter(predicate).length / rows.length);
  const mean = (pick: (r: Row) => number) => round3(rows.reduce((a, r) => a + pick(r), 0) / rows.length);
  /** The mean over the rows where the figure is defined (null where it is nowhere). */
  const meanDefined = (pick: (r: Row) => number) => {
    const values = rows.map(pick).filter(Number.isFinite);
    return values.length > 0 ? round3(values.reduce((a, v) => a + v, 0) / values.length) : null;
  };
  return {
    tracks: rows.length,
    tempoWithin4Percent: share((r) => r.tempo === "correct"),
    octaveErrors: share((r) => r.tempo === "octave"),
    beatF: mean((r) => r.beatF),
    downbeatF: mean((r) => r.downbeatF),
    keyExact: share((r) => r.keyScore === 1),
    keyMirex: mean((r) => r.keyScore),
    chordOverlap: mean((r) => r.chordOverlap),
    sectionBoundaryF: meanDefined((r) => r.sectionBoundaryF),
    sectionPairwiseF: meanDefined((r) => r.sectionPairwiseF),
    sectionLabelsEnough: meanDefined((r) => r.sectionLabelsEnough),
  };
}
