/**
 * The cues of the analysis' phase check and key support on signals made here, where the answer is known by
 * construction: beats moved onto louder onsets or kicks halfway or a third of a beat away (beats.ts's onTheBeat),
 * the tuning clarity of notes under loud noise (chroma.ts), beside noise alone and a gliding voice-like tone, and
 * the harmonic movement of a riff over one held chord against a drone whose partials beat (tonal-evidence.ts), and
 * which cue of the beat's confidence refuses what (pulse-evidence.ts).
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { onsetAtBeat, onTheBeat } from "../../src/dsp/beats.ts";
import { chromagram } from "../../src/dsp/chroma.ts";
import { type OnsetEnvelope, onsetEnvelope } from "../../src/dsp/onsets.ts";
import { logistic, pulseEvidence } from "../../src/dsp/pulse-evidence.ts";
import { harmonicMovement, MOVEMENT_CURVE, TUNING_CURVE } from "../../src/dsp/tonal-evidence.ts";
import { Rng } from "../music/synth.ts";

const FRAME_RATE = 50;
const RATE = 22050;

/** An onset envelope with a spike of `onBeat` at every beat and `halfway` between beats (0.5 s apart). */
function envelope(onBeat: number, halfway: number, seconds = 10): Float32Array {
  const e = new Float32Array(seconds * FRAME_RATE);
  for (let t = 0.5; t < seconds - 0.5; t += 0.5) {
    e[Math.round(t * FRAME_RATE)] = onBeat;
    e[Math.round((t + 0.25) * FRAME_RATE)] = halfway;
  }
  return e;
}
/** An onset envelope of `frames` frames with the given cues, every other one silent (the low band a steady level). */
function onlyCues(frames: number, cues: Partial<Omit<OnsetEnvelope, "frameRate">>): OnsetEnvelope {
  const silent = new Float32Array(frames);
  return {
    strength: silent,
    low: silent,
    mid: silent,
    high: silent,
    renewal: silent,
    loudness: silent,
    lowLevelDb: silent,
    frameRate: FRAME_RATE,
    ...cues,
  };
}
/** Onsets whose loudness rises are `loudness`, every other cue silent. */
const loudnessOnly = (loudness: Float32Array) => onlyCues(loudness.length, { loudness });
const beatsAt = (seconds: number) =>
  Array.from({ length: Math.floor((seconds - 1) / 0.5) + 1 }, (_, i) => 0.5 + i * 0.5);
const rounded = (times: number[]) => times.map((t) => Math.round(t * 1000) / 1000);

test("beats move halfway when the onsets there are more than twice as loud, and stay otherwise", () => {
  const beats = beatsAt(10);
  const moved = onTheBeat(beats, loudnessOnly(envelope(0.3, 1)), 10);
  assert.deepEqual(
    rounded(moved),
    [0.25, ...beats.map((t) => t + 0.25)].filter((t) => t < 10),
  );
  assert.deepEqual(onTheBeat(beats, loudnessOnly(envelope(1, 1.4)), 10), beats, "a syncopated 1.4 times stays");
  assert.deepEqual(onTheBeat(beats, loudnessOnly(envelope(1, 0.2)), 10), beats);
  assert.deepEqual(onTheBeat(beats.slice(0, 3), loudnessOnly(envelope(0.3, 1)), 10), beats.slice(0, 3));
});

/** A kick at `seconds`: a sine falling from 150 to 50 Hz, dying in about 60 ms. */
function addKick(out: Float32Array, seconds: number) {
  const start = Math.round(seconds * RATE);
  let phase = 0;
  for (let i = 0; i < 0.3 * RATE && start + i < out.length; i++) {
    const t = i / RATE;
    phase += (2 * Math.PI * (50 + 100 * Math.exp(-t / 0.03))) / RATE;
    out[start + i] = (out[start + i] as number) + 0.25 * Math.exp(-t / 0.06) * Math.sin(phase);
  }
}

/**
 * Four on the floor with the bass on the off-beats: a kick (a sine falling from 150 to 50 Hz, dying in about
 * 60 ms) on every beat from 0.5 s, a bass note (55 Hz with its harmonics, held 0.17 s) halfway between, at 120 BPM.
 * The bass note is about as loud an onset as the kick, as in house music, so only how the low band decays tells the
 * kick.
 */
function kicksAndOffBeatBass(seconds: number): Float32Array {
  const out = new Float32Array(seconds * RATE);
  for (let beat = 0.5; beat < seconds - 0.5; beat += 0.5) {
    addKick(out, beat);
    addBassNote(out, beat + 0.25, 0.17);
  }
  return out;
}

