/**
 * One pitched part of a corpus song rendered alone — the same notes, GM program, channel volume and pan as in
 * the song's MIDI, by FluidSynth as render.ts renders the stems — for the MIDI transcription tests (issue 18
 * part 5: piano, guitar and lead parts alone and in mixture). The true stems group the comping, pad and lead
 * into "other", so these are rendered here, afresh each run (half a second of CPU a part), peak-normalised to
 * -1 dBFS and written as a 16-bit stereo WAV.
 */
import fsp from "node:fs/promises";
import path from "node:path";
import { encodeWav16 } from "../../src/media/wav.ts";
import { peakNormalisedStereo } from "./drum-elements.ts";
import { midiFile } from "./midi.ts";
import { renderMidi, SAMPLE_RATE } from "./render.ts";
import { composeSong, type SongSpec } from "./song.ts";
import type { NoteEvent, PartName } from "./types.ts";

const PEAK = 10 ** (-1 / 20);

/** The comping instrument's family, from its GM program (song.ts' PROGRAMS). */
export type CompFamily = "piano" | "guitar" | "organ";
export const compFamily = (program: number): CompFamily =>
  program >= 24 && program < 32 ? "guitar" : program >= 16 && program < 24 ? "organ" : "piano";

export interface SoloPart {
  name: PartName;
  program: number;
  /** The notes as written to MIDI, in seconds. */
  notes: NoteEvent[];
  /** 16-bit stereo WAV at 44.1 kHz, as long as the song. */
  file: string;
}

/** Renders `name` of the song alone into `dir`; undefined when the song has no such part. */
export async function renderSoloPart(spec: SongSpec, name: PartName, dir: string): Promise<SoloPart | undefined> {
  const { parts, truth } = composeSong(spec);
  const part = parts.find((p) => p.name === name);
  if (!part) return undefined;
  const file = path.join(dir, `${spec.id}-${name}.wav`);
  const raw = await renderMidi(midiFile([part]), path.join(dir, `${spec.id}-${name}-raw`));
  const frames = Math.round(truth.duration * SAMPLE_RATE);
  const { channels } = peakNormalisedStereo(raw, frames, PEAK);
  await fsp.writeFile(file, encodeWav16(channels, SAMPLE_RATE));
  return { name, program: part.program, notes: part.notes, file };
}
