import { execFile } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { encodeWav16 } from "../../src/media/wav.ts";

const execFileAsync = promisify(execFile);

/** espeak-ng's output rate; the test programmes are built at it. */
export const RATE = 22050;

/** espeak-ng's Klatt voice: pocketsphinx recognises it far better than the default formant voice. */
export const VOICE = "en-us+klatt";

export interface Spoken {
  text: string;
  /** Where the speech is in the programme, seconds (leading and trailing silence of the synthesis trimmed). */
  start: number;
  end: number;
}

/** The samples of a 16-bit PCM WAV (interleaved, if it has more than one channel). */
export function readWav(bytes: Buffer): Float32Array {
  let offset = 12;
  while (offset + 8 <= bytes.length) {
    const id = bytes.toString("ascii", offset, offset + 4);
    const size = bytes.readUInt32LE(offset + 4);
    if (id === "data") {
      const count = Math.floor(Math.min(size, bytes.length - offset - 8) / 2);
      const out = new Float32Array(count);
      for (let i = 0; i < count; i++) out[i] = bytes.readInt16LE(offset + 8 + i * 2) / 32768;
      return out;
    }
    offset += 8 + size + (size % 2);
  }
  throw new Error("no data chunk in espeak-ng's WAV");
}

/** Speaks text with espeak-ng and trims the silence it adds before and after (first/last sample above -50 dBFS). */
export async function speak(text: string, { voice = VOICE, speed = 170 } = {}): Promise<Float32Array> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "mixdown-espeak-"));
  try {
    const file = path.join(dir, "speech.wav");
    await execFileAsync("espeak-ng", ["-v", voice, "-s", String(speed), "-w", file, text]);
    const samples = readWav(fs.readFileSync(file));
    const loud = (s: number) => Math.abs(s) > 0.003;
    const first = samples.findIndex(loud);
    const last = samples.findLastIndex(loud);
    return first < 0 ? new Float32Array(0) : samples.slice(first, last + 1);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

/** A music-like bed with no voice: plucked triads of harmonic tones, two chords a second. */
export function toneBed(seconds: number, level = 0.25): Float32Array {
  const out = new Float32Array(Math.round(seconds * RATE));
  const chords = [
    [220, 277.18, 329.63],
    [196, 246.94, 293.66],
    [174.61, 220, 261.63],
    [164.81, 207.65, 246.94],
  ];
  const noteLength = Math.round(0.5 * RATE);
  for (let i = 0; i < out.length; i++) {
    const chord = chords[Math.floor(i / noteLength) % chords.length] as number[];
    const t = (i % noteLength) / RATE;
    const envelope = Math.exp(-4 * t) * Math.min(1, t / 0.005);
    let s = 0;
    for (const f of chord) for (let h = 1; h <= 4; h++) s += Math.sin((2 * Math.PI * f * h * i) / RATE) / (h * h);
    out[i] = (s / 6) * level * envelope;
  }
  return out;
}

/** A programme: pieces of speech and of silence or tone bed, end to end, with where each piece of speech lies. */
export function programme(pieces: ({ text: string; audio: Float32Array } | Float32Array)[]): {
  samples: Float32Array;
  spoken: Spoken[];
} {
  const total = pieces.reduce((n, p) => n + (p instanceof Float32Array ? p.length : p.audio.length), 0);
  const samples = new Float32Array(total);
  const spoken: Spoken[] = [];
  let offset = 0;
  for (const piece of pieces) {
    const audio = piece instanceof Float32Array ? piece : piece.audio;
    samples.set(audio, offset);
    if (!(piece instanceof Float32Array))
      spoken.push({ text: piece.text, start: offset / RATE, end: (offset + audio.length) / RATE });
    offset += audio.length;
  }
  return { samples, spoken };
}

export const silence = (seconds: number): Float32Array => new Float32Array(Math.round(seconds * RATE));

/** 16-bit mono WAV at RATE. */
export const encodeWav = (samples: Float32Array): Buffer => encodeWav16([samples], RATE);

/** Words of a text for scoring: lower case, punctuation gone (apostrophes inside words kept). */
export const scoringWords = (text: string): string[] =>
  text
    .toLowerCase()
    .replace(/[^a-z0-9' ]+/g, " ")
    .split(/\s+/)
    .map((w) => w.replace(/^'+|'+$/g, ""))
    .filter(Boolean);

/** Word error rate: word-level Levenshtein distance over the number of reference words. */
export function wordErrorRate(reference: string, hypothesis: string): number {
  const ref = scoringWords(reference);
  const hyp = scoringWords(hypothesis);
  let row = Array.from({ length: hyp.length + 1 }, (_, j) => j);
  for (let i = 1; i <= ref.length; i++) {
    const next = [i];
    for (let j = 1; j <= hyp.length; j++) {
      const substitution = (row[j - 1] as number) + (ref[i - 1] === hyp[j - 1] ? 0 : 1);
      next.push(Math.min((row[j] as number) + 1, (next[j - 1] as number) + 1, substitution));
    }
    row = next;
  }
  return (row[hyp.length] as number) / Math.max(1, ref.length);
}