/** A bass note (55 Hz with its harmonics) at `seconds`, held `length` seconds. */
function addBassNote(out: Float32Array, seconds: number, length: number) {
  const start = Math.round(seconds * RATE);
  for (let i = 0; i < length * RATE && start + i < out.length; i++) {
    const t = i / RATE;
    const envelope = Math.min(1, t / 0.005) * Math.min(1, (length - t) / 0.01);
    let v = 0;
    for (let h = 1; h <= 4; h++) v += Math.sin(2 * Math.PI * 55 * h * t) / h;
    out[start + i] = (out[start + i] as number) + 0.8 * envelope * v;
  }
}

test("beats on off-beat bass notes move onto the kicks halfway; beats on the kicks stay", () => {
  const seconds = 10;
  const onsets = onsetEnvelope(kicksAndOffBeatBass(seconds), RATE);
  const kicks = beatsAt(seconds);
  const bassNotes = kicks.slice(0, -1).map((t) => t + 0.25);
  const at = (times: number[]) => times.map((t) => onsetAtBeat(onsets.loudness, Math.round(t * onsets.frameRate)));
  const mean = (values: number[]) => values.reduce((a, v) => a + v, 0) / values.length;
  const louder = mean(at(kicks)) / mean(at(bassNotes));
  assert.ok(louder < 2, `the loudness cue alone would not move the beats: the kicks ${louder} times as loud`);
  assert.deepEqual(rounded(onTheBeat(bassNotes, onsets, seconds)), rounded(kicks));
  assert.deepEqual(onTheBeat(kicks, onsets, seconds), kicks);
});

/** A ride hit at `seconds`: bright noise (white noise's first difference, little below 200 Hz) dying in 80 ms. */
function addRide(out: Float32Array, seconds: number, level: number, rng: Rng) {
  const start = Math.round(seconds * RATE);
  let previous = 0;
  for (let i = 0; i < 0.15 * RATE && start + i < out.length; i++) {
    const white = rng.next() * 2 - 1;
    out[start + i] = (out[start + i] as number) + level * Math.exp(-i / RATE / 0.08) * (white - previous);
    previous = white;
  }
}

/**
 * Ten seconds of a swing at 120 BPM, `play` adding what sounds at each beat: its onsets, its length, its beats and
 * its swung off-beats.
 */
function swing(play: (out: Float32Array, beat: number, swungOffBeat: number) => void) {
  const seconds = 10;
  const out = new Float32Array(seconds * RATE);
  const beats = beatsAt(seconds);
  const offBeat = (beat: number) => beat + (2 / 3) * 0.5;
  for (const beat of beats) play(out, beat, offBeat(beat));
  return { onsets: onsetEnvelope(out, RATE), seconds, beats, swung: beats.slice(0, -1).map(offBeat) };
}

test("a shuffle's beats tracked on its swung off-beats move a third of a beat, onto the kicks", () => {
  const rng = new Rng(3);
  const { onsets, seconds, beats, swung } = swing((out, beat, offBeat) => {
    addKick(out, beat);
    addRide(out, offBeat, 0.1, rng);
  });
  assert.deepEqual(rounded(onTheBeat(swung, onsets, seconds)), rounded(beats));
  assert.deepEqual(onTheBeat(beats, onsets, seconds), beats);
});

test("a swing with a walking bass, tracked on its louder swung ride, moves a third of a beat onto the bass", () => {
  const rng = new Rng(4);
  const { onsets, seconds, beats, swung } = swing((out, beat, offBeat) => {
    addBassNote(out, beat, 0.45);
    addRide(out, beat, 0.05, rng);
    addRide(out, offBeat, 0.1, rng);
  });
  assert.deepEqual(rounded(onTheBeat(swung, onsets, seconds)), rounded(beats));
  assert.deepEqual(onTheBeat(beats, onsets, seconds), beats, "tracked on the beat, a shuffle stays");
  // A figure that reads short-long from the beat (a note on it, one a third of the way on, none at two thirds)
  // stays where the beat's note is the louder: the asymmetry alone does not move beats.
  const shortLong = new Float32Array(seconds * RATE);
  for (const beat of beats) {
    addRide(shortLong, beat, 0.15, rng);
    addRide(shortLong, beat + (1 / 3) * 0.5, 0.1, rng);
  }
  assert.deepEqual(onTheBeat(beats, onsetEnvelope(shortLong, RATE), seconds), beats);
});

