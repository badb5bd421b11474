/**
 * Score time to seconds: beat k sounds at `beatTimes[k]` (a ritardando lengthens the last beats), positions
 * between beats are interpolated, swung when the song shuffles, and every played note is humanised.
 */
import { Rng } from "../music/synth.ts";
import type { NoteEvent } from "./types.ts";

/** Onsets move by a normal deviate of this many seconds, clipped to ±HUMANISE_LIMIT. */
const HUMANISE_SD = 0.006;
const HUMANISE_LIMIT = 0.015;

export class Timeline {
  readonly beatTimes: number[];
  readonly swing: boolean;
  private readonly rng: Rng;

  /** `bpmOfBeat(k)` is the tempo of beat k (its length is 60 / that); beat 0 sounds at `start`. */
  constructor(start: number, beats: number, bpmOfBeat: (k: number) => number, swing: boolean, seed: number) {
    this.beatTimes = [start];
    for (let k = 0; k < beats + 8; k++) this.beatTimes.push((this.beatTimes[k] as number) + 60 / bpmOfBeat(k));
    this.swing = swing;
    this.rng = new Rng(seed);
  }

  /** Seconds of a score position (in beats from the first beat), on the grid: no humanising. */
  time(pos: number): number {
    const k = Math.max(0, Math.min(this.beatTimes.length - 2, Math.floor(pos)));
    let f = pos - k;
    if (this.swing) f = f < 0.5 ? (f * 4) / 3 : 2 / 3 + ((f - 0.5) * 2) / 3;
    const t0 = this.beatTimes[k] as number;
    return t0 + f * ((this.beatTimes[k + 1] as number) - t0);
  }

  private gauss(): number {
    const u = Math.max(1e-12, this.rng.next());
    return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * this.rng.next());
  }

  /** A played note: onset humanised (±15 ms), velocity varied by ±10 %, at least 30 ms long. */
  note(midi: number, pos: number, beats: number, velocity: number): NoteEvent {
    const onset = this.time(pos);
    const offset = Math.max(-HUMANISE_LIMIT, Math.min(HUMANISE_LIMIT, HUMANISE_SD * this.gauss()));
    const v = velocity * (1 + this.rng.uniform(-0.1, 0.1));
    return {
      midi,
      time: onTick(Math.max(0, onset + offset)),
      duration: onTick(Math.max(0.03, this.time(pos + beats) - onset)),
      velocity: Math.round(Math.max(0.05, Math.min(1, v)) * 127) / 127,
    };
  }
}

/** The MIDI files run at 120 BPM with 480 ticks per quarter: 960 ticks a second, so times on ticks are exact. */
export const TICKS_PER_SECOND = 960;
export const onTick = (x: number) => Math.round(x * TICKS_PER_SECOND) / TICKS_PER_SECOND;
