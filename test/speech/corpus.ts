/**
 * A broad speech test set: several synthetic voices (espeak-ng's standard voices at different speeds, and
 * festival's HTS voice trained on a real speaker), each reading ordinary sentences, clean and under pink noise
 * or a music bed. Voices are split into a development set (tuned on) and held-out voices (never tuned on);
 * the held-out voices read other sentences than the development ones.
 */
import { execFile } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import tonejs from "@tonejs/midi";
import { concatSamples, pinkNoiseFrom } from "../helpers/audio.ts";
import { RATE, readWav, speak } from "./speech-audio.ts";

const execFileAsync = promisify(execFile);

/** Tuned on. */
export const DEV_SENTENCES = [
  "The weather is nice today.",
  "I would like a cup of coffee, please.",
  "My brother works at the bank in the city.",
  "Please call me when you get home tonight.",
  "The children are playing in the garden.",
  "She bought a new pair of shoes for the wedding.",
  "We need to leave early to catch the train.",
  "He forgot his keys on the kitchen table.",
];

/** Never tuned on; read by the held-out voices (and by the development voices, reported apart). */
export const HELD_OUT_SENTENCES = [
  "The football match was cancelled because of the heavy rain.",
  "My sister is studying medicine at the university.",
  "Could you tell me the way to the station?",
  "They moved to a small house near the river last year.",
  "The doctor said I should get more sleep.",
  "Our teacher gave us a lot of homework this week.",
  "I left my umbrella on the bus this morning.",
  "The restaurant on the corner serves excellent fish.",
];

export interface Voice {
  id: string;
  split: "dev" | "held-out";
  describe: string;
  /** One utterance at RATE, leading and trailing silence trimmed. */
  synthesise(text: string): Promise<Float32Array>;
  /**
   * The text spoken with each word's start known (seconds into the audio): festival reports its own word
   * timings; espeak-ng's words are spoken one by one with short gaps.
   */
  timedWords(text: string): Promise<{ samples: Float32Array; words: { word: string; start: number }[] }>;
}

const WORD_GAPS = [0.05, 0.12, 0.2, 0.08];

/** Each word synthesised on its own, short gaps between: the start of every word is known exactly. */
async function wordByWord(synthesise: (text: string) => Promise<Float32Array>, text: string) {
  const pieces: Float32Array[] = [];
  const words: { word: string; start: number }[] = [];
  let offset = 0;
  for (const [i, word] of text.split(/\s+/).entries()) {
    const audio = await synthesise(word);
    words.push({ word, start: offset / RATE });
    const gap = new Float32Array(Math.round((WORD_GAPS[i % WORD_GAPS.length] as number) * RATE));
    pieces.push(audio, gap);
    offset += audio.length + gap.length;
  }
  return { samples: concatSamples(pieces), words };
}

function espeak(id: string, split: Voice["split"], voice: string, speed: number): Voice {
  const synthesise = (text: string) => speak(text, { voice, speed });
  return {
    id,
    split,
    describe: `espeak-ng ${voice}, ${speed} wpm`,
    synthesise,
    timedWords: (text) => wordByWord(synthesise, text),
  };
}

