import fsp from "node:fs/promises";
import path from "node:path";
import { progressSpan } from "../../engine/progress.ts";
import type { Module } from "../../engine/types.ts";
import { JobFailure } from "../../jobs/job-failure.ts";
import { decodeAudio } from "../../media/pcm.ts";
import { modelUnavailable } from "./files.ts";
import { encodeMidi } from "./midi-file.ts";

/** basic-pitch's own sample rate (its constants.py); the model only understands 22050 Hz mono. */
const MODEL_SAMPLE_RATE = 22050;
/** The model's 88 pitches, A0 to C8, in Hz. */
const PIANO_RANGE = { type: "number", minimum: 27.5, maximum: 4200 };

export const audioToMidiModule: Module = {
  name: "audio-to-midi",
  description:
    "Polyphonic notes (pitch, start, end, velocity) of an instrument or voice recording, by Spotify's basic-pitch model, as a JSON list and a Standard MIDI File.",
  params: {
    type: "object",
    additionalProperties: false,
    properties: {
      onsetThreshold: {
        type: "number",
        minimum: 0.05,
        maximum: 0.95,
        default: 0.6,
        description: "How sure the model must be that a note starts (lower finds more notes)",
      },
      frameThreshold: {
        type: "number",
        minimum: 0.05,
        maximum: 0.95,
        default: 0.3,
        description: "How sure the model must be that a note still sounds (lower makes notes longer)",
      },
      minNoteLengthMs: {
        type: "number",
        minimum: 0,
        maximum: 2000,
        default: 58,
        description: "Shorter notes are dropped, milliseconds",
      },
      minFrequency: { ...PIANO_RANGE, description: "Lowest note kept, Hz (default: A0, the model's lowest)" },
      maxFrequency: { ...PIANO_RANGE, description: "Highest note kept, Hz (default: C8, the model's highest)" },
    },
  },
  inputs: { audio: { type: "audio", description: "Recording to transcribe" } },
  outputs: {
    midi: { type: "midi", description: "Standard MIDI File of the notes, one track, 1 tick = 1 ms" },
    notes: {
      type: "json",
      description: '[{"pitch": MIDI note number, "start": s, "end": s, "velocity": 1..127}] by start time',
    },
  },
  heavy: true,
  availability: () => modelUnavailable(),
  async run(ctx) {
    const p = ctx.params as {
      onsetThreshold: number;
      frameThreshold: number;
      minNoteLengthMs: number;
      minFrequency?: number;
      maxFrequency?: number;
    };
    if (p.minFrequency !== undefined && p.maxFrequency !== undefined && p.minFrequency >= p.maxFrequency) {
      throw new JobFailure("BAD_INPUT", "minFrequency must be lower than maxFrequency");
    }
    const decoding = progressSpan(ctx.reportProgress, 0, 0.1);
    const mono = { sampleRate: MODEL_SAMPLE_RATE, channels: 1, onProgress: decoding };
    const pcm = await decodeAudio(String(ctx.inputs.audio), mono, ctx.signal);
    // Imported here, not at the top: the registry imports this file on the API thread, which must not load tfjs.
    const { transcribe } = await import("./transcribe.ts");
    ctx.reportProgress?.(0.1);
    const windows = progressSpan(ctx.reportProgress, 0.1, 0.95);
    const notes = await transcribe(pcm.channels[0] as Float32Array, p, ctx.signal, windows);
    const notesFile = path.join(ctx.outputDir, "notes.json");
    const midiFile = path.join(ctx.outputDir, "notes.mid");
    await fsp.writeFile(notesFile, JSON.stringify(notes));
    await fsp.writeFile(midiFile, encodeMidi(notes));
    return { midi: midiFile, notes: notesFile };
  },
};
