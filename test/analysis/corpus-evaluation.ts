/**
 * Scoring the music analysis on rendered corpus tracks: one row per track and a summary per split. Shared by
 * test/analysis/corpus-accuracy.test.ts and the tuning report (test/analysis/corpus-report.ts).
 */
import { ANALYSIS_SAMPLE_RATE, analyzeMusic } from "../../src/dsp/analyze-music.ts";
import { decodeAudio } from "../../src/media/pcm.ts";
import type { RenderedTrack } from "../corpus/corpus.ts";
import { chordOverlap, fMeasure, keyScore, tempoVerdict } from "../helpers/mir-metrics.ts";

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
}

export async function evaluate(track: RenderedTrack): Promise<Row> {
  const pcm = await decodeAudio(track.mixture, { sampleRate: ANALYSIS_SAMPLE_RATE, channels: 1 });
  const analysis = analyzeMusic(pcm.channels[0] as Float32Array, pcm.sampleRate);
  const { truth } = track;
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
  };
}

export const round3 = (x: number) => Math.round(x * 1000) / 1000;

export function summarise(rows: Row[]) {
  const share = (predicate: (r: Row) => boolean) => round3(rows.filter(predicate).length / rows.length);
  const mean = (pick: (r: Row) => number) => round3(rows.reduce((a, r) => a + pick(r), 0) / rows.length);
  return {
    tracks: rows.length,
    tempoWithin4Percent: share((r) => r.tempo === "correct"),
    octaveErrors: share((r) => r.tempo === "octave"),
    beatF: mean((r) => r.beatF),
    downbeatF: mean((r) => r.downbeatF),
    keyExact: share((r) => r.keyScore === 1),
    keyMirex: mean((r) => r.keyScore),
    chordOverlap: mean((r) => r.chordOverlap),
  };
}
