import path from "node:path";
import { suppressNoise } from "../../../speech/denoise.ts";
import { isFiller, type PocketsphinxSetup, runPocketsphinxBatch } from "../../../speech/pocketsphinx.ts";
import { estimateSnrDb } from "../../../speech/snr.ts";
import { SPEECH_SAMPLE_RATE, type TimeSpan } from "../../../speech/vad.ts";
import { conditionForRecognition, writeWav16 } from "../../../speech/wav.ts";
import { ms, type SpeechInput, segmentOf, type TranscriptionEngine, type TranscriptSegment } from "./engine.ts";

/**
 * Longer voiced spans are cut into equal parts: one utterance's search and lattice grow with its length, and
 * pocketsphinx's language model knows sentences, not minutes. (A cut may fall inside a word.)
 */
const MAX_UTTERANCE_SECONDS = 25;

/** Spans no longer than MAX_UTTERANCE_SECONDS. */
export function utterancesOf(spans: TimeSpan[]): TimeSpan[] {
  return spans.flatMap((span) => {
    const parts = Math.ceil((span.end - span.start) / MAX_UTTERANCE_SECONDS);
    const length = (span.end - span.start) / parts;
    return Array.from({ length: parts }, (_, i) => ({
      start: span.start + i * length,
      end: i === parts - 1 ? span.end : span.start + (i + 1) * length,
    }));
  });
}

/**
 * Below this SNR (estimated from the VAD's spans), the decoder scores more Gaussians per frame (`-topn 8`, the
 * model's default is 4) and drops its phone lookahead (`-pl_window 0`, default 5), which prunes words whose
 * first phones the noise blurred. On the development voices of `test/speech/corpus.ts`: pink noise at +10 and
 * +5 dB WER 0.628 → 0.607, the music bed at +10 dB 0.49 → 0.44; clean and +20 dB input (estimated at 98 and 19
 * dB) keep the model's defaults.
 */
export const NOISY_SNR_DB = 15;
const NOISY_ARGS = ["-topn", "8", "-pl_window", "0"];

/**
 * CMU pocketsphinx (the Debian 5prealpha programs) with its US English acoustic and trigram models. Each voiced
 * span found by the VAD is decoded as an utterance of its own (pocketsphinx_batch, one process, the models
 * loaded once, each utterance with its own cepstral mean), after stationary noise suppression; a segment is an
 * utterance's words. Against one spliced file decoded by pocketsphinx_continuous with its own energy VAD, on
 * `test/speech/corpus.ts`: pink noise at +10 dB SNR WER 0.70 → 0.49 on the development voices (0.73 → 0.60
 * held out), clean 0.39 → 0.38 (0.23 → 0.20). The decoder's language weight, beams, frequency warping and
 * a high-pass filter were tried on the development voices and left at their defaults (docs/decisions.md);
 * noisy input (NOISY_SNR_DB) gets NOISY_ARGS.
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
    const utterances = utterancesOf(input.spans);
    if (utterances.length === 0) return [];
    const wav = path.join(options.workDir, "speech.wav");
    const cleaned = conditionForRecognition(suppressNoise(input.samples, SPEECH_SAMPLE_RATE));
    await writeWav16(wav, cleaned, SPEECH_SAMPLE_RATE);
    const args = ["-lm", this.setup.lm, "-dict", this.setup.dict];
    if (estimateSnrDb(input.samples, input.spans, SPEECH_SAMPLE_RATE) < NOISY_SNR_DB) args.push(...NOISY_ARGS);
    const tokens = await runPocketsphinxBatch(this.setup, wav, utterances, args, options.workDir, signal);
    return utterances.flatMap((_, u) => {
      const words = tokens
        .filter((t) => t.utterance === u && !isFiller(t.token))
        .map((t) => ({ word: t.token, start: ms(t.start), end: ms(Math.max(t.start, t.end)) }));
      const segment = segmentOf(words);
      return segment ? [segment] : [];
    });
  }
}
