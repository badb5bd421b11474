import { beatDividesInThree, dropTrailingBeats, onsetAtBeat, onTheBeat, trackBeats } from "./beats.ts";
import { bassOnChordRoot, type ChordSegmentInput, chordName, normalizeChroma, recognizeChords } from "./chords.ts";
import { averageFrames, type Chromagram, chromagram, unitChromaCosine } from "./chroma.ts";
import { findDownbeats, halfBarChange, type Meter } from "./downbeats.ts";
import { type ChordOccurrence, estimateKey } from "./key.ts";
import { findMetricalLevel } from "./metrical-level.ts";
import { drumAccentEnvelope, type OnsetEnvelope, onsetEnvelope } from "./onsets.ts";
import { type PulseEvidence, pulseEvidence } from "./pulse-evidence.ts";
import { chordConfidence, harmonicMovement, keyConfidence, keySupport } from "./tonal-evidence.ts";

export interface Beat {
  time: number;
  beatNum: number;
}

export interface ChordSpan {
  start: number;
  end: number;
  chord: string;
  /** 0..1: how clearly the chroma over the span sounds this chord (or, for "N", no chord). */
  confidence: number;
}

export interface MusicAnalysis {
  /** Null when there is no beat to count (silence, noise, speech, a drone, free time): then no beats either. */
  bpm: number | null;
  /** 0..1: how sure the analysis is that there is a steady beat (see pulse-evidence.ts). */
  bpmConfidence: number;
  meter: Meter | null;
  beats: Beat[];
  chords: ChordSpan[];
  /** E.g. "C major"; null when the harmony does not support one key (silence, noise, speech, a drone). */
  key: string | null;
  /** 0..1: the support for a key at all (tonal-evidence.ts), times how clearly the best key stands out. */
  keyConfidence: number;
  /** The cues behind the confidences, for calibration and reports. */
  evidence: {
    pulse: PulseEvidence;
    keyMargin: number;
    tuningClarity: number;
    harmonicMovement: number;
  };
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
const round2 = (value: number) => Math.round(value * 100) / 100;
/** A beat is reported from this confidence up, a key from this support up; below it the answer is null. */
export const REPORT_THRESHOLD = 0.5;
/** Chord segments where there are no beats to follow. */
const GRID_SECONDS = 0.5;

/** Tempo, beats with their place in the bar, chords and key of a mono signal, each with its confidence. */
export function analyzeMusic(signal: Float32Array, sampleRate: number): MusicAnalysis {
  const duration = signal.length / sampleRate;
  const onsets = onsetEnvelope(signal, sampleRate);
  const tempo = findMetricalLevel(onsets).bpm;
  const pulse = pulseEvidence(onsets, tempo);
  const hasBeat = pulse.confidence >= REPORT_THRESHOLD;
  // Tracked on kick and snare as well as all onsets, so beats fall on the drums rather than between them.
  const beatTimes = hasBeat
    ? dropTrailingBeats(
        onTheBeat(trackBeats(drumAccentEnvelope(onsets), onsets.frameRate, tempo), onsets, duration),
        onsets.strength,
        onsets.frameRate,
      )
    : [];
  const bpm = beatTimes.length >= 4 ? 60 / meanInterval(beatTimes) : tempo;

  // Segments: before the first beat, then one per beat to the end of the signal; without beats, a fixed grid.
  const grid = hasBeat
    ? beatTimes
    : Array.from({ length: Math.ceil(duration / GRID_SECONDS) }, (_, i) => i * GRID_SECONDS);
  const boundaries = [...(grid[0] !== undefined && grid[0] > 0.05 ? [0] : []), ...grid, duration];
  const leading = boundaries.length - 1 - grid.length;
  const chroma = chromagram(signal, sampleRate);
  const segments = chromaSegments(chroma, boundaries);
  const beatSegments = segments.slice(leading);

  const { meter, beatNumOf } = hasBeat
    ? barPositions(onsets, beatTimes, beatSegments)
    : { meter: null, beatNumOf: () => 1 };
  const beats = beatTimes.map((time, i) => ({ time: round3(time), beatNum: beatNumOf(i) }));

  const chordInputs: ChordSegmentInput[] = segments.map((s, i) => ({
    treble: s.trebleN,
    bass: s.bassN,
    barStart: hasBeat && (i < leading || beatNumOf(i - leading) === 1),
  }));
  const recognized = recognizeChords(chordInputs);
  const occurrences: ChordOccurrence[] = [];
  recognized.forEach((chord, i) => {
    const segment = segments[i] as (typeof segments)[number];
    if (chord) occurrences.push({ root: chord.root, quality: chord.quality, seconds: segment.end - segment.start });
  });
  const finalChord = closingChord(chroma, onsets, duration, segments.floor);
  if (finalChord) occurrences.push(finalChord);
  const chords = chordSpans(segments, recognized);

  const distribution = new Float64Array(12);
  const movement = harmonicMovement(chroma, segments.floor);
  for (const s of segments) {
    const weight = s.end - s.start;
    for (let c = 0; c < 12; c++) {
      distribution[c] = (distribution[c] as number) + weight * ((s.trebleN?.[c] ?? 0) + 0.5 * (s.bassN?.[c] ?? 0));
    }
  }
  const key = estimateKey(distribution, occurrences);
  const support = segments.some((s) => s.trebleN) ? keySupport(chroma.tuningClarity, movement) : 0;
  return {
    bpm: hasBeat ? round2(bpm) : null,
    bpmConfidence: round2(pulse.confidence),
    meter,
    beats,
    chords,
    key: support >= REPORT_THRESHOLD ? key.name : null,
    keyConfidence: round2(keyConfidence(support, key.margin)),
    evidence: {
      pulse,
      keyMargin: key.margin,
      tuningClarity: chroma.tuningClarity,
      harmonicMovement: movement,
    },
  };
}

interface ChromaSegment {
  start: number;
  end: number;
  /** Mean chroma over the segment (linear energy). */
  treble: Float32Array;
  bass: Float32Array;
  /** Normalised (log-compressed, unit) chroma, null for (near) silence. */
  trebleN: Float32Array | null;
  bassN: Float32Array | null;
}

/** The chroma of each segment between consecutive boundaries, and the floor below which a segment is silent. */
function chromaSegments(chroma: Chromagram, boundaries: number[]): ChromaSegment[] & { floor: number } {
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
  return Object.assign(segments, { floor });
}

/** Meter and each beat's place in the bar, from beat-level cues (downbeats.ts). */
function barPositions(onsets: OnsetEnvelope, beatTimes: number[], beatSegments: ChromaSegment[]) {
  // A beat in the first two frames is heard only in part (the envelope has no frame before the signal to rise
  // from): its onsets are unknown, not weak, so music that starts on its downbeat at 0 s is not counted against.
  const atBeats = (envelope: Float32Array) =>
    beatTimes.map((t) => {
      const frame = Math.round(t * onsets.frameRate);
      return frame < 2 ? Number.NaN : onsetAtBeat(envelope, frame);
    });
  // The first beat has no beat before it: its change is unknown, not zero (zero would count against a song
  // that starts on its downbeat).
  const change = beatSegments.map((s, i) =>
    i === 0 ? Number.NaN : 1 - unitChromaCosine(beatSegments[i - 1]?.trebleN ?? null, s.trebleN),
  );
  const meters = beatDividesInThree(onsets, beatTimes) ? ([2, 3, 4] as const) : ([3, 4] as const);
  const { meter, firstDownbeat } = findDownbeats(
    {
      all: atBeats(onsets.strength),
      low: atBeats(onsets.low),
      mid: atBeats(onsets.mid),
      change,
      halfBarChange: halfBarChange(beatSegments.map((s) => s.trebleN)),
      bassRoot: beatSegments.map((s) => bassOnChordRoot(s.trebleN, s.bassN)),
    },
    meters,
  );
  const beatNumOf = (i: number) => ((((i - firstDownbeat) % meter) + meter) % meter) + 1;
  return { meter, beatNumOf };
}

/**
 * The final sound's chroma is taken from this long after its onset (or from halfway through a shorter one): a
 * final chord that swells in softly (a pad) comes after the last strong onset, and the short notes of the chord
 * before it (an off-beat bass, a hi-hat: 0.2 s and their release) still sound in its first moments.
 */
const SETTLE_SECONDS = 0.5;

/**
 * The final sound (from the last strong onset to the end) as one more chord: the key's closing cue should not
 * depend on a beat falling on the final hit. Its chroma is what rings once it has settled (SETTLE_SECONDS).
 */
function closingChord(chroma: Chromagram, onsets: OnsetEnvelope, duration: number, floor: number) {
  const finalStart = lastStrongOnset(onsets.strength, onsets.frameRate);
  const from = finalStart + Math.max(0.09, Math.min(SETTLE_SECONDS, (duration - finalStart) / 2));
  const [chord] = recognizeChords([
    {
      treble: normalizeChroma(averageFrames(chroma.treble, chroma.hopSeconds, from, duration), floor),
      bass: normalizeChroma(averageFrames(chroma.bass, chroma.hopSeconds, from, duration), floor * 0.01),
      barStart: true,
    },
  ]);
  return chord ? { root: chord.root, quality: chord.quality, seconds: duration - finalStart } : null;
}

/** Consecutive segments with one chord joined into spans; a span's confidence is its segments', weighted by time. */
function chordSpans(segments: ChromaSegment[], recognized: ReturnType<typeof recognizeChords>): ChordSpan[] {
  const spans: (ChordSpan & { weighted: number })[] = [];
  recognized.forEach((chord, i) => {
    const segment = segments[i] as ChromaSegment;
    const name = chordName(chord);
    const seconds = segment.end - segment.start;
    const sure = chordConfidence(segment.trebleN ? segment.treble : null, chord) * seconds;
    const last = spans.at(-1);
    if (last && last.chord === name) {
      last.end = round3(segment.end);
      last.weighted += sure;
    } else
      spans.push({
        start: round3(segment.start),
        end: round3(segment.end),
        chord: name,
        confidence: 0,
        weighted: sure,
      });
  });
  return spans.map(({ weighted, ...span }) => ({
    ...span,
    confidence: round2(span.end > span.start ? weighted / (span.end - span.start) : 0),
  }));
}
