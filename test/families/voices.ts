/**
 * Voice sources for a song's voice line (its notes, in seconds):
 * - Festival's singing mode (Debian festival; singing-mode.scm) with a diphone voice: each phrase of the line
 *   is sung on its notes' pitches and lengths, one syllable-word a note.
 * - Recorded human speech (Debian ktuberling-data: single words read by people in many languages): one word a
 *   note, either spoken as recorded or pitch-shifted onto the note and stretched to its length by sox (a
 *   sung-like contour from a real voice).
 * - Text-to-speech (espeak-ng, Festival voices) reading sentences, one a phrase, at their own pitch.
 * All return mono at 44.1 kHz, `length` frames.
 */
import fs from "node:fs";
import fsp from "node:fs/promises";
import path from "node:path";
import { decodeAudio } from "../../src/media/pcm.ts";
import type { NoteEvent } from "../corpus/types.ts";
import { sox } from "../helpers/media.ts";
import { execFileAsync, Rng, SAMPLE_RATE, sampleFile, withScratch } from "./audio.ts";
import { medianF0, midiOf } from "./f0.ts";

/** Monosyllables for the sung lines. */
const SYLLABLES =
  "day night light home sky rain love time fire road heart gold moon sea wind stone dream run fly go".split(" ");

/** Sentences for the spoken lines (a plain description of the weather and a walk; no licence text). */
const SENTENCES = [
  "The morning was grey and the wind came in from the sea.",
  "We walked along the old road past the church and the bakery.",
  "By noon the rain had stopped and the streets were full of people.",
  "She told me the train would be late again tonight.",
  "There is a small garden behind the house where nothing grows in winter.",
  "He carried the box up the stairs and left it by the door.",
  "The river was higher than anyone could remember.",
  "In the evening we sat outside and listened to the radio.",
];

/** The line cut into phrases where a gap of more than `gap` seconds separates two notes. */
export function phrases(notes: readonly NoteEvent[], gap = 0.35): NoteEvent[][] {
  const out: NoteEvent[][] = [];
  for (const note of [...notes].sort((a, b) => a.time - b.time)) {
    const last = out.at(-1)?.at(-1);
    if (last && note.time - (last.time + last.duration) <= gap) out.at(-1)?.push(note);
    else out.push([note]);
  }
  return out;
}

const NOTE_NAMES = ["C", "C#", "D", "D#", "E", "F", "F#", "G", "G#", "A", "A#", "B"];
const noteName = (midi: number) => `${NOTE_NAMES[midi % 12]}${Math.floor(midi / 12) - 1}`;

async function decodeMono(file: string): Promise<Float32Array> {
  const pcm = await decodeAudio(file, { sampleRate: SAMPLE_RATE, channels: 1 });
  return pcm.channels[0] as Float32Array;
}

function place(out: Float32Array, sound: Float32Array, at: number, until = out.length, gain = 1) {
  const fade = Math.round(0.02 * SAMPLE_RATE);
  const end = Math.min(until, out.length, at + sound.length);
  for (let i = Math.max(0, at); i < end; i++) {
    const k = i - at;
    const tail = Math.min(1, (end - i) / fade);
    out[i] = (out[i] as number) + gain * (sound[k] as number) * tail;
  }
}

/** Festival's singing mode with `voice` (e.g. "ked_diphone"): each phrase sung on its notes. */
export async function festivalSinging(
  voice: string,
  notes: readonly NoteEvent[],
  length: number,
): Promise<Float32Array> {
  const out = new Float32Array(length);
  await withScratch(async (dir) => {
    for (const [p, phrase] of phrases(notes).entries()) {
      const start = (phrase[0] as NoteEvent).time;
      const lines: string[] = [];
      phrase.forEach((note, i) => {
        const next = phrase[i + 1];
        // BPM="50" makes a beat one second in singing-mode.scm (its beats per second are BPM / 50).
        const held = next ? Math.min(note.duration, next.time - note.time) : note.duration;
        lines.push(
          `<DURATION BEATS="${held.toFixed(3)}"><PITCH NOTE="${noteName(note.midi)}">${SYLLABLES[(p * 7 + i) % SYLLABLES.length]}</PITCH></DURATION>`,
        );
        const rest = next ? next.time - note.time - held : 0;
        if (rest > 0.01) lines.push(`<REST BEATS="${rest.toFixed(3)}"></REST>`);
      });
      const xml = `<?xml version="1.0"?>\n<!DOCTYPE SINGING PUBLIC "-//SINGING//DTD SINGING mark up//EN" "Singing.v0_1.dtd" []>\n<SINGING BPM="50">\n${lines.join("\n")}\n</SINGING>\n`;
      await fsp.writeFile(path.join(dir, "phrase.xml"), xml);
      await execFileAsync("text2wave", [
        ...["-mode", "singing", "-eval", `(voice_${voice})`, path.join(dir, "phrase.xml")],
        ...["-o", path.join(dir, "phrase.wav")],
      ]);
      place(out, await decodeMono(path.join(dir, "phrase.wav")), Math.round(start * SAMPLE_RATE));
    }
  });
  return out;
}

