/**
 * A test piece with known notes: a seeded melody over three octaves with chords and overlapping (legato) notes,
 * rendered with a piano-like additive voice (inharmonic partials, the higher ones decaying faster, a short
 * release), written as a 16-bit WAV.
 */

import { encodeWav16 } from "../../src/media/wav.ts";
import { Rng } from "../music/synth.ts";

export interface ReferenceNote {
  pitch: number;
  start: number;
  end: number;
  /** 0..1 */
  loudness: number;
}

/** C major over C3..C6: triads of the key accompany a melody. */
const SCALE = [0, 2, 4, 5, 7, 9, 11];
const TRIADS = [
  [48, 52, 55],
  [53, 57, 60],
  [55, 59, 62],
  [57, 60, 64],
];

/**
 * Softer than a struck string's few milliseconds: basic-pitch hears a 4 ms onset of pure partials as an onset
 * on every note still sounding too and restarts them (note F-measure 0.72 instead of 0.87 on this piece).
 */
const ATTACK_SECONDS = 0.01;

const midiToHz = (pitch: number) => 440 * 2 ** ((pitch - 69) / 12);

/** About `seconds` of music: a bass-register chord every two seconds under a melody stepping through C4..C6. */
export function composePiece(seconds: number, seed = 7): ReferenceNote[] {
  const rng = new Rng(seed);
  const notes: ReferenceNote[] = [];
  const jitter = () => rng.uniform(-0.02, 0.02);
  // One pitch never sounds twice at once: the reference must be playable on one instrument.
  const add = (note: ReferenceNote) => {
    const previous = notes.findLast((n) => n.pitch === note.pitch);
    if (!previous || previous.end < note.start - 0.05) notes.push(note);
  };
  for (let bar = 0; 0.5 + bar * 2 + 2 <= seconds; bar++) {
    const t = 0.5 + bar * 2;
    const start = t + jitter();
    for (const pitch of rng.pick(TRIADS)) add({ pitch, start, end: start + 1.6, loudness: 0.45 });
    let beat = t;
    let degree = rng.int(14);
    while (beat < t + 2 - 0.01) {
      const length = rng.pick([0.25, 0.5, 0.5, 0.75]);
      degree = Math.max(0, Math.min(14, degree + rng.pick([-3, -2, -1, 1, 2, 4])));
      const pitch = 60 + 12 * Math.floor(degree / 7) + (SCALE[degree % 7] as number);
      const noteStart = beat + jitter();
      // Legato: most melody notes ring a little past the next onset.
      const end = noteStart + length * rng.uniform(0.8, 1.3);
      add({ pitch, start: noteStart, end, loudness: rng.uniform(0.6, 1) });
      beat += length;
    }
  }
  return notes.sort((a, b) => a.start - b.start || a.pitch - b.pitch);
}

/** Renders the notes at `sampleRate`, mono, peak-normalised to 0.8, with half a second of silence at the end. */
export function renderPiece(notes: ReferenceNote[], sampleRate: number): Float32Array {
  const out = new Float32Array(Math.ceil((Math.max(0, ...notes.map((n) => n.end)) + 0.5) * sampleRate));
  for (const note of notes) {
    const f0 = midiToHz(note.pitch);
    const first = Math.round(note.start * sampleRate);
    const hold = Math.round((note.end - note.start) * sampleRate);
    const release = Math.round(0.08 * sampleRate);
    for (let h = 1; h <= 12; h++) {
      const f = h * f0 * Math.sqrt(1 + 0.0002 * h * h);
      if (f > sampleRate / 2 - 500) break;
      const amplitude = (note.loudness * 0.6 ** (h - 1)) / (1 + 0.1 * h);
      const decay = 1.2 / (1 + 0.5 * (h - 1));
      for (let n = 0; n < hold + release && first + n < out.length; n++) {
        const t = n / sampleRate;
        let envelope = Math.min(1, t / ATTACK_SECONDS) * Math.exp(-t / decay);
        if (n >= hold) envelope *= 1 - (n - hold) / release;
        out[first + n] = (out[first + n] as number) + amplitude * envelope * Math.sin(2 * Math.PI * f * t);
      }
    }
  }
  let peak = 0;
  for (const v of out) peak = Math.max(peak, Math.abs(v));
  for (let i = 0; i < out.length; i++) out[i] = ((out[i] as number) / peak) * 0.8;
  return out;
}

/** A mono 16-bit PCM WAV. */
export const encodeWav = (samples: Float32Array, sampleRate: number): Buffer => encodeWav16([samples], sampleRate);
