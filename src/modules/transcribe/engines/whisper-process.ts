/**
 * Child-process entry of the whisper engine: `node whisper-process.ts REQUEST.json` prints the transcript
 * segments as JSON. whisper_full is one long synchronous native call, and @napi-rs/whisper turns a C++
 * exception into an abort of the whole process: in a process of its own it can be killed when the job is
 * cancelled, and a bad model cannot take the server down.
 */
import fs from "node:fs";
import { setImmediate as nextTurn } from "node:timers/promises";
import type * as WhisperBinding from "@napi-rs/whisper";
import type { TimeSpan } from "../../../speech/vad.ts";
import { ms, segmentOf, type TranscriptSegment, type TranscriptWord } from "./engine.ts";
import { loadWhisperBinding } from "./whisper-binding.ts";

export interface WhisperRequest {
  model: string;
  language: string;
  threads: number;
  /** Raw little-endian float32 mono samples at 16 kHz. */
  samplesFile: string;
  sampleRate: number;
  spans: TimeSpan[];
}

/** Whisper's markers for what is not speech: [BLANK_AUDIO], [Music], (applause) … */
const NON_SPEECH = /^[[(].*[\])]$/;

/**
 * The segment callback is a thread-safe function called non-blocking from inside whisper_full, so its calls
 * arrive on later turns of the event loop: wait until what arrived spells the text whisper_full returned.
 */
async function drain(pieces: WhisperBinding.Segment[], text: string): Promise<void> {
  const squash = (s: string) => s.replace(/\s+/g, "");
  const expected = squash(text);
  for (let turn = 0; turn < 1000 && squash(pieces.map((s) => s.text).join("")) !== expected; turn++) {
    await nextTurn();
  }
}

/** Words of pieces (start/end in whisper's 10 ms units, relative to the span), grouped into sentences at . ? ! */
export function sentencesOf(pieces: WhisperBinding.Segment[], spanStart: number): TranscriptSegment[] {
  const segments: TranscriptSegment[] = [];
  let words: TranscriptWord[] = [];
  for (const piece of pieces) {
    const word = piece.text.trim();
    if (!word || NON_SPEECH.test(word)) continue;
    const start = ms(spanStart + piece.start / 100);
    words.push({ word, start, end: Math.max(start, ms(spanStart + piece.end / 100)) });
    if (/[.?!]["')\]]*$/.test(word)) {
      const segment = segmentOf(words);
      if (segment) segments.push(segment);
      words = [];
    }
  }
  const rest = segmentOf(words);
  if (rest) segments.push(rest);
  return segments;
}

/**
 * Decodes each speech span on its own with one segment per word (max_len 1, split on word, token
 * timestamps: whisper.cpp's own way to word times).
 */
export async function transcribeSpans(request: WhisperRequest): Promise<TranscriptSegment[]> {
  const bytes = fs.readFileSync(request.samplesFile);
  const samples = new Float32Array(bytes.buffer, bytes.byteOffset, Math.floor(bytes.length / 4));
  const binding = loadWhisperBinding();
  const whisper = new binding.Whisper(request.model);
  const segments: TranscriptSegment[] = [];
  for (const span of request.spans) {
    const from = Math.round(span.start * request.sampleRate);
    const audio = samples.slice(from, Math.round(span.end * request.sampleRate));
    if (audio.length === 0) continue;
    const params = new binding.WhisperFullParams(binding.WhisperSamplingStrategy.Greedy);
    params.language = request.language;
    params.nThreads = request.threads;
    params.tokenTimestamps = true;
    params.maxLen = 1;
    params.splitOnWord = true;
    params.noContext = true;
    params.printProgress = false;
    params.printRealtime = false;
    params.printTimestamps = false;
    const pieces: WhisperBinding.Segment[] = [];
    params.onNewSegment = (piece) => pieces.push(piece);
    const text = whisper.full(params, audio);
    await drain(pieces, text);
    segments.push(...sentencesOf(pieces, span.start));
  }
  return segments;
}

if (import.meta.main) {
  let answer = "";
  try {
    const request = JSON.parse(fs.readFileSync(process.argv[2] as string, "utf8")) as WhisperRequest;
    answer = JSON.stringify(await transcribeSpans(request));
  } catch (error) {
    process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
    process.exitCode = 1;
  }
  // The segment callback is a native thread-safe function that holds the event loop open until V8 happens to
  // collect it, which may be never: a short run does not collect garbage at all (seen with Node's compile
  // cache warm). Exit once the answer is written instead of waiting for the loop to empty.
  process.stdout.write(answer, () => process.exit());
}
