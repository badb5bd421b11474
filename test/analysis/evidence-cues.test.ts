/**
 * The cues of the analysis' phase check and key support on signals made here, where the answer is known by
 * construction: beats moved onto louder onsets halfway between them (beats.ts's onTheLoudBeat), and the tuning
 * clarity of notes under loud noise (chroma.ts), beside noise alone and a gliding voice-like tone.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { onTheLoudBeat } from "../../src/dsp/beats.ts";
import { chromagram } from "../../src/dsp/chroma.ts";
import { logistic } from "../../src/dsp/pulse-evidence.ts";
import { TUNING_CURVE } from "../../src/dsp/tonal-evidence.ts";
import { Rng } from "../music/synth.ts";

const FRAME_RATE = 50;

/** An onset envelope with a spike of `onBeat` at every beat and `halfway` between beats (0.5 s apart). */
function envelope(onBeat: number, halfway: number, seconds = 10): Float32Array {
  const e = new Float32Array(seconds * FRAME_RATE);
  for (let t = 0.5; t < seconds - 0.5; t += 0.5) {
    e[Math.round(t * FRAME_RATE)] = onBeat;
    e[Math.round((t + 0.25) * FRAME_RATE)] = halfway;
  }
  return e;
}
const beatsAt = (seconds: number) =>
  Array.from({ length: Math.floor((seconds - 1) / 0.5) + 1 }, (_, i) => 0.5 + i * 0.5);

test("beats move halfway when the onsets there are more than twice as loud, and stay otherwise", () => {
  const beats = beatsAt(10);
  const moved = onTheLoudBeat(beats, envelope(0.3, 1), FRAME_RATE, 10);
  assert.deepEqual(
    moved.map((t) => Math.round(t * 1000) / 1000),
    [0.25, ...beats.map((t) => t + 0.25)].filter((t) => t < 10),
  );
  assert.deepEqual(onTheLoudBeat(beats, envelope(1, 1.4), FRAME_RATE, 10), beats, "a syncopated 1.4 times stays");
  assert.deepEqual(onTheLoudBeat(beats, envelope(1, 0.2), FRAME_RATE, 10), beats);
  assert.deepEqual(onTheLoudBeat(beats.slice(0, 3), envelope(0.3, 1), FRAME_RATE, 10), beats.slice(0, 3));
});

const RATE = 22050;
const seconds = 8;
function noise(level: number, seed: number): Float32Array {
  const rng = new Rng(seed);
  return Float32Array.from({ length: seconds * RATE }, () => (rng.next() * 2 - 1) * level);
}
/** Harmonic tones (six partials each) on equal-tempered pitches, a chord change every second. */
function chords(level: number): Float32Array {
  const out = new Float32Array(seconds * RATE);
  const progression = [
    [57, 60, 64],
    [53, 57, 60],
    [55, 59, 62],
    [52, 56, 59],
  ];
  for (let i = 0; i < out.length; i++) {
    const t = i / RATE;
    const chord = progression[Math.floor(t) % progression.length] as number[];
    let v = 0;
    for (const midi of chord) {
      const f = 440 * 2 ** ((midi - 69) / 12);
      for (let h = 1; h <= 6; h++) v += Math.sin(2 * Math.PI * f * h * t) / h;
    }
    out[i] = v * level;
  }
  return out;
}
/** A voice-like tone: harmonics of a pitch that glides up and down by five semitones, twice a second. */
function glide(level: number): Float32Array {
  const out = new Float32Array(seconds * RATE);
  let phase = 0;
  for (let i = 0; i < out.length; i++) {
    const f = 150 * 2 ** ((5 * Math.sin((2 * Math.PI * 2 * i) / RATE)) / 12);
    phase += (2 * Math.PI * f) / RATE;
    let v = 0;
    for (let h = 1; h <= 10; h++) v += Math.sin(h * phase) / h;
    out[i] = v * level;
  }
  return out;
}
const mix = (a: Float32Array, b: Float32Array) => a.map((v, i) => v + (b[i] as number));
const power = (x: Float32Array) => x.reduce((s, v) => s + v * v, 0) / x.length;

test("tuning clarity: notes under noise of twice their power keep to their grid; noise and a glide do not", () => {
  const notes = chords(0.05);
  // Uniform noise in [−L, L] has power L²/3.
  const hiss = noise(Math.sqrt(3 * 2 * power(notes)), 7);
  assert.ok(power(hiss) > 1.8 * power(notes), "the noise is about twice the notes' power");
  // The key's support from this cue (tonal-evidence.ts): a key is reported from 0.5.
  const support = (x: Float32Array) => logistic(chromagram(x, RATE).tuningClarity, TUNING_CURVE);
  assert.ok(support(mix(notes, hiss)) > 0.95, `notes under noise: ${support(mix(notes, hiss))}`);
  assert.ok(support(notes) > 0.99, `notes alone: ${support(notes)}`);
  assert.ok(support(hiss) < 0.01, `noise alone: ${support(hiss)}`);
  assert.ok(support(glide(0.2)) < 0.1, `a gliding tone: ${support(glide(0.2))}`);
});
