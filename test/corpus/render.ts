/**
 * A song to audio: each stem's parts rendered alone by FluidSynth with the FluidR3 GM soundfont (float WAV,
 * so nothing clips or is dithered), cut to the song's length, all stems scaled by one gain so the mixture
 * peaks at -1 dBFS, quantised to 16 bits, and the mixture written as the exact integer sum of the stems.
 */
import { execFile } from "node:child_process";
import fsp from "node:fs/promises";
import path from "node:path";
import { promisify } from "node:util";
import { encodeWav16 } from "../../src/media/wav.ts";
import { midiFile } from "./midi.ts";
import { composeSong, type SongSpec } from "./song.ts";
import { type NoteEvent, type Part, type PartName, STEM_OF, STEMS, type Stem } from "./types.ts";

const execFileAsync = promisify(execFile);

export const SAMPLE_RATE = 44100;
export const SOUNDFONT = "/usr/share/sounds/sf2/FluidR3_GM.sf2";
const PEAK = 10 ** (-1 / 20);

/** Planar float channels of a 32-bit float WAV (FluidSynth's `-O float`). */
export function readFloatWav(bytes: Buffer): Float32Array[] {
  let offset = 12;
  let channels = 0;
  while (offset + 8 <= bytes.length) {
    const id = bytes.toString("ascii", offset, offset + 4);
    const size = bytes.readUInt32LE(offset + 4);
    if (id === "fmt ") {
      channels = bytes.readUInt16LE(offset + 10);
      const bits = bytes.readUInt16LE(offset + 22);
      if (bits !== 32) throw new Error(`expected a float WAV, got ${bits}-bit`);
    } else if (id === "data") {
      const frames = Math.floor(Math.min(size, bytes.length - offset - 8) / (4 * channels));
      const start = bytes.byteOffset + offset + 8;
      const interleaved = new Float32Array(bytes.buffer.slice(start, start + frames * channels * 4));
      const out = Array.from({ length: channels }, () => new Float32Array(frames));
      for (let c = 0; c < channels; c++) {
        const channel = out[c] as Float32Array;
        for (let i = 0, k = c; i < frames; i++, k += channels) channel[i] = interleaved[k] as number;
      }
      return out;
    }
    offset += 8 + size + (size % 2);
  }
  throw new Error("no data chunk in WAV");
}

/**
 * MIDI bytes rendered by FluidSynth as planar float channels (a float WAV, so nothing clips or is dithered), by
 * way of `<scratch>.mid` and `<scratch>.wav`, which are removed after. `settings` are further FluidSynth settings
 * (`name=value`, as `-o` takes them; the corpus uses none).
 */
export async function renderMidi(
  midi: Buffer,
  scratch: string,
  soundfont = SOUNDFONT,
  settings: readonly string[] = [],
): Promise<Float32Array[]> {
  await fsp.writeFile(`${scratch}.mid`, midi);
  await execFileAsync("fluidsynth", [
    "-ni",
    "-q",
    // Loads only the samples the song plays: half the time, and the same audio within 1e-4.
    "-o",
    "synth.dynamic-sample-loading=1",
    ...settings.flatMap((setting) => ["-o", setting]),
    ...["-O", "float", "-T", "wav", "-r", String(SAMPLE_RATE)],
    ...["-F", `${scratch}.wav`, soundfont, `${scratch}.mid`],
  ]);
  const audio = readFloatWav(await fsp.readFile(`${scratch}.wav`));
  await fsp.rm(`${scratch}.mid`);
  await fsp.rm(`${scratch}.wav`);
  return audio;
}

/**
 * A drum kit that its soundfont plays on an ordinary channel, bank 0 program 0, on the GM keys `keys` (the AVL
 * Drumkits, tools/separation-model/training-soundfonts.ts).
 */
export interface DrumKit {
  file: string;
  keys: { first: number; last: number };
}

/** The channel and program that play such a kit. */
export const KIT_VOICE = { channel: 0, program: 0 } as const;

/** Drum parts moved to such a kit (KIT_VOICE), keys below its first raised to it (35 → 36, a kick). */
export function playedByKit(parts: readonly Part[], kit: DrumKit): Part[] {
  return parts.map((part) => ({
    ...part,
    ...KIT_VOICE,
    notes: part.notes.map((note) => ({ ...note, midi: Math.max(kit.keys.first, note.midi) })),
  }));
}

