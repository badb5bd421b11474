import type { TimeSpan } from "../../../speech/vad.ts";

export interface TranscriptWord {
  word: string;
  start: number;
  end: number;
}

export interface TranscriptSegment {
  start: number;
  end: number;
  text: string;
  words: TranscriptWord[];
}

/** 16 kHz mono audio and the spans of it that hold speech (all of it when voice detection is off). */
export interface SpeechInput {
  samples: Float32Array;
  spans: TimeSpan[];
}

/** A speech recogniser. Times in its segments are on the input's own timeline, in seconds. */
export interface TranscriptionEngine {
  readonly name: "whisper" | "pocketsphinx";
  /** The model file's name, for engines that take one from the models directory. */
  readonly model?: string;
  transcribe(
    input: SpeechInput,
    options: { language: string; workDir: string },
    signal: AbortSignal,
  ): Promise<TranscriptSegment[]>;
}

/** Seconds rounded to the millisecond. */
export const ms = (seconds: number): number => Math.round(seconds * 1000) / 1000;

/** A segment around its words (none when there are no words). */
export function segmentOf(words: TranscriptWord[]): TranscriptSegment | undefined {
  const first = words[0];
  const last = words.at(-1);
  if (!first || !last) return undefined;
  return { start: first.start, end: last.end, text: words.map((w) => w.word).join(" "), words };
}