/** festival's HTS voice of a real (female, US) speaker, with its word timings, at RATE. */
export async function festival(
  text: string,
): Promise<{ samples: Float32Array; words: { word: string; start: number }[] }> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "mixdown-festival-"));
  try {
    const wav = path.join(dir, "speech.wav");
    const quoted = text.replace(/["\\]/g, "");
    const script = [
      "(voice_cmu_us_slt_arctic_hts)",
      `(set! utt (SynthText "${quoted}"))`,
      `(utt.wave.resample utt ${RATE})`,
      `(utt.save.wave utt "${wav}" 'riff)`,
      `(mapcar (lambda (w) (format t "%s %f\\n" (item.name w) (item.feat w "word_start"))) (utt.relation.items utt 'Word))`,
    ].join("\n");
    const file = path.join(dir, "speak.scm");
    fs.writeFileSync(file, script);
    const { stdout } = await execFileAsync("festival", ["-b", file]);
    const all = readWav(fs.readFileSync(wav));
    const first = Math.max(
      0,
      all.findIndex((s) => Math.abs(s) > 0.003),
    );
    const last = all.findLastIndex((s) => Math.abs(s) > 0.003);
    const offset = first / RATE;
    const words = stdout
      .trim()
      .split("\n")
      .map((line) => line.split(" "))
      .map(([word, start]) => ({ word: String(word), start: Math.max(0, Number(start) - offset) }));
    return { samples: all.slice(first, last + 1), words };
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

export const VOICES: Voice[] = [
  espeak("espeak en-us", "dev", "en-us", 160),
  espeak("espeak en+f3", "dev", "en+f3", 175),
  espeak("espeak en-us+m3", "dev", "en-us+m3", 140),
  {
    id: "festival slt-hts",
    split: "held-out",
    describe: "festival cmu_us_slt_arctic_hts (HTS voice of a real speaker)",
    synthesise: async (text) => (await festival(text)).samples,
    timedWords: festival,
  },
  espeak("espeak en-us+f2", "held-out", "en-us+f2", 185),
];

export interface Condition {
  id: string;
  describe: string;
  /** The bed under the whole programme and its level: speech RMS over bed RMS, dB. */
  bed?: "noise" | "music";
  snr?: number;
}

export const CONDITIONS: Condition[] = [
  { id: "clean", describe: "clean" },
  { id: "noise +20", describe: "pink noise, +20 dB SNR", bed: "noise", snr: 20 },
  { id: "noise +10", describe: "pink noise, +10 dB SNR", bed: "noise", snr: 10 },
  { id: "noise +5", describe: "pink noise, +5 dB SNR", bed: "noise", snr: 5 },
  { id: "music +10", describe: "music bed (piano, bass, drums), speech 10 dB above it", bed: "music", snr: 10 },
];

/** Seeded pink noise (Paul Kellet's filter over white noise), unit RMS. */
export function pinkNoise(length: number, seed = 12345): Float32Array {
  let state = seed >>> 0;
  const white = () => {
    // Sum of uniforms: near Gaussian, deterministic.
    let sum = 0;
    for (let k = 0; k < 4; k++) {
      state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
      sum += state / 0x100000000 - 0.5;
    }
    return sum;
  };
  return scaleToRms(Float32Array.from(pinkNoiseFrom(white, length)), 1);
}

function rms(samples: Float32Array): number {
  let sum = 0;
  for (const s of samples) sum += s * s;
  return Math.sqrt(sum / Math.max(1, samples.length));
}

function scaleToRms(samples: Float32Array, target: number): Float32Array {
  const gain = target / (rms(samples) || 1);
  for (let i = 0; i < samples.length; i++) samples[i] = (samples[i] as number) * gain;
  return samples;
}

/**
 * Eight bars of a pop accompaniment (piano chords, bass, drums at 100 BPM) as a Standard MIDI File, rendered
 * by fluidsynth with the General MIDI FluidR3 soundfont. Unit RMS, at RATE.
 */
export async function musicBed(): Promise<Float32Array> {
  const midi = new tonejs.Midi();
  midi.header.setTempo(100);
  const beat = 0.6;
  const piano = midi.addTrack();
  piano.instrument.number = 0;
  const bass = midi.addTrack();
  bass.instrument.number = 33;
  const drums = midi.addTrack();
  drums.channel = 9;
  const chords = [
    [60, 64, 67],
    [57, 60, 64],
    [53, 57, 60],
    [55, 59, 62],
  ];
  for (let bar = 0; bar < 8; bar++) {
    const chord = chords[bar % 4] as number[];
    for (let b = 0; b < 4; b++) {
      const time = (bar * 4 + b) * beat;
      for (const note of chord) piano.addNote({ midi: note, time, duration: beat * 0.9, velocity: 0.6 });
      bass.addNote({ midi: (chord[0] as number) - 24, time, duration: beat * 0.8, velocity: 0.8 });
      drums.addNote({ midi: b % 2 === 0 ? 36 : 38, time, duration: 0.1, velocity: 0.8 });
      drums.addNote({ midi: 42, time, duration: 0.05, velocity: 0.5 });
      drums.addNote({ midi: 42, time: time + beat / 2, duration: 0.05, velocity: 0.4 });
    }
  }
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "mixdown-music-"));
  try {
    const mid = path.join(dir, "bed.mid");
    const wav = path.join(dir, "bed.wav");
    fs.writeFileSync(mid, midi.toArray());
    await execFileAsync("fluidsynth", [
      "-ni",
      "-g",
      "0.5",
      "-r",
      String(RATE),
      "-T",
      "wav",
      "-O",
      "s16",
      "-F",
      wav,
      "/usr/share/sounds/sf2/FluidR3_GM.sf2",
      mid,
    ]);
    const stereo = fs.readFileSync(wav);
    // fluidsynth writes stereo: read interleaved, keep the mean of both channels.
    const interleaved = readWav(stereo);
    const mono = new Float32Array(Math.floor(interleaved.length / 2));
    for (let i = 0; i < mono.length; i++)
      mono[i] = ((interleaved[2 * i] as number) + (interleaved[2 * i + 1] as number)) / 2;
    return scaleToRms(mono, 1);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

export interface Utterance {
  text: string;
  /** Seconds in the programme. */
  start: number;
  end: number;
}

/** Sentences with pauses between them (1 s first, then 1.5 s), and where each one is. */
export async function readSentences(
  voice: Voice,
  sentences: string[],
): Promise<{ speech: Float32Array; spoken: Utterance[] }> {
  const pieces: Float32Array[] = [new Float32Array(RATE)];
  const spoken: Utterance[] = [];
  let offset = RATE;
  for (const text of sentences) {
    const audio = await voice.synthesise(text);
    spoken.push({ text, start: offset / RATE, end: (offset + audio.length) / RATE });
    pieces.push(audio, new Float32Array(Math.round(1.5 * RATE)));
    offset += audio.length + Math.round(1.5 * RATE);
  }
  return { speech: concatSamples(pieces), spoken };
}

/** Speech with the condition's bed under all of it (its level set against the RMS of the voiced parts). */
export function underCondition(
  speech: Float32Array,
  spoken: Utterance[],
  condition: Condition,
  beds: { noise: Float32Array; music: Float32Array },
): Float32Array {
  if (!condition.bed || condition.snr === undefined) return speech;
  const voiced = spoken.flatMap((u) => [...speech.subarray(Math.round(u.start * RATE), Math.round(u.end * RATE))]);
  const level = rms(Float32Array.from(voiced)) / 10 ** (condition.snr / 20);
  const bed = beds[condition.bed];
  const out = new Float32Array(speech.length);
  for (let i = 0; i < out.length; i++) out[i] = (speech[i] as number) + (bed[i % bed.length] as number) * level;
  let peak = 0;
  for (const s of out) peak = Math.max(peak, Math.abs(s));
  if (peak > 0.99) for (let i = 0; i < out.length; i++) out[i] = ((out[i] as number) * 0.99) / peak;
  return out;
}

/** The beds, made once. */
export async function makeBeds(length: number): Promise<{ noise: Float32Array; music: Float32Array }> {
  return { noise: pinkNoise(length), music: await musicBed() };
}
