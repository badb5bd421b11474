import path from "node:path";
import { isFiller, type PocketsphinxSetup, runPocketsphinx } from "../../../speech/pocketsphinx.ts";
import { SplicedAudio } from "../../../speech/splice.ts";
import { SPEECH_SAMPLE_RATE } from "../../../speech/vad.ts";
import { conditionForRecognition, writeWav16 } from "../../../speech/wav.ts";
import {
  ms,
  type SpeechInput,
  segmentOf,
  type TranscriptionEngine,
  type TranscriptSegment,
  type TranscriptWord,
} from "./engine.ts";

/** Silence between spliced speech spans: long enough for pocketsphinx to end an utterance there. */
const GAP_SECONDS = 0.5;

/**
 * CMU pocketsphinx (the Debian 5prealpha CLI) with its US English acoustic and trigram models. The speech
 * spans are spliced into one file (one process, the models loaded once); word times come back through the
 * splice map. A segment is a span's words, split again where pocketsphinx itself ended an utterance.
 */
export class PocketsphinxEngine implements TranscriptionEngine {
  readonly name = "pocketsphinx";
  private readonly setup: PocketsphinxSetup;

  constructor(setup: PocketsphinxSetup) {
    this.setup = setup;
  }

  async transcribe(
    input: SpeechInput,
    options: { workDir: string },
    signal: AbortSignal,
  ): Promise<TranscriptSegment[]> {
    const spliced = new SplicedAudio(input.samples, SPEECH_SAMPLE_RATE, input.spans, GAP_SECONDS);
    if (spliced.samples.length === 0) return [];
    const wav = path.join(options.workDir, "speech.wav");
    await writeWav16(wav, conditionForRecognition(spliced.samples), SPEECH_SAMPLE_RATE);
    const tokens = await runPocketsphinx(this.setup, wav, ["-lm", this.setup.lm, "-dict", this.setup.dict], signal);

    const segments: TranscriptSegment[] = [];
    let words: TranscriptWord[] = [];
    let key = "";
    const flush = () => {
      const segment = segmentOf(words);
      if (segment) segments.push(segment);
      words = [];
    };
    for (const token of tokens) {
      if (isFiller(token.token)) continue;
      const part = spliced.partAt((token.start + token.end) / 2);
      if (`${part}:${token.utterance}` !== key) flush();
      key = `${part}:${token.utterance}`;
      const start = ms(spliced.toInput(token.start, part));
      const end = ms(Math.max(start, spliced.toInput(token.end + 0.01, part)));
      words.push({ word: token.token, start, end });
    }
    flush();
    return segments;
  }
}
