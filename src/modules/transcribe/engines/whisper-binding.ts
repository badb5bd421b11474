import { createRequire } from "node:module";
import type * as WhisperBinding from "@napi-rs/whisper";

const require = createRequire(import.meta.url);

/** Loaded on first use only: a 26 MB native addon that only the whisper process needs. */
export const loadWhisperBinding = (): typeof WhisperBinding => require("@napi-rs/whisper") as typeof WhisperBinding;

/** Whether the binding package is installed; cheap, loads nothing. */
export function whisperInstalled(): boolean {
  try {
    require.resolve("@napi-rs/whisper");
    return true;
  } catch {
    return false;
  }
}
