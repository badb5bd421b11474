/**
 * Renders lone drum patterns for the separation model's training: each take 12 s of one to three GM percussion
 * sounds (any key 35–81: toms, cymbals, bells, hand percussion as often as kick and snare) in a random rhythm,
 * tempo and velocity, by the training soundfonts' drum kits and by two kits sampled from acoustic drums (the AVL
 * Drumkits; keys 36–61), never FluidR3, which the tests use; and one to three instruments of each of Hydrogen's
 * training kits (HYDROGEN_TRAINING_KITS: analog and synthesised kits, hand percussion, djembes), any of their
 * instruments. train.py puts them in the drum stem of some
 * examples, alone or under other stems, so a lone tom, ride bell or open hi-hat is heard as drums and not as a
 * pitched instrument. Writes 16-bit stereo WAVs peaking at -6 dBFS.
 * Usage: node tools/separation-model/render-drum-hits.ts <out dir> [takes per soundfont, default 60]
 */
import fs from "node:fs";
import fsp from "node:fs/promises";
import path from "node:path";
import { encodeWav16 } from "../../src/media/wav.ts";
import { peakNormalisedStereo } from "../../test/corpus/drum-elements.ts";
import { midiFile } from "../../test/corpus/midi.ts";
import { KIT_VOICE, renderMidi, SAMPLE_RATE } from "../../test/corpus/render.ts";
import type { NoteEvent } from "../../test/corpus/types.ts";
import { type InstrumentHit, playInstruments, readInstruments } from "../../test/families/hydrogen-kit.ts";
import { Rng } from "../../test/music/synth.ts";
import { ACOUSTIC_DRUM_KITS, HYDROGEN_TRAINING_KITS, TRAINING_SOUNDFONTS } from "./training-soundfonts.ts";

const TAKE_SECONDS = 12;
/** GM drum kits (bank 128 programs): standard, room, power, electronic, TR-808, jazz, brush, orchestra. */
const KIT_PROGRAMS = [0, 8, 16, 24, 25, 32, 40, 48];
/** The GM percussion keys of the soundfonts' kits. */
const GM_KEYS = { first: 35, last: 81 };
const PEAK = 10 ** (-6 / 20);

/** One to three sounds (any of `count`), each on its own grid (quarters, eighths, triplets or sixteenths) with a hit probability. */
function pattern(rng: Rng, count: number): { sound: number; time: number; duration: number; velocity: number }[] {
  const beat = 60 / rng.uniform(70, 180);
  const hits = [];
  for (let k = 1 + rng.int(3); k > 0; k--) {
    const sound = rng.int(count);
    const step = beat / rng.pick([1, 2, 3, 4]);
    const density = rng.uniform(0.25, 1);
    for (let time = rng.uniform(0, 0.5); time < TAKE_SECONDS - 1; time += step) {
      if (rng.next() >= density) continue;
      const jitter = rng.uniform(-0.01, 0.01);
      hits.push({ sound, time: Math.max(0, time + jitter), duration: step / 2, velocity: rng.uniform(0.3, 1) });
    }
  }
  return hits.sort((a, b) => a.time - b.time);
}

/** One to three GM percussion keys of `keys`. */
const keyPattern = (rng: Rng, keys: { first: number; last: number }): NoteEvent[] =>
  pattern(rng, keys.last - keys.first + 1).map(({ sound, ...hit }) => ({ midi: keys.first + sound, ...hit }));

const out = process.argv[2];
if (!out) throw new Error("usage: render-drum-hits.ts <out dir> [takes per soundfont]");
const takes = Number(process.argv[3] ?? 60);
await fsp.mkdir(out, { recursive: true });
const frames = TAKE_SECONDS * SAMPLE_RATE;
const takePath = (kitName: string, i: number) => path.join(out, `${kitName}-${String(i).padStart(3, "0")}.wav`);
/** Writes a take peaking at PEAK; a silent one is not written. */
async function writeTake(target: string, audio: Float32Array[]): Promise<void> {
  const { channels, found } = peakNormalisedStereo(audio, frames, PEAK);
  if (found > 0) await fsp.writeFile(target, encodeWav16(channels, SAMPLE_RATE));
}
/** Each kit: its soundfont, the channel and program that play it, the keys it has. */
const kits = [
  ...TRAINING_SOUNDFONTS.map((font) => ({ ...font, channel: 9, programs: KIT_PROGRAMS, keys: GM_KEYS })),
  ...ACOUSTIC_DRUM_KITS.map((kit) => ({ ...kit, channel: KIT_VOICE.channel, programs: [KIT_VOICE.program] })),
];
for (const kit of kits) {
  const rng = new Rng(kit.seed + 1000);
  for (let i = 0; i < takes; i++) {
    const program = rng.pick(kit.programs);
    const notes = keyPattern(rng, kit.keys);
    const target = takePath(kit.name, i);
    if (fs.existsSync(target) || notes.length === 0) continue;
    const part = { name: "drums" as const, program, channel: kit.channel, volume: 127, pan: 40 + rng.int(49), notes };
    await writeTake(target, await renderMidi(midiFile([part]), `${target}.scratch`, kit.file));
  }
  console.log(`${kit.name}: ${takes} takes`);
}
for (const kit of HYDROGEN_TRAINING_KITS) {
  const rng = new Rng(kit.seed + 1000);
  const instruments = readInstruments(kit.dir);
  for (let i = 0; i < takes; i++) {
    const hits: InstrumentHit[] = pattern(rng, instruments.length).map(({ sound, time, velocity }) => ({
      instrument: instruments[sound] as (typeof instruments)[number],
      time,
      velocity,
    }));
    const target = takePath(kit.name, i);
    if (fs.existsSync(target) || hits.length === 0) continue;
    await writeTake(target, await playInstruments(hits, frames));
  }
  console.log(`${kit.name}: ${takes} takes`);
}
