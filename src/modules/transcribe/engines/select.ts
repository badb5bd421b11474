import fs from "node:fs";
import path from "node:path";
import { locatePocketsphinx } from "../../../speech/pocketsphinx.ts";
import type { TranscriptionEngine } from "./engine.ts";
import { PocketsphinxEngine } from "./pocketsphinx.ts";
import { WhisperEngine } from "./whisper.ts";
import { whisperInstalled } from "./whisper-binding.ts";

export const ENGINES = ["auto", "whisper", "pocketsphinx"] as const;
export type EngineChoice = (typeof ENGINES)[number];
export const DEFAULT_WHISPER_MODEL = "ggml-base.en.bin";

export interface EngineParams {
  engine?: unknown;
  model?: unknown;
  language?: unknown;
}

const ENGLISH = new Set(["en", "auto"]);

function whisperOrReason(model: string, modelsDir: string): TranscriptionEngine | string {
  if (!whisperInstalled()) return "the @napi-rs/whisper package is not installed";
  const file = path.join(modelsDir, model);
  if (!fs.statSync(file, { throwIfNoEntry: false })?.isFile())
    return `whisper model "${model}" not found in the models directory (MIXDOWN_MODELS_DIR)`;
  return new WhisperEngine(file);
}

function pocketsphinxOrReason(language: string): TranscriptionEngine | string {
  if (!ENGLISH.has(language)) return `pocketsphinx recognises English only (language "${language}" was asked for)`;
  const setup = locatePocketsphinx();
  return typeof setup === "string" ? setup : new PocketsphinxEngine(setup);
}

/**
 * The engine these params get here, or why none can run: "whisper" needs its model file, "pocketsphinx" its
 * program and English models, and "auto" takes whisper when its model is there, else pocketsphinx.
 */
export function chooseEngine(params: EngineParams, modelsDir: string): TranscriptionEngine | string {
  const choice = typeof params.engine === "string" ? params.engine : "auto";
  const model = typeof params.model === "string" ? params.model : DEFAULT_WHISPER_MODEL;
  const language = typeof params.language === "string" ? params.language : "en";
  if (choice === "whisper") return whisperOrReason(model, modelsDir);
  if (choice === "pocketsphinx") return pocketsphinxOrReason(language);
  const whisper = whisperOrReason(model, modelsDir);
  if (typeof whisper !== "string") return whisper;
  const pocketsphinx = pocketsphinxOrReason(language);
  if (typeof pocketsphinx !== "string") return pocketsphinx;
  return `no speech recogniser can run: ${whisper}, and ${pocketsphinx}`;
}
