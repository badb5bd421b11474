/**
 * Each GM drum element alone, for the separation tests (issue 18: cymbals, open hi-hats and toms must land in
 * the drum stem): 8 s of hits at 120 BPM (quarters; eighths for the hi-hats and ride) with varied velocities,
 * then 3 s to ring out, in three FluidR3 kits (standard, power, TR-808). Rendered like the corpus (render.ts).
 */
import fsp from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { GM } from "./drums.ts";
import { midiFile } from "./midi.ts";
import { renderMidi, SAMPLE_RATE } from "./render.ts";
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

/**
 * The first `frames` of a render as stereo (a mono render in both channels, a short one padded with silence),
 * scaled so that its peak is `peak`; silence stays silent. `found` is the peak before scaling.
 */
export function peakNormalisedStereo(
  audio: Float32Array[],
  frames: number,
  peak: number,
): { channels: Float32Array[]; found: number } {
  const channels = [0, 1].map((c) => {
    const channel = new Float32Array(frames);
    channel.set((audio[c] ?? audio[0] ?? new Float32Array(0)).subarray(0, frames));
    return channel;
  });
  const found = channels.reduce((p, channel) => channel.reduce((q, v) => Math.max(q, Math.abs(v)), p), 0);
  for (const channel of channels)
    for (let i = 0; i < frames; i++) channel[i] = ((channel[i] as number) * peak) / (found || 1);
  return { channels, found };
}

/** Every element in every kit, rendered afresh (about 4 s of CPU: cheaper than caching 300 MB of audio). */
export async function drumElementTakes(): Promise<DrumElementTake[]> {
  const dir = await fsp.mkdtemp(path.join(os.tmpdir(), "mixdown-drum-elements-"));
  const frames = (HIT_SECONDS + RING_SECONDS) * SAMPLE_RATE;
  const takes: DrumElementTake[] = [];
  try {
    for (const [kit, program] of Object.entries(KITS))
      for (const [element, key] of Object.entries(ELEMENTS)) {
        const part = { name: "drums" as const, program, channel: 9, volume: 127, pan: 64, notes: hits(key) };
        const audio = await renderMidi(midiFile([part]), path.join(dir, "take"));
        const channels = audio.slice(0, 2).map((channel) => {
          const out = new Float32Array(frames);
          out.set(channel.subarray(0, frames));
          return out;
        });
        takes.push({ kit, element, channels });
      }
  } finally {
    await fsp.rm(dir, { recursive: true, force: true });
  }
  return takes;
}
