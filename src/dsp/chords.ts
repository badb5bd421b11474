import { pitchName } from "./pitch.ts";

/** The chord vocabulary: major and minor triads on the 12 roots, and "N" (no chord). */
export interface ChordLabel {
  root: number;
  quality: "maj" | "min";
}

export const CHORDS: ChordLabel[] = [
  ...Array.from({ length: 12 }, (_, root) => ({ root, quality: "maj" as const })),
  ...Array.from({ length: 12 }, (_, root) => ({ root, quality: "min" as const })),
];

export const chordName = (chord: ChordLabel | null): string =>
  chord === null ? "N" : `${pitchName(chord.root)}${chord.quality === "min" ? "m" : ""}`;

const INTERVALS = { maj: [0, 4, 7], min: [0, 3, 7] };

function template(chord: ChordLabel): Float32Array {
  const t = new Float32Array(12);
  for (const interval of INTERVALS[chord.quality]) t[(chord.root + interval) % 12] = 1;
  return t;
}
const TEMPLATES = CHORDS.map(template);

/** Log-compressed and unit-normalised chroma (Müller's CLP features), or null for (near) silence. */
export function normalizeChroma(chroma: Float32Array, floor: number): Float32Array | null {
  let total = 0;
  for (const v of chroma) total += v;
  if (total <= floor) return null;
  const out = Float32Array.from(chroma, (v) => Math.log1p((1000 * v) / total));
  const norm = Math.hypot(...out);
  return norm > 0 ? out.map((v) => v / norm) : null;
}

/**
 * How nearly the bass sounds the root of the triad that best fits the treble: 0 when the root is the bass's
 * strongest pitch class, negative by how much weaker it is. Bass lines state the root on the downbeat and move
 * (fifths, passing notes) within the bar, so this marks bar starts even where the chord changes on beat 3.
 */
export function bassOnChordRoot(treble: Float32Array | null, bass: Float32Array | null): number {
  if (!treble || !bass) return 0;
  let best = 0;
  let bestDot = Number.NEGATIVE_INFINITY;
  TEMPLATES.forEach((t, state) => {
    let dot = 0;
    for (let c = 0; c < 12; c++) dot += (treble[c] as number) * (t[c] as number);
    if (dot > bestDot) {
      bestDot = dot;
      best = state;
    }
  });
  return (bass[(CHORDS[best] as ChordLabel).root] as number) - Math.max(...bass);
}

export interface ChordSegmentInput {
  /** Normalised treble chroma of the segment, null if silent. */
  treble: Float32Array | null;
  /** Normalised bass chroma of the segment, null if silent. */
  bass: Float32Array | null;
  /** The segment starts a bar: chord changes are likely here. */
  barStart: boolean;
}

const BASS_WEIGHT = 0.5;
/** How sharply the emission scores decide against the transitions, for chroma of the corpus' contrast (below). */
const SHARPNESS = 20;
/**
 * The contrast between the chords' emission scores (their standard deviation over the 24 triads in a segment, the
 * median over a piece) below which the emissions are sharpened: the corpus' development and tuning songs have
 * 0.07–0.25 (median 0.17); distorted guitars, cymbals and reverb flatten the chroma (the family development plan's
 * metal songs and scores 0.07–0.09), and the same transition costs then keep one chord for many bars. The
 * sharpness grows by REFERENCE_SPREAD over a piece's contrast, up to MAX_SHARPENING times; 0.15 was chosen on the
 * family development plan (docs/decisions.md).
 */
const REFERENCE_SPREAD = 0.15;
const MAX_SHARPENING = 3;

const N_SCORE = 0.2;
/** Chance that the chord stays the same across a bar line, and from beat to beat within a bar. */
const STAY_AT_BAR = 0.5;
const STAY_WITHIN_BAR = 0.97;

function emission(segment: ChordSegmentInput, state: number): number {
  if (state === CHORDS.length) return segment.treble ? N_SCORE : 1;
  if (!segment.treble) return 0;
  const t = TEMPLATES[state] as Float32Array;
  let dot = 0;
  for (let c = 0; c < 12; c++) dot += (segment.treble[c] as number) * (t[c] as number);
  const cosine = dot / Math.sqrt(3);
  return cosine + BASS_WEIGHT * bassSupport(segment.bass, CHORDS[state] as ChordLabel);
}

