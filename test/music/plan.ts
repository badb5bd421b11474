/**
 * The score of a generated track before any sound: the tempo curve, the beat grid, the bars and their chords,
 * and the ground truth derived from them. Cheap (no audio), so tests can check the truth of every suite spec.
 */
import type { GroundTruth, TrackSpec } from "./generator.ts";
import { keyLabel, parseNumeral, type Triad } from "./theory.ts";

/** Silence (only the added noise) before the first beat; the truth labels it "N". */
export const LEAD_IN_SECONDS = 0.1;

export const TIMBRES = ["sine", "organ", "saw", "pluck"] as const;

/**
 * A tempo changing linearly in time over the whole track, from startBpm at t = 0 to endBpm at t = duration.
 * Beat phases integrate it: beat k (k = 0, 1, …) is where ∫ tempo/60 dt from `origin` reaches k.
 */
export class TempoCurve {
  readonly startBpm: number;
  readonly endBpm: number;
  readonly duration: number;
  readonly origin: number;

  constructor(startBpm: number, endBpm: number, duration: number, origin: number) {
    this.startBpm = startBpm;
    this.endBpm = endBpm;
    this.duration = duration;
    this.origin = origin;
  }

  bpmAt(time: number): number {
    return this.startBpm + ((this.endBpm - this.startBpm) * time) / this.duration;
  }

  /** The time of a (possibly fractional) beat phase; phase 0 is the first beat, at `origin`. */
  timeAt(phase: number): number {
    // beats per second = b + 2·a·t, so beats since origin = a·u² + B·u with u = t − origin, B = b + 2·a·origin.
    const a = (this.endBpm - this.startBpm) / (120 * this.duration);
    const b = this.startBpm / 60;
    const slope = b + 2 * a * this.origin;
    return this.origin + (2 * phase) / (slope + Math.sqrt(Math.max(0, slope * slope + 4 * a * phase)));
  }
}

export interface Bar {
  index: number;
  /** Phase of its first beat (index · meter). */
  phase: number;
  start: number;
  /** The next bar's start, or the end of the track. */
  end: number;
  chord: Triad;
}

export interface Plan {
  sampleRate: number;
  frames: number;
  duration: number;
  meter: 3 | 4;
  tempo: TempoCurve;
  /** Beats whose (un-jittered) time is inside the track: phases 0 … beatCount − 1. */
  beatCount: number;
  bars: Bar[];
  truth: GroundTruth;
}

function check(condition: boolean, message: string): void {
  if (!condition) throw new RangeError(`TrackSpec: ${message}`);
}

export function validateSpec(spec: TrackSpec): void {
  check(Number.isFinite(spec.seed), "seed must be a finite number");
  check(Number.isFinite(spec.bpm) && spec.bpm >= 30 && spec.bpm <= 300, "bpm must be within 30..300");
  check(spec.meter === 3 || spec.meter === 4, "meter must be 3 or 4");
  check(
    Number.isFinite(spec.durationSeconds) && spec.durationSeconds >= 1 && spec.durationSeconds <= 900,
    "durationSeconds must be within 1..900",
  );
  check(Number.isInteger(spec.tonic) && spec.tonic >= 0 && spec.tonic <= 11, "tonic must be an integer 0..11");
  check(spec.mode === "major" || spec.mode === "minor", "mode must be major or minor");
  check(Array.isArray(spec.progression) && spec.progression.length > 0, "progression must not be empty");
  check(spec.barsPerChord === undefined || spec.barsPerChord === 1 || spec.barsPerChord === 2, "barsPerChord: 1 or 2");
  check(Number.isFinite(spec.jitterMs) && spec.jitterMs >= 0 && spec.jitterMs <= 50, "jitterMs must be within 0..50");
  check(
    Number.isFinite(spec.tempoDriftPercent) && Math.abs(spec.tempoDriftPercent) <= 25,
    "tempoDriftPercent must be within -25..25",
  );
  check(!Number.isNaN(spec.noiseDb) && spec.noiseDb <= 0, "noiseDb must be ≤ 0 (-Infinity for none)");
  check((TIMBRES as readonly string[]).includes(spec.timbre), `timbre must be one of ${TIMBRES.join(", ")}`);
  const rate = spec.sampleRate ?? 44100;
  check(Number.isInteger(rate) && rate >= 8000 && rate <= 192000, "sampleRate must be an integer 8000..192000");
}

export function planTrack(spec: TrackSpec): Plan {
  validateSpec(spec);
  const sampleRate = spec.sampleRate ?? 44100;
  const duration = spec.durationSeconds;
  const frames = Math.round(duration * sampleRate);
  const meter = spec.meter;
  const tempo = new TempoCurve(spec.bpm, spec.bpm * (1 + spec.tempoDriftPercent / 100), duration, LEAD_IN_SECONDS);
  const chords = spec.progression.map((numeral) => parseNumeral(numeral, spec.tonic, spec.mode));
  const barsPerChord = spec.barsPerChord ?? 1;

  const beats: GroundTruth["beats"] = [];
  for (let k = 0; ; k++) {
    const time = tempo.timeAt(k);
    if (time >= duration) break;
    beats.push({ time, beatNum: (k % meter) + 1 });
  }

  const bars: Bar[] = [];
  for (let index = 0; index * meter < beats.length; index++) {
    const phase = index * meter;
    const start = tempo.timeAt(phase);
    bars.push({
      index,
      phase,
      start,
      end: Math.min(duration, tempo.timeAt(phase + meter)),
      chord: chords[Math.floor(index / barsPerChord) % chords.length] as Triad,
    });
  }

  const segments: GroundTruth["chords"] = [];
  const first = bars[0];
  if (first && first.start > 0) segments.push({ start: 0, end: first.start, chord: "N" });
  for (const bar of bars) {
    const last = segments[segments.length - 1];
    if (last && last.chord === bar.chord.label) last.end = bar.end;
    else segments.push({ start: bar.start, end: bar.end, chord: bar.chord.label });
  }
  if (segments.length === 0) segments.push({ start: 0, end: duration, chord: "N" });

  return {
    sampleRate,
    frames,
    duration,
    meter,
    tempo,
    beatCount: beats.length,
    bars,
    truth: {
      bpm: tempo.bpmAt(duration / 2),
      beats,
      chords: segments,
      key: keyLabel(spec.tonic, spec.mode),
      meter,
    },
  };
}
