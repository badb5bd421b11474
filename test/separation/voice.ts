import { execFile } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { decodeFloat } from "../helpers/media.ts";
import { type Stereo, stereo } from "./signals.ts";

const execFileAsync = promisify(execFile);

const LINES = [
  "The quiet river runs beneath the silver moon, and every evening we sing along the shore.",
  "Hold the light, hold the song, carry it home tonight, we were young and the summer was long.",
];

/**
 * A lead voice, centred: espeak-ng speaking two lines (resampled to `sampleRate` by sox), the first from 1 s,
 * the second from `seconds` / 2, with silence around them as between sung phrases. `voice` is an espeak-ng voice
 * and variant (`espeak-ng --voices`, `--voices=variant`).
 */
export async function espeakVoice(seconds: number, sampleRate: number, gain: number, voice = "en-us"): Promise<Stereo> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "mixdown-voice-"));
  try {
    const out = stereo(Math.round(seconds * sampleRate));
    for (const [i, line] of LINES.entries()) {
      const raw = path.join(dir, `line${i}.wav`);
      const resampled = path.join(dir, `line${i}-${sampleRate}.wav`);
      await execFileAsync("espeak-ng", ["-v", voice, "-s", "140", "-w", raw, line]);
      await execFileAsync("sox", [raw, "-r", String(sampleRate), resampled]);
      const [samples] = await decodeFloat(resampled, 1);
      const start = Math.round((i === 0 ? 1 : seconds / 2) * sampleRate);
      for (let n = 0; n < (samples?.length ?? 0) && start + n < out[0].length; n++) {
        const value = (samples?.[n] as number) * gain;
        out[0][start + n] = value;
        out[1][start + n] = value;
      }
    }
    return out;
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}
