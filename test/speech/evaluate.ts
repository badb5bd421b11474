import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { alignLyricsModule } from "../../src/modules/align-lyrics/index.ts";
import { transcribeModule } from "../../src/modules/transcribe/index.ts";
import { concatSamples } from "../helpers/audio.ts";
import type { Condition, Voice } from "./corpus.ts";
import { makeBeds, underCondition } from "./corpus.ts";
import type { CorpusFile } from "./corpus-files.ts";
import { readJson, runModule } from "./run-module.ts";
import { encodeWav, RATE, wordErrorRate } from "./speech-audio.ts";

export interface WerResult {
  voice: string;
  split: string;
  condition: string;
  wer: number;
  words: number;
  hypothesis: string;
}

/** mixdown/transcribe (pocketsphinx) on one corpus file, scored against what was read. */
export async function transcribeWer(file: CorpusFile): Promise<WerResult> {
  const { outputs, dir } = await runModule(transcribeModule, fs.readFileSync(file.wav), { engine: "pocketsphinx" });
  fs.rmSync(dir, { recursive: true, force: true });
  const reference = file.spoken.map((s) => s.text).join(" ");
  const hypothesis = String(outputs.text);
  return {
    voice: file.voice.id,
    split: file.voice.split,
    condition: file.condition.id,
    wer: wordErrorRate(reference, hypothesis),
    words: reference.split(/\s+/).length,
    hypothesis,
  };
}

/** Runs jobs two at a time (the CI machine has two cores), results in the jobs' order. */
export async function twoAtATime<T, R>(items: T[], job: (item: T) => Promise<R>): Promise<R[]> {
  const results: R[] = new Array(items.length);
  let next = 0;
  const lane = async () => {
    for (let i = next++; i < items.length; i = next++) results[i] = await job(items[i] as T);
  };
  await Promise.all([lane(), lane()]);
  return results;
}

export interface AlignmentResult {
  voice: string;
  condition: string;
  /** Seconds, one per word (Infinity when the word was not placed). */
  errors: number[];
  /** Over the placed words. */
  mean: number;
  max: number;
  /** Words the aligner could not place. */
  unplaced: number;
}

/**
 * mixdown/align-lyrics on sentences of a voice with every word's start known (1 s of silence first, 1.5 s
 * between sentences, the condition's bed under all of it): the start error of each word.
 */
export async function alignmentErrors(
  voice: Voice,
  sentences: string[],
  condition: Condition,
): Promise<AlignmentResult> {
  const pieces: Float32Array[] = [new Float32Array(RATE)];
  const truth: { word: string; start: number }[] = [];
  const spoken: { start: number; end: number }[] = [];
  let offset = RATE;
  for (const sentence of sentences) {
    const { samples, words } = await voice.timedWords(sentence.replace(/[.,?!]/g, ""));
    for (const w of words) truth.push({ word: w.word, start: offset / RATE + w.start });
    spoken.push({ start: offset / RATE, end: (offset + samples.length) / RATE });
    const gap = new Float32Array(Math.round(1.5 * RATE));
    pieces.push(samples, gap);
    offset += samples.length + gap.length;
  }
  const speech = concatSamples(pieces);
  const beds = await makeBeds(speech.length);
  const audio = underCondition(
    speech,
    spoken.map((s) => ({ ...s, text: "" })),
    condition,
    beds,
  );
  const { outputs, dir } = await runModule(
    alignLyricsModule,
    encodeWav(audio),
    { lyrics: sentences.join("\n") },
    os.tmpdir(),
  );
  const alignment = readJson(outputs.alignment) as { word: string; start: number | null }[];
  fs.rmSync(dir, { recursive: true, force: true });
  const errors = truth.map((t, i) => {
    const a = alignment[i];
    return a?.start == null ? Number.POSITIVE_INFINITY : Math.abs(a.start - t.start);
  });
  const placed = errors.filter(Number.isFinite);
  return {
    voice: voice.id,
    condition: condition.id,
    errors,
    mean: placed.reduce((s, e) => s + e, 0) / Math.max(1, placed.length),
    max: Math.max(0, ...placed),
    unplaced: errors.length - placed.length,
  };
}

/** A scratch directory for one test file's audio. */
export const scratch = (): string => fs.mkdtempSync(path.join(os.tmpdir(), "mixdown-speech-corpus-"));
