/**
 * Meter (2, 3 or 4 beats per bar) and the position of the first downbeat, from beat-level cues: low-band
 * onsets (kick and bass notes fall on strong beats), mid-band onsets (the snare's backbeat falls off them),
 * overall onset strength (accents, crashes at section starts), harmonic change (chords change at bar
 * lines) and the bass on the chord's root (bass lines state the root on the downbeat: the cue that places bars
 * whose chords change every two beats), in the spirit of Goto 2001 ("An audio-based real-time beat tracking system for music with or without drum-sounds")
 * and Davies & Plumbley 2006 (downbeats from spectral change at beat level). Each (meter, phase) is scored
 * by how much the beats it calls downbeats stand out.
 */
import { unitChromaCosine } from "./chroma.ts";

export interface DownbeatCues {
  /** Low-band onset strength at each beat. */
  low: number[];
  /** Onset strength (all bands) at each beat. */
  all: number[];
  /** Mid-band (snare, clap) onset strength at each beat. */
  mid: number[];
  /** Harmonic change entering each beat (1 − cosine of neighbouring beat chroma). */
  change: number[];
  /** Harmonic change between the two beats before each beat and the two from it (NaN where unknown). */
  halfBarChange: number[];
  /** How nearly the bass sounds the root of the chord at each beat (see bassOnChordRoot in chords.ts). */
  bassRoot: number[];
}

/** Centred and scaled to unit variance; unknown values (NaN) become 0, the mean, so they favour no phase. */
function standardize(values: number[]): number[] {
  const known = values.filter((v) => !Number.isNaN(v));
  const mean = known.reduce((a, b) => a + b, 0) / Math.max(1, known.length);
  const sd = Math.sqrt(known.reduce((a, v) => a + (v - mean) ** 2, 0) / Math.max(1, known.length)) || 1;
  return values.map((v) => (Number.isNaN(v) ? 0 : (v - mean) / sd));
}

export type Meter = 2 | 3 | 4;

/** Weights of the beat-to-beat and the half-bar harmonic change in the cue (the onset cues weigh 0.5 each). */
const CHANGE_WEIGHT = 2;
const HALF_BAR_WEIGHT = 1;

/**
 * The (meter, phase) whose downbeats stand out most on a cue: kick on the downbeat, snare off it (the
 * backbeat), chords changing at the bar line. `meters` are the candidates: 3 or 4 beats for beats that divide
 * in two, 2, 3 or 4 (6/8, 9/8, 12/8) for beats that divide in three.
 */
export function findDownbeats(
  cues: DownbeatCues,
  meters: readonly Meter[] = [3, 4],
): { meter: Meter; firstDownbeat: number } {
  const low = standardize(cues.low);
  const mid = standardize(cues.mid);
  const change = standardize(cues.change);
  const all = standardize(cues.all);
  const bassRoot = standardize(cues.bassRoot);
  const halfBar = standardize(cues.halfBarChange);
  const cue = low.map(
    (l, i) =>
      0.5 * l -
      0.5 * (mid[i] as number) +
      CHANGE_WEIGHT * (change[i] as number) +
      HALF_BAR_WEIGHT * (halfBar[i] as number) +
      0.5 * (all[i] as number) +
      (bassRoot[i] as number),
  );
  let best = { meter: meters[0] as Meter, firstDownbeat: 0, score: Number.NEGATIVE_INFINITY };
  for (const meter of meters) {
    for (let phase = 0; phase < meter; phase++) {
      let on = 0;
      let onCount = 0;
      let off = 0;
      let offCount = 0;
      cue.forEach((value, i) => {
        if ((i - phase) % meter === 0) {
          on += value;
          onCount++;
        } else {
          off += value;
          offCount++;
        }
      });
      const score = on / Math.max(1, onCount) - off / Math.max(1, offCount);
      if (score > best.score) best = { meter, firstDownbeat: phase, score };
    }
  }
  return { meter: best.meter, firstDownbeat: best.firstDownbeat };
}

/**
 * Harmonic change at each beat between the two beats before it and the two from it (1 − cosine of their mean
 * chroma): chords change at the bar line, while a tune's notes change on any beat; over two beats the tune
 * averages out and the chord remains, so beat 3 of a 4/4 bar, where the melody moves over the same chord, is not
 * mistaken for a bar line. Unknown (NaN) at the first beat.
 */
export function halfBarChange(chroma: (Float32Array | null)[]): number[] {
  const mean = (from: number, to: number) => {
    const out = new Float32Array(12);
    let any = false;
    for (let i = Math.max(0, from); i < Math.min(chroma.length, to); i++) {
      const c = chroma[i];
      if (!c) continue;
      any = true;
      for (let k = 0; k < 12; k++) out[k] = (out[k] as number) + (c[k] as number);
    }
    const norm = Math.hypot(...out);
    return any && norm > 0 ? out.map((v) => v / norm) : null;
  };
  return chroma.map((_, i) => (i === 0 ? Number.NaN : 1 - unitChromaCosine(mean(i - 2, i), mean(i, i + 2))));
}
