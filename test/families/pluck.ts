/**
 * Plucked strings by digital waveguide (the extended Karplus–Strong algorithm: Jaffe & Smith 1983): a delay line
 * one period long, excited by a noise burst shaped by the pick position, with a one-pole loss filter in the
 * loop and a first-order allpass for the fractional part of the period. A note's end damps the string (the
 * fretting hand lifts). Mono "DI" signals of an electric guitar or bass, before any amplifier.
 */
import type { NoteEvent } from "../corpus/types.ts";
import { Rng, SAMPLE_RATE } from "./audio.ts";

export interface StringModel {
  /** Loop gain per period at 110 Hz; higher strings lose less per period, as real ones do per second. */
  sustain: number;
  /** Brightness of the loop filter, 0..1 (1: no damping of highs). */
  brightness: number;
  /** Pick position as a share of the string (a comb in the excitation). */
  pick: number;
  /** Seconds for a damped string to fall 60 dB. */
  damp: number;
}

export const ELECTRIC_GUITAR: StringModel = { sustain: 0.996, brightness: 0.55, pick: 0.18, damp: 0.06 };
export const ELECTRIC_BASS: StringModel = { sustain: 0.997, brightness: 0.35, pick: 0.25, damp: 0.05 };

function pluck(model: StringModel, midi: number, velocity: number, held: number, rng: Rng): Float32Array {
  const hz = 440 * 2 ** ((midi - 69) / 12);
  const period = SAMPLE_RATE / hz;
  // The loss filter (0.5 + 0.5 b)·x[n] + (0.5 − 0.5 b)·x[n−1] delays by about (0.5 − 0.5 b) samples.
  const lossDelay = 0.5 - 0.5 * model.brightness;
  const total = period - lossDelay;
  const whole = Math.floor(total - 0.1);
  const fraction = total - whole;
  const allpass = (1 - fraction) / (1 + fraction);
  const ringFrames = held + Math.round(model.damp * SAMPLE_RATE * 1.2);
  const out = new Float32Array(ringFrames);
  const line = new Float32Array(whole);
  // Excitation: white noise, lowpassed more for soft notes, with the pick-position comb.
  const pickDelay = Math.max(1, Math.round(model.pick * whole));
  const cutoff = 0.25 + 0.65 * velocity;
  let lp = 0;
  const raw = Float32Array.from({ length: whole }, () => {
    lp += cutoff * (rng.uniform(-1, 1) - lp);
    return lp;
  });
  for (let i = 0; i < whole; i++) line[i] = (raw[i] as number) - (i >= pickDelay ? (raw[i - pickDelay] as number) : 0);
  const perPeriod = model.sustain ** ((hz / 110) ** 0.35);
  const loopGain = perPeriod;
  const dampGain = 10 ** (-3 / (model.damp * hz));
  const b = model.brightness;
  let previous = 0;
  let apIn = 0;
  let apOut = 0;
  let at = 0;
  for (let n = 0; n < ringFrames; n++) {
    const x = line[at] as number;
    out[n] = x;
    const gain = n < held ? loopGain : dampGain;
    const lossy = gain * ((0.5 + 0.5 * b) * x + (0.5 - 0.5 * b) * previous);
    previous = x;
    const y = allpass * lossy + apIn - allpass * apOut;
    apIn = lossy;
    apOut = y;
    line[at] = y;
    at = (at + 1) % whole;
  }
  let peak = 0;
  for (const v of out) peak = Math.max(peak, Math.abs(v));
  if (peak > 0) for (let n = 0; n < out.length; n++) out[n] = ((out[n] as number) / peak) * velocity;
  return out;
}

/** The notes plucked on the model into `length` frames, mono; `seed` varies the excitation noise. */
export function playPlucked(
  model: StringModel,
  notes: readonly NoteEvent[],
  length: number,
  seed: number,
): Float32Array {
  const rng = new Rng(seed);
  const out = new Float32Array(length);
  for (const note of notes) {
    const at = Math.round(note.time * SAMPLE_RATE);
    const sound = pluck(model, note.midi, note.velocity, Math.round(note.duration * SAMPLE_RATE), rng);
    for (let i = 0; i < sound.length && at + i < length; i++)
      out[at + i] = (out[at + i] as number) + (sound[i] as number);
  }
  return out;
}