/** How usual each chord tone is as the bass note: root, fifth (alternating bass, 6/4), third (first inversion). */
const BASS_TONE_WEIGHTS: [interval: (chord: ChordLabel) => number, weight: number][] = [
  [() => 0, 1],
  [() => 7, 1],
  [(chord) => (chord.quality === "min" ? 3 : 4), 0.5],
];

/**
 * How well the bass supports a chord: 0 when the bass's strongest pitch class is its root or fifth (bass lines
 * alternate the two: the "oom" of a waltz, the fifth on beat 3 of a ballad), less when it is the third, and
 * negative by how much weaker than the strongest bass pitch the best of these is.
 */
function bassSupport(bass: Float32Array | null, chord: ChordLabel): number {
  if (!bass) return 0;
  let support = 0;
  for (const [interval, weight] of BASS_TONE_WEIGHTS)
    support = Math.max(support, weight * (bass[(chord.root + interval(chord)) % 12] as number));
  return support - Math.max(...bass);
}

/**
 * The emission scores' sharpness for a piece: SHARPNESS, times REFERENCE_SPREAD over the median across its sounding
 * segments of the scores' standard deviation over the triads (`emissions`: per segment, every state's score, "N"
 * last), from 1 to MAX_SHARPENING times.
 */
function sharpnessOf(segments: ChordSegmentInput[], emissions: Float64Array[]): number {
  const spreads: number[] = [];
  segments.forEach((segment, i) => {
    if (!segment.treble) return;
    const triads = (emissions[i] as Float64Array).subarray(0, CHORDS.length);
    const mean = triads.reduce((a, v) => a + v, 0) / triads.length;
    spreads.push(Math.sqrt(triads.reduce((a, v) => a + (v - mean) ** 2, 0) / triads.length));
  });
  spreads.sort((a, b) => a - b);
  const spread = spreads[Math.floor(spreads.length / 2)] ?? REFERENCE_SPREAD;
  return SHARPNESS * Math.min(MAX_SHARPENING, Math.max(1, REFERENCE_SPREAD / Math.max(1e-6, spread)));
}

/**
 * One chord per segment by template matching and Viterbi smoothing over an HMM whose states are the
 * vocabulary (Sheh & Ellis 2003, "Chord segmentation and recognition using EM-trained hidden Markov models";
 * templates as in Fujishima 1999). Changes are cheap at bar starts and dear elsewhere, since harmony
 * mostly moves with the bar.
 */
export function recognizeChords(segments: ChordSegmentInput[]): (ChordLabel | null)[] {
  const states = CHORDS.length + 1;
  const n = segments.length;
  if (n === 0) return [];
  const emissions = segments.map((segment) => Float64Array.from({ length: states }, (_, s) => emission(segment, s)));
  const sharpness = sharpnessOf(segments, emissions);
  const logStay = { bar: Math.log(STAY_AT_BAR), other: Math.log(STAY_WITHIN_BAR) };
  const logMove = {
    bar: Math.log((1 - STAY_AT_BAR) / (states - 1)),
    other: Math.log((1 - STAY_WITHIN_BAR) / (states - 1)),
  };
  let score = Float64Array.from(
    { length: states },
    (_, s) => sharpness * ((emissions[0] as Float64Array)[s] as number),
  );
  const back: Int32Array[] = [];
  for (let i = 1; i < n; i++) {
    const segment = segments[i] as ChordSegmentInput;
    const kind = segment.barStart ? "bar" : "other";
    let bestPrevious = 0;
    for (let s = 1; s < states; s++) if ((score[s] as number) > (score[bestPrevious] as number)) bestPrevious = s;
    const next = new Float64Array(states);
    const links = new Int32Array(states);
    for (let s = 0; s < states; s++) {
      const stay = (score[s] as number) + logStay[kind];
      const move = (score[bestPrevious] as number) + logMove[kind];
      const [value, link] = stay >= move || bestPrevious === s ? [stay, s] : [move, bestPrevious];
      next[s] = value + sharpness * ((emissions[i] as Float64Array)[s] as number);
      links[s] = link;
    }
    back.push(links);
    score = next;
  }
  let state = 0;
  for (let s = 1; s < states; s++) if ((score[s] as number) > (score[state] as number)) state = s;
  const path = [state];
  for (let i = n - 2; i >= 0; i--) {
    state = (back[i] as Int32Array)[state] as number;
    path.push(state);
  }
  return path.reverse().map((s) => (s === CHORDS.length ? null : (CHORDS[s] as ChordLabel)));
}