/** A kit that plays the drum parts' notes itself (a sampled Hydrogen kit, in some training songs): stereo out. */
export type DrumPlayer = (notes: NoteEvent[], frames: number) => Promise<Float32Array[]>;

/** What a part goes through after FluidSynth renders it alone (an amplifier, in some training songs): stereo in, stereo out. */
export type PartChain = (audio: Float32Array[]) => Promise<Float32Array[]>;

/**
 * Renders a song into `dir`: drums/bass/vocals/other.wav, mixture.wav, song.mid and truth.json. The corpus uses
 * FluidR3; the separation model trains on other soundfonts (tools/separation-model), and on some songs has the
 * drums played by a kit sampled from acoustic drums (`drumKit`: a soundfont's, or a player of its own), the stems rendered with further FluidSynth
 * `settings` (a louder chorus, say) or some parts rendered alone and put through a chain (`chains`: guitars
 * through an amplifier). The corpus uses none of these.
 */
export async function renderSong(
  spec: SongSpec,
  dir: string,
  soundfont = SOUNDFONT,
  drumKit?: DrumKit | DrumPlayer,
  settings: readonly string[] = [],
  chains: Partial<Record<PartName, PartChain>> = {},
): Promise<void> {
  const { parts, truth } = composeSong(spec);
  await fsp.mkdir(dir, { recursive: true });
  await fsp.writeFile(path.join(dir, "song.mid"), midiFile(parts));
  const frames = Math.round(truth.duration * SAMPLE_RATE);
  const stems = new Map<Stem, Float32Array[]>();
  const drumPlayer = typeof drumKit === "function" ? drumKit : undefined;
  const soundfontKit = typeof drumKit === "function" ? undefined : drumKit;
  for (const stem of STEMS) {
    const stemParts = parts.filter((p) => STEM_OF[p.name] === stem);
    if (stem === "drums" && drumPlayer) {
      stems.set(
        stem,
        await drumPlayer(
          stemParts.flatMap((p) => p.notes),
          frames,
        ),
      );
      continue;
    }
    const kit = stem === "drums" ? soundfontKit : undefined;
    const own = kit ? playedByKit(stemParts, kit) : stemParts;
    const audio = [new Float32Array(frames), new Float32Array(frames)];
    const add = (rendered: Float32Array[]) =>
      rendered.forEach((channel, c) => {
        const into = audio[c] as Float32Array;
        const end = Math.min(frames, channel.length);
        for (let i = 0; i < end; i++) into[i] = (into[i] as number) + (channel[i] as number);
      });
    const font = kit?.file ?? soundfont;
    const plain = own.filter((p) => chains[p.name] === undefined);
    if (plain.length > 0) add(await renderMidi(midiFile(plain), path.join(dir, `${stem}.f32`), font, settings));
    for (const part of own.filter((p) => chains[p.name] !== undefined)) {
      const alone = await renderMidi(midiFile([part]), path.join(dir, `${part.name}.f32`), font, settings);
      add(await (chains[part.name] as PartChain)(alone));
    }
    stems.set(stem, audio);
  }
  let peak = 0;
  for (let c = 0; c < 2; c++) {
    const sum = new Float32Array(frames);
    for (const audio of stems.values()) {
      const channel = audio[c] as Float32Array;
      for (let i = 0; i < frames; i++) sum[i] = (sum[i] as number) + (channel[i] as number);
    }
    for (let i = 0; i < frames; i++) peak = Math.max(peak, Math.abs(sum[i] as number));
  }
  // Stems to 16-bit steps (as floats k/32768, which the WAV writer maps back exactly), then summed exactly.
  const gain = PEAK / peak;
  const mixture = [new Float32Array(frames), new Float32Array(frames)];
  for (const [stem, audio] of stems) {
    for (let c = 0; c < 2; c++) {
      const channel = audio[c] as Float32Array;
      const sum = mixture[c] as Float32Array;
      for (let i = 0; i < frames; i++) {
        const step = Math.max(-32768, Math.min(32767, Math.round((channel[i] as number) * gain * 32768)));
        channel[i] = step / 32768;
        sum[i] = (sum[i] as number) + step / 32768;
      }
    }
    await fsp.writeFile(path.join(dir, `${stem}.wav`), encodeWav16(audio, SAMPLE_RATE));
  }
  await fsp.writeFile(path.join(dir, "mixture.wav"), encodeWav16(mixture, SAMPLE_RATE));
  await fsp.writeFile(path.join(dir, "truth.json"), JSON.stringify(truth));
}