export const KTUBERLING_SOUNDS = "/usr/share/ktuberling/sounds";

/** The recorded words of some of KTuberling's languages (each read by its own speakers), in a fixed order. */
export function recordedWords(languages: readonly string[]): string[] {
  return languages.flatMap((language) =>
    fs
      .readdirSync(path.join(KTUBERLING_SOUNDS, language))
      .filter((f) => f.endsWith(".ogg"))
      .sort()
      .map((f) => path.join(KTUBERLING_SOUNDS, language, f)),
  );
}

/** A recorded word, mono, its leading and trailing silence (under −40 dB of its peak) cut. */
async function trimmedWord(file: string): Promise<Float32Array> {
  const [left, right] = await sampleFile(file);
  const mono = left.map((v, i) => (v + (right[i] as number)) / 2);
  let peak = 0;
  for (const v of mono) peak = Math.max(peak, Math.abs(v));
  const loud = (v: number) => Math.abs(v) > 0.01 * peak;
  const first = Math.max(0, mono.findIndex(loud) - Math.round(0.01 * SAMPLE_RATE));
  let last = mono.length - 1;
  while (last > first && !loud(mono[last] as number)) last--;
  return mono.slice(first, Math.min(mono.length, last + Math.round(0.03 * SAMPLE_RATE)));
}

/**
 * Recorded words on the line's notes: `sung` shifts each word's median pitch onto its note (sox pitch) and
 * stretches it to the note's length within ×0.5..×2 (sox tempo); else each word is spoken as recorded from its
 * note's onset, a note falling inside the previous word skipped.
 */
export async function recordedWordsOnNotes(
  words: readonly string[],
  notes: readonly NoteEvent[],
  length: number,
  sung: boolean,
  seed: number,
): Promise<Float32Array> {
  const rng = new Rng(seed);
  const order = rng.shuffle([...words]);
  const out = new Float32Array(length);
  let busyUntil = 0;
  let w = 0;
  await withScratch(async (dir) => {
    for (const note of [...notes].sort((a, b) => a.time - b.time)) {
      const at = Math.round(note.time * SAMPLE_RATE);
      if (at < busyUntil) continue;
      const word = await trimmedWord(order[w++ % order.length] as string);
      let sound = word;
      if (sung) {
        const f0 = medianF0(word, SAMPLE_RATE, 60, 600);
        if (f0 > 0) {
          const cents = Math.round(100 * (note.midi - midiOf(f0)));
          const stretch = Math.max(0.5, Math.min(2, word.length / SAMPLE_RATE / Math.max(0.15, note.duration)));
          const input = path.join(dir, "word.f32");
          const output = path.join(dir, "sung.f32");
          await fsp.writeFile(input, Buffer.from(word.buffer, word.byteOffset, word.byteLength));
          const raw = ["-t", "raw", "-e", "floating-point", "-b", "32", "-c", "1", "-r", String(SAMPLE_RATE)];
          await sox([...raw, input, ...raw, output, "pitch", String(cents), "tempo", "-s", String(stretch)]);
          const bytes = await fsp.readFile(output);
          sound = new Float32Array(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength));
        }
      }
      place(out, sound, at, length, note.velocity);
      busyUntil = at + sound.length;
    }
  });
  return out;
}

/** Text-to-speech of one sentence a phrase, each starting on its phrase's first note and cut at the next phrase. */
export async function spokenPhrases(
  speak: (text: string, file: string) => Promise<unknown>,
  notes: readonly NoteEvent[],
  length: number,
  seed: number,
): Promise<Float32Array> {
  const out = new Float32Array(length);
  const list = phrases(notes, 0.6);
  const rng = new Rng(seed);
  await withScratch(async (dir) => {
    for (const [p, phrase] of list.entries()) {
      const file = path.join(dir, `phrase-${p}.wav`);
      await speak(rng.pick(SENTENCES), file);
      const start = Math.round((phrase[0] as NoteEvent).time * SAMPLE_RATE);
      const next = list[p + 1]?.[0];
      place(out, await decodeMono(file), start, next ? Math.round(next.time * SAMPLE_RATE) : length);
    }
  });
  return out;
}

export const espeak = (voice: string) => (text: string, file: string) =>
  execFileAsync("espeak-ng", ["-v", voice, "-s", "165", "-w", file, text]);

export const festivalSpeech = (voice: string) => async (text: string, file: string) => {
  await fsp.writeFile(`${file}.txt`, text);
  await execFileAsync("text2wave", ["-eval", `(voice_${voice})`, `${file}.txt`, "-o", file]);
};