const seconds = 8;
function noise(level: number, seed: number): Float32Array {
  const rng = new Rng(seed);
  return Float32Array.from({ length: seconds * RATE }, () => (rng.next() * 2 - 1) * level);
}
/** Harmonic tones (six partials each) of the given frequencies in Hz, each from `start` for `length` seconds. */
function tones(notes: { hz: number; start: number; length: number; level: number }[]): Float32Array {
  const out = new Float32Array(seconds * RATE);
  for (const { hz, start, length, level } of notes)
    for (let i = Math.round(start * RATE); i < Math.min(out.length, Math.round((start + length) * RATE)); i++) {
      const t = i / RATE;
      let v = 0;
      for (let h = 1; h <= 6; h++) v += Math.sin(2 * Math.PI * hz * h * t) / h;
      out[i] = (out[i] as number) + v * level;
    }
  return out;
}
const hz = (midi: number) => 440 * 2 ** ((midi - 69) / 12);
/** Harmonic tones on equal-tempered pitches, a chord change every second. */
function chords(level: number): Float32Array {
  const progression = [
    [57, 60, 64],
    [53, 57, 60],
    [55, 59, 62],
    [52, 56, 59],
  ];
  return tones(
    Array.from({ length: seconds }, (_, second) => progression[second % progression.length] as number[]).flatMap(
      (chord, second) => chord.map((midi) => ({ hz: hz(midi), start: second, length: 1, level })),
    ),
  );
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

const held = (midi: number, level = 0.05) => ({ hz: hz(midi), start: 0, length: seconds, level });

test("harmonic movement: a riff over one held chord moves, a drone whose partials beat does not", () => {
  const support = (x: Float32Array) => logistic(harmonicMovement(chromagram(x, RATE), 0), MOVEMENT_CURVE);
  // A2 + E3 + A3 held, the A3 doubled 0.8 Hz sharp: the partials beat, as a chorus or two strings do.
  const drone = tones([held(45), held(52), held(57), { ...held(57), hz: hz(57) + 0.8 }]);
  // The same chord held under a melody on the A minor pentatonic, a note every half second.
  const melody = [69, 72, 74, 76, 74, 72, 69, 67].map((midi, i) => ({
    hz: hz(midi),
    start: i * 0.5,
    length: 0.5,
    level: 0.04,
  }));
  const riff = tones([held(45), held(52), held(57), ...melody, ...melody.map((n) => ({ ...n, start: n.start + 4 }))]);
  assert.ok(support(drone) < 0.2, `the drone: ${support(drone)}`);
  assert.ok(support(riff) > 0.9, `the riff: ${support(riff)}`);
  assert.ok(support(chords(0.05)) > 0.99, `chord changes: ${support(chords(0.05))}`);
});

/**
 * Onsets 0.5 s apart (120 BPM), on a tresillo (sixteenths 0, 3 and 6 of each two beats, the 3+3+2 of a
 * strummed guitar: no onset is a beat after another) or at random times, every frame renewing `renewal` of the spectrum
 * where an onset falls and a tenth of it between (the cue is the 95th percentile, so the onsets' frames set it).
 */
function pulse(renewal: number, pattern: "beats" | "tresillo" | "random", seconds = 20): OnsetEnvelope {
  const rng = new Rng(11);
  const strength = new Float32Array(seconds * FRAME_RATE);
  const renewed = new Float32Array(strength.length).fill(renewal / 10);
  const sixteenth = FRAME_RATE / 8;
  const onsetAt = {
    beats: (i: number) => i % (FRAME_RATE / 2) === 0,
    tresillo: (i: number) => [0, 3, 6].some((k) => i % (8 * sixteenth) === Math.round(k * sixteenth)),
    random: () => rng.next() < 2 / FRAME_RATE,
  }[pattern];
  for (let i = 0; i < strength.length; i++) {
    if (!onsetAt(i)) continue;
    strength[i] = 1;
    for (let j = i; j < Math.min(i + 3, strength.length); j++) renewed[j] = renewal;
  }
  return onlyCues(strength.length, { strength, renewal: renewed });
}

test("the beat's confidence: periodicity refuses noise, salience refuses drones, and sustained music keeps its beat", () => {
  // Renewal as the calibration material gives it (calibration-report.ts): the tremolo drone 0.074 and the
  // drones below it, pink noise 0.096, music from 0.114; two scores whose distorted guitars sustain under the
  // drums, 0.098 (families.md).
  const confidence = (renewal: number, pattern: Parameters<typeof pulse>[1]) =>
    pulseEvidence(pulse(renewal, pattern), 120).confidence;
  assert.ok(confidence(0.098, "beats") >= 0.5, `a clear beat renewing 9.8 %: ${confidence(0.098, "beats")}`);
  assert.ok(confidence(0.114, "beats") > 0.8, `music's least renewal: ${confidence(0.114, "beats")}`);
  assert.ok(confidence(0.074, "beats") < 0.2, `a drone's tremolo, however regular: ${confidence(0.074, "beats")}`);
  assert.ok(confidence(0.3, "random") < 0.05, `onsets at random, renewing much: ${confidence(0.3, "random")}`);
  // No onset of a tresillo falls a beat after another: the pulse repeats over two beats, not one.
  assert.ok(confidence(0.2, "tresillo") > 0.8, `a tresillo strum: ${confidence(0.2, "tresillo")}`);
});
