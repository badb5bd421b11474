/**
 * Each GM drum element alone, for the separation tests (issue 18: cymbals, open hi-hats and toms must land in
 * the drum stem): 8 s of hits at 120 BPM (quarters; eighths for the hi-hats and ride) with varied velocities,
 * then 3 s to ring out, in three FluidR3 kits (standard, power, TR-808). Rendered like the corpus (render.ts),
 * cached in the temporary directory under a hash of this file and the renderer.
 */
import { execFile } from "node:child_process";
import { createHash } from "node:crypto";
import fs from "node:fs";
import fsp from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { GM } from "./drums.ts";
import { midiFile } from "./midi.ts";
import { readFloatWav, SAMPLE_RATE, SOUNDFONT } from "./render.ts";
import type { NoteEvent } from "./types.ts";

export const KITS: Record<string, number> = { standard: 0, power: 16, "tr-808": 25 };

export const ELEMENTS: Record<string, number> = {
  kick: GM.kick,
  snare: GM.snare,
  "side stick": GM.sideStick,
  clap: GM.clap,
  "closed hi-hat": GM.closedHat,
  "pedal hi-hat": GM.pedalHat,
  "open hi-hat": GM.openHat,
  crash: GM.crash,
  ride: GM.ride,
  "ride bell": GM.rideBell,
  "high tom": GM.tomHigh,
  "mid tom": GM.tomLowMid,
  "floor tom": GM.tomFloor,
  tambourine: GM.tambourine,
};

const EIGHTHS = new Set<number>([GM.closedHat, GM.pedalHat, GM.ride]);
const HIT_SECONDS = 8;
const RING_SECONDS = 3;

function hits(key: number): NoteEvent[] {
  const step = EIGHTHS.has(key) ? 0.25 : 0.5;
  return Array.from({ length: HIT_SECONDS / step }, (_, i) => ({
    midi: key,
    time: 0.25 + i * step,
    duration: step / 2,
    velocity: [0.95, 0.6, 0.8, 0.7][i % 4] as number,
  }));
}

export interface DrumElementTake {
  kit: string;
  element: string;
  /** Planar stereo at 44.1 kHz, HIT_SECONDS + RING_SECONDS long. */
  channels: Float32Array[];
}

/** Renders MIDI bytes as render.ts does (float WAV, dynamic sample loading) and reads the audio back. */
async function fluidsynthFloat(midi: Buffer, scratch: string): Promise<Float32Array[]> {
  await fsp.writeFile(`${scratch}.mid`, midi);
  await promisify(execFile)("fluidsynth", [
    ...["-ni", "-q", "-o", "synth.dynamic-sample-loading=1", "-O", "float", "-T", "wav"],
    ...["-r", String(SAMPLE_RATE), "-F", `${scratch}.wav`, SOUNDFONT, `${scratch}.mid`],
  ]);
  const audio = readFloatWav(await fsp.readFile(`${scratch}.wav`));
  await fsp.rm(`${scratch}.mid`);
  await fsp.rm(`${scratch}.wav`);
  return audio;
}

function cacheDir(): string {
  const here = path.dirname(new URL(import.meta.url).pathname);
  const hash = createHash("sha256");
  for (const file of ["drum-elements.ts", "render.ts", "midi.ts"]) hash.update(fs.readFileSync(path.join(here, file)));
  hash.update(String(fs.statSync(SOUNDFONT).size));
  return path.join(os.tmpdir(), `mixdown-drum-elements-${hash.digest("hex").slice(0, 12)}`);
}

/** Every element in every kit, rendered (or read from the cache). */
export async function drumElementTakes(): Promise<DrumElementTake[]> {
  const dir = cacheDir();
  const frames = (HIT_SECONDS + RING_SECONDS) * SAMPLE_RATE;
  const takes: DrumElementTake[] = [];
  for (const [kit, program] of Object.entries(KITS))
    for (const [element, key] of Object.entries(ELEMENTS)) {
      const file = path.join(dir, `${kit}-${element.replaceAll(" ", "-")}.f32`);
      if (!fs.existsSync(file)) {
        await fsp.mkdir(dir, { recursive: true });
        const part = { name: "drums" as const, program, channel: 9, volume: 127, pan: 64, notes: hits(key) };
        const audio = await fluidsynthFloat(midiFile([part]), `${file}.tmp-${process.pid}`);
        const stereo = new Float32Array(2 * frames);
        stereo.set((audio[0] as Float32Array).subarray(0, frames));
        stereo.set((audio[1] as Float32Array).subarray(0, frames), frames);
        await fsp.writeFile(`${file}.tmp-${process.pid}`, stereo);
        await fsp.rename(`${file}.tmp-${process.pid}`, file);
      }
      const bytes = await fsp.readFile(file);
      const stereo = new Float32Array(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.length));
      takes.push({ kit, element, channels: [stereo.subarray(0, frames), stereo.subarray(frames)] });
    }
  return takes;
}
