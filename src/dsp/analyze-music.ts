import { dropTrailingBeats, trackBeats } from "./beats.ts";
import { bassOnChordRoot, type ChordSegmentInput, chordName, normalizeChroma, recognizeChords } from "./chords.ts";
import { averageFrames, chromagram } from "./chroma.ts";
import { findDownbeats, type Meter } from "./downbeats.ts";
import { type ChordOccurrence, estimateKey, type KeyEstimate } from "./key.ts";
import { beatDividesInThree, findMetricalLevel } from "./metrical-level.ts";
import { drumAccentEnvelope, onsetEnvelope } from "./onsets.ts";

export interface Beat {
  time: number;
  beatNum: number;
}

export interface ChordSpan {
  start: number;
  end: number;
  chord: string;
}

export interface MusicAnalysis {
  bpm: number;
  meter: Meter;
  beats: Beat[];
  chords: ChordSpan[];
  key: KeyEstimate;
}

/** The analysis sample rate: enough for every cue used, and a quarter of the work of 44.1 kHz stereo. */
export const ANALYSIS_SAMPLE_RATE = 22050;

/** The least-squares slope of beat time against beat index: the mean beat period, finer than frame steps. */
function meanInterval(times: number[]): number {
  const n = times.length;
  const meanIndex = (n - 1) / 2;
  const meanTime = times.reduce((a, b) => a + b, 0) / n;
  let num = 0;
  let den = 0;
  times.forEach((t, i) => {
    num += (i - meanIndex) * (t - meanTime);
    den += (i - meanIndex) ** 2;
  });
  return num / den;
}
/** Time of the last onset at least half as strong as the loud ones (the 95th percentile). */
function lastStrongOnset(strength: Float32Array, frameRate: number): number {
  const sorted = Float32Array.from(strength).sort();
  const threshold = 0.5 * (sorted[Math.floor(0.95 * (sorted.length - 1))] ?? 0);
  let last = strength.length - 1;
  while (last > 0 && (strength[last] as number) < threshold) last--;
  return last / frameRate;
}
const round3 = (seconds: number) => Math.round(seconds * 1000) / 1000;

function cosine(a: Float32Array | null, b: Float32Array | null): number {
  if (!a || !b) return 0;
  let dot = 0;
  for (let c = 0; c < 12; c++) dot += (a[c] as number) * (b[c] as number);
  return dot;
}

/** Tempo, beats with their place in the bar, chords and key of a mono signal. */
export function analyzeMusic(signal: Float32Array, sampleRate: number): MusicAnalysis {
  const duration = signal.length / sampleRate;
  const onsets = onsetEnvelope(signal, sampleRate);
  const tempo = findMetricalLevel(onsets).bpm;
  // Tracked on kick and snare as well as all onsets, so beats fall on the drums rather than between them.
  const tracked = trackBeats(drumAccentEnvelope(onsets), onsets.frameRate, tempo);
  const beatTimes = dropTrailingBeats(tracked, onsets.strength, onsets.frameRate);
  const bpm = beatTimes.length >= 4 ? 60 / meanInterval(beatTimes) : tempo;

  // Segments: before the first beat, then one per beat to the end of the signal.
  const boundaries = [...(beatTimes[0] !== undefined && beatTimes[0] > 0.05 ? [0] : []), ...beatTimes, duration];
  const leading = boundaries.length - 1 - beatTimes.length;
  const chroma = chromagram(signal, sampleRate);
  let loudest = 0;
  const raw = boundaries.slice(0, -1).map((start, i) => {
    const end = boundaries[i + 1] as number;
    // Frames centred near a boundary hear the neighbouring segment too (the window is 370 ms long).
    const margin = Math.min(0.09, (end - start) / 4);
    const treble = averageFrames(chroma.treble, chroma.hopSeconds, start + margin, end - margin);
    const bass = averageFrames(chroma.bass, chroma.hopSeconds, start + margin, end - margin);
    loudest = Math.max(
      loudest,
      treble.reduce((a, b) => a + b, 0),
    );
    return { start, end, treble, bass };
  });
  const floor = loudest * 1e-4;
  const segments = raw.map((s) => ({
    ...s,
    trebleN: normalizeChroma(s.treble, floor),
    bassN: normalizeChroma(s.bass, floor * 0.01),
  }));

  const beatSegments = segments.slice(leading);
  const atBeats = (envelope: Float32Array) =>
    beatTimes.map((t) => {
      const frame = Math.round(t * onsets.frameRate);
      return Math.max(
        envelope[frame - 1] ?? 0,
        envelope[frame] ?? 0,
        envelope[frame + 1] ?? 0,
        envelope[frame + 2] ?? 0,
      );
    });
  const change = beatSegments.map((s, i) =>
    i === 0 ? 0 : 1 - cosine(beatSegments[i - 1]?.trebleN ?? null, s.trebleN),
  );
  const meters = beatDividesInThree(onsets, beatTimes) ? ([2, 3, 4] as const) : ([3, 4] as const);
  const { meter, firstDownbeat } = findDownbeats(
    {
      all: atBeats(onsets.strength),
      low: atBeats(onsets.low),
      mid: atBeats(onsets.mid),
      change,
      bassRoot: beatSegments.map((s) => bassOnChordRoot(s.trebleN, s.bassN)),
    },
    meters,
  );
  const beatNumOf = (i: number) => ((((i - firstDownbeat) % meter) + meter) % meter) + 1;
  const beats = beatTimes.map((time, i) => ({ time: round3(time), beatNum: beatNumOf(i) }));

  const chordInputs: ChordSegmentInput[] = segments.map((s, i) => ({
    treble: s.trebleN,
    bass: s.bassN,
    barStart: i < leading || beatNumOf(i - leading) === 1,
  }));
  const recognized = recognizeChords(chordInputs);
  const labels = recognized.map(chordName);
  const occurrences: ChordOccurrence[] = [];
  recognized.forEach((chord, i) => {
    const segment = segments[i] as (typeof segments)[number];
    if (chord) occurrences.push({ root: chord.root, quality: chord.quality, seconds: segment.end - segment.start });
  });
  // The final sound (from the last strong onset to the end) as one more chord: the key's closing cue should
  // not depend on a beat falling on the final hit.
  const finalStart = lastStrongOnset(onsets.strength, onsets.frameRate);
  const [finalChord] = recognizeChords([
    {
      treble: normalizeChroma(averageFrames(chroma.treble, chroma.hopSeconds, finalStart + 0.09, duration), floor),
      bass: normalizeChroma(averageFrames(chroma.bass, chroma.hopSeconds, finalStart + 0.09, duration), floor * 0.01),
      barStart: true,
    },
  ]);
  if (finalChord)
    occurrences.push({ root: finalChord.root, quality: finalChord.quality, seconds: duration - finalStart });
  const chords: ChordSpan[] = [];
  labels.forEach((chord, i) => {
    const segment = segments[i] as (typeof segments)[number];
    const last = chords.at(-1);
    if (last && last.chord === chord) last.end = round3(segment.end);
    else chords.push({ start: round3(segment.start), end: round3(segment.end), chord });
  });

  const distribution = new Float64Array(12);
  for (const s of segments) {
    const weight = s.end - s.start;
    for (let c = 0; c < 12; c++) {
      distribution[c] = (distribution[c] as number) + weight * ((s.trebleN?.[c] ?? 0) + 0.5 * (s.bassN?.[c] ?? 0));
    }
  }
  return { bpm: Math.round(bpm * 100) / 100, meter, beats, chords, key: estimateKey(distribution, occurrences) };
}
