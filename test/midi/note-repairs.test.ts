/**
 * The audio-to-midi module's repairs of basic-pitch's notes, on synthetic harmonic tones: subharmonic ghosts
 * dropped (subharmonic-ghosts.ts) and notes re-struck in chord re-attacks added (restruck-notes.ts).
 */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import type { NoteEvent } from "../../src/modules/audio-to-midi/decode.ts";
import { addRestruckNotes } from "../../src/modules/audio-to-midi/restruck-notes.ts";
import { dropSubharmonicGhosts } from "../../src/modules/audio-to-midi/subharmonic-ghosts.ts";

const RATE = 22050;
const HOP = 256;
const centre = (frame: number): number => frame * HOP;
const hz = (midi: number): number => 440 * 2 ** ((midi - 69) / 12);

/** A tone of `partials` equal-ish harmonics (1/h) at `midi`, its amplitude over time given per sample. */
function addTone(into: Float32Array, midi: number, envelope: (second: number) => number, partials = 8): void {
  const f0 = hz(midi);
  for (let i = 0; i < into.length; i++) {
    const t = i / RATE;
    const a = envelope(t);
    if (a === 0) continue;
    let v = 0;
    for (let h = 1; h <= partials; h++) v += Math.sin(2 * Math.PI * h * f0 * t + h) / h;
    into[i] = (into[i] as number) + 0.1 * a * v;
  }
}

const note = (pitchMidi: number, startFrame: number, durationFrames: number, amplitude: number): NoteEvent => ({
  pitchMidi,
  startFrame,
  durationFrames,
  amplitude,
});

describe("dropSubharmonicGhosts", () => {
  const audio = new Float32Array(RATE);
  addTone(audio, 57, () => 1); // A3 alone: nothing at A2's odd partials (110, 330, 550 Hz)

  test("drops a weaker note an octave (f/2) or an octave and a fifth (f/3) under a tone, with no partials of its own", () => {
    const events = [note(57, 10, 40, 0.8), note(45, 10, 40, 0.5), note(38, 11, 40, 0.4)];
    assert.deepEqual(
      dropSubharmonicGhosts(events, audio, RATE, centre).map((e) => e.pitchMidi),
      [57],
    );
  });

  test("keeps a lower note that sounds its own partials, and one louder than the tone above it", () => {
    const both = Float32Array.from(audio);
    addTone(both, 45, () => 1);
    const events = [note(57, 10, 40, 0.8), note(45, 10, 40, 0.5)];
    assert.deepEqual(
      dropSubharmonicGhosts(events, both, RATE, centre).map((e) => e.pitchMidi),
      [57, 45],
    );
    const louder = [note(57, 10, 40, 0.5), note(45, 10, 40, 0.8)];
    assert.equal(dropSubharmonicGhosts(louder, audio, RATE, centre).length, 2);
  });

  test("keeps notes that do not start together", () => {
    const events = [note(57, 10, 40, 0.8), note(45, 30, 20, 0.5)];
    assert.equal(dropSubharmonicGhosts(events, audio, RATE, centre).length, 2);
  });
});

describe("addRestruckNotes", () => {
  // A 4-note chord struck at frame 10 and again at frame 60 (about 0.7 s later); every note decays between.
  const FRAMES = 120;
  const chord = [48, 55, 64, 71];
  const strike = (frame: number) => (frame * HOP) / RATE;
  const decaying = (restruck: boolean) => (t: number) => {
    if (t < strike(10)) return 0;
    const since = restruck && t >= strike(60) ? t - strike(60) : t - strike(10);
    return Math.exp(-3 * since);
  };
  const onsetsWith = (candidate: number): number[][] => {
    const onsets = Array.from({ length: FRAMES }, () => new Array<number>(88).fill(0.05));
    for (const midi of chord) {
      (onsets[10] as number[])[midi - 21] = 0.9;
      if (midi !== chord[0]) (onsets[60] as number[])[midi - 21] = 0.9;
    }
    (onsets[60] as number[])[(chord[0] as number) - 21] = candidate;
    return onsets;
  };
  const events = () => chord.map((midi) => note(midi, 10, 100, 0.6));

  test("a note whose own partials rise again when the chord is struck again is re-struck there", () => {
    const audio = new Float32Array(FRAMES * HOP);
    for (const midi of chord) addTone(audio, midi, decaying(true));
    const found = addRestruckNotes(events(), onsetsWith(0.5), 0.6, audio, RATE, centre);
    const added = found.slice(chord.length);
    assert.deepEqual(
      added.map((e) => [e.pitchMidi, e.startFrame, e.startFrame + e.durationFrames]),
      [[48, 60, 110]],
    );
  });

  test("a note that only rings on while the others are struck again is not, nor a weak onset peak", () => {
    const ringing = new Float32Array(FRAMES * HOP);
    for (const midi of chord) addTone(ringing, midi, decaying(midi !== chord[0]));
    assert.equal(addRestruckNotes(events(), onsetsWith(0.5), 0.6, ringing, RATE, centre).length, chord.length);
    const audio = new Float32Array(FRAMES * HOP);
    for (const midi of chord) addTone(audio, midi, decaying(true));
    assert.equal(addRestruckNotes(events(), onsetsWith(0.3), 0.6, audio, RATE, centre).length, chord.length);
  });
});
