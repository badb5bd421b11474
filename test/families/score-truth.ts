/**
 * Truth from a score, for music that people wrote: the beat grid from the MIDI file's tempo map and time
 * signatures (a beat is a quarter note, a dotted quarter in 6/8 and 12/8; bars start at each time signature
 * event), the chords by template matching the sounding notes beat by beat, and the key by the Krumhansl-Kessler
 * profiles. Chords and key are therefore an estimate from the score (exact notes, no audio), stated as such in
 * docs/families.md. A power chord (root and fifth, no third) is labelled its root's major, as issue 52 counts it.
 */

import type { NoteEvent } from "../corpus/types.ts";
import { chordLabel, keyLabel } from "../music/theory.ts";

export interface ScoredPart {
  program: number;
  drums: boolean;
  notes: NoteEvent[];
}

/** Krumhansl & Kessler (1982) key profiles, tonic first. */
const MAJOR_PROFILE = [6.35, 2.23, 3.48, 2.33, 4.38, 4.09, 2.52, 5.19, 2.39, 3.66, 2.29, 2.88];
const MINOR_PROFILE = [6.33, 2.68, 3.52, 5.38, 2.6, 3.53, 2.54, 4.75, 3.98, 2.69, 3.34, 3.17];

/** Duration-and-velocity weighted pitch classes of the pitched notes sounding in [from, to). */
export function pitchClasses(parts: readonly ScoredPart[], from: number, to: number, bassWeight = 1): number[] {
  const weights = new Array<number>(12).fill(0);
  for (const part of parts) {
    if (part.drums) continue;
    for (const note of part.notes) {
      const overlap = Math.min(to, note.time + note.duration) - Math.max(from, note.time);
      if (overlap <= 0) continue;
      const w = overlap * note.velocity * (note.midi < 52 ? bassWeight : 1);
      weights[note.midi % 12] = (weights[note.midi % 12] as number) + w;
    }
  }
  return weights;
}

function correlation(a: readonly number[], b: readonly number[]): number {
  const mean = (x: readonly number[]) => x.reduce((s, v) => s + v, 0) / x.length;
  const ma = mean(a);
  const mb = mean(b);
  let num = 0;
  let da = 0;
  let db = 0;
  for (let i = 0; i < a.length; i++) {
    num += ((a[i] as number) - ma) * ((b[i] as number) - mb);
    da += ((a[i] as number) - ma) ** 2;
    db += ((b[i] as number) - mb) ** 2;
  }
  return da > 0 && db > 0 ? num / Math.sqrt(da * db) : 0;
}

/** The key of the parts over [from, to) as "C major", "F# minor" (Krumhansl-Schmuckler). */
export function scoreKey(parts: readonly ScoredPart[], from: number, to: number): string {
  const weights = pitchClasses(parts, from, to);
  let best = { score: Number.NEGATIVE_INFINITY, label: "C major" };
  for (let tonic = 0; tonic < 12; tonic++) {
    for (const [mode, profile] of [
      ["major", MAJOR_PROFILE],
      ["minor", MINOR_PROFILE],
    ] as const) {
      const rotated = Array.from({ length: 12 }, (_, i) => profile[(i - tonic + 12) % 12] as number);
      const score = correlation(weights, rotated);
      if (score > best.score) best = { score, label: keyLabel(tonic, mode) };
    }
  }
  return best.label;
}

/**
 * The chord over [from, to): the major or minor triad whose tones hold the most weight (the bass counted
 * double, a tone outside the triad counting against it), a root-and-fifth dyad as the root's major, "N" when
 * the pitched notes there are too few.
 */
export function scoreChord(parts: readonly ScoredPart[], from: number, to: number): string {
  const w = pitchClasses(parts, from, to, 2);
  const total = w.reduce((a, v) => a + v, 0);
  if (total < 0.05 * (to - from)) return "N";
  let best = { score: Number.NEGATIVE_INFINITY, label: "N" };
  for (let root = 0; root < 12; root++) {
    const at = (i: number) => w[(root + i) % 12] as number;
    const fifthOnly = at(0) + at(7) > 0.8 * total && at(3) + at(4) < 0.05 * total;
    for (const [quality, third] of [
      ["major", 4],
      ["minor", 3],
    ] as const) {
      const inside = at(0) + at(third) + at(7);
      const score = inside - 0.6 * (total - inside) + 0.1 * at(0);
      const label = fifthOnly ? chordLabel(root, "major") : chordLabel(root, quality);
      if (score > best.score) best = { score, label };
    }
  }
  return best.label;
}

export interface Grid {
  /** Beat times in seconds and their place in the bar (1 = downbeat). */
  beats: { time: number; beatNum: number }[];
  beatsPerBar: number;
  meter: "4/4" | "3/4" | "6/8";
}

/**
 * The beat grid of a MIDI file from `ticksToSeconds`: the time signatures' events (numerator/denominator at a
 * tick), `ppq` ticks a quarter, to `endTick`. Compound meters (6/8, 12/8) count dotted quarters.
 */
export function scoreGrid(
  ppq: number,
  signatures: { ticks: number; numerator: number; denominator: number }[],
  endTick: number,
  ticksToSeconds: (ticks: number) => number,
): Grid {
  const list = signatures.length
    ? [...signatures].sort((a, b) => a.ticks - b.ticks)
    : [{ ticks: 0, numerator: 4, denominator: 4 }];
  const beats: Grid["beats"] = [];
  let first: { beatsPerBar: number; meter: Grid["meter"] } | undefined;
  list.forEach((sig, i) => {
    const compound = sig.denominator === 8 && sig.numerator % 3 === 0;
    const beatTicks = compound ? (ppq * 3) / 2 : (ppq * 4) / sig.denominator;
    const beatsPerBar = compound ? sig.numerator / 3 : sig.numerator;
    first ??= { beatsPerBar, meter: compound ? "6/8" : beatsPerBar === 3 ? "3/4" : "4/4" };
    const until = list[i + 1]?.ticks ?? endTick;
    for (let k = 0; sig.ticks + k * beatTicks < until; k++)
      beats.push({ time: ticksToSeconds(sig.ticks + k * beatTicks), beatNum: (k % beatsPerBar) + 1 });
  });
  return { beats, beatsPerBar: first?.beatsPerBar ?? 4, meter: first?.meter ?? "4/4" };
}
