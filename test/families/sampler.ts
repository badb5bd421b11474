/**
 * A plain one-sample-per-instrument sampler for LMMS's sample library (Debian lmms-common,
 * /usr/share/lmms/samples): each note replays the instrument's recording resampled to the note's pitch (its own
 * pitch found once by f0.ts), with the velocity as gain. A struck or plucked instrument lets its recording
 * decay and is damped 60 ms after the note ends; a sustained one (strings, organ, pads, winds) loops its
 * recording's middle, crossfaded, for as long as the note is held, then releases. This is how the simplest
 * hardware and software samplers play a library, and a sound the separation network never heard.
 */
import type { NoteEvent } from "../corpus/types.ts";
import { addInto, SAMPLE_RATE, type Stereo, sampleFile, silence } from "./audio.ts";
import { medianF0, midiOf } from "./f0.ts";

export const LMMS_SAMPLES = "/usr/share/lmms/samples";

export interface SampledInstrument {
  /** Path under LMMS_SAMPLES. */
  sample: string;
  /** Loop the middle of the recording while the note is held. */
  sustain: boolean;
  /** Release after the note ends, seconds. */
  release: number;
  gain: number;
}

interface Prepared {
  audio: Stereo;
  /** The recording's pitch as a MIDI number (fractional). */
  root: number;
  /** Where the recording starts sounding (its first sample above −40 dB of its peak). */
  onset: number;
}

const prepared = new Map<string, Promise<Prepared>>();

async function prepare(sample: string): Promise<Prepared> {
  const audio = await sampleFile(`${LMMS_SAMPLES}/${sample}`);
  const mono = audio[0].map((v, i) => (v + (audio[1][i] as number)) / 2);
  const f0 = medianF0(mono.subarray(Math.round(0.05 * SAMPLE_RATE), Math.round(1.5 * SAMPLE_RATE)), SAMPLE_RATE);
  if (f0 === 0) throw new Error(`${sample}: no pitch found`);
  let peak = 0;
  for (const v of mono) peak = Math.max(peak, Math.abs(v));
  const onset = Math.max(
    0,
    mono.findIndex((v) => Math.abs(v) > 0.01 * peak),
  );
  return { audio, root: midiOf(f0), onset };
}

const prepare1 = (sample: string): Promise<Prepared> => {
  let pending = prepared.get(sample);
  if (!pending) {
    pending = prepare(sample);
    prepared.set(sample, pending);
  }
  return pending;
};

const LOOP_FADE = Math.round(0.04 * SAMPLE_RATE);

/** One note: the recording read at `rate` (linear interpolation), looped while held when it sustains. */
function voice(p: Prepared, instrument: SampledInstrument, rate: number, heldFrames: number): Stereo {
  const releaseFrames = Math.round(instrument.release * SAMPLE_RATE);
  const length = heldFrames + releaseFrames;
  const out = silence(length);
  const source = p.audio[0].length - p.onset;
  const loopStart = p.onset + Math.floor(0.35 * source);
  const loopEnd = p.onset + Math.floor(0.85 * source);
  const loopLength = loopEnd - loopStart;
  const canLoop = instrument.sustain && loopLength > 4 * LOOP_FADE;
  for (let c = 0; c < 2; c++) {
    const x = p.audio[c] as Float32Array;
    const y = out[c] as Float32Array;
    const read = (pos: number): number => {
      const i = Math.floor(pos);
      const f = pos - i;
      return i + 1 < x.length ? (x[i] as number) * (1 - f) + (x[i + 1] as number) * f : 0;
    };
    for (let n = 0; n < length; n++) {
      let pos = p.onset + n * rate;
      let value: number;
      if (canLoop && pos >= loopEnd) {
        // Past the loop's end: wrap, crossfading the wrapped read with the continuing one over LOOP_FADE.
        const wrapped = loopStart + ((pos - loopStart) % loopLength);
        pos = wrapped;
        const intoLoop = wrapped - loopStart;
        value =
          intoLoop < LOOP_FADE
            ? read(wrapped) * (intoLoop / LOOP_FADE) + read(wrapped + loopLength) * (1 - intoLoop / LOOP_FADE)
            : read(wrapped);
      } else value = read(pos);
      const release = n < heldFrames ? 1 : 1 - (n - heldFrames) / releaseFrames;
      y[n] = value * release;
    }
  }
  return out;
}

/** The notes played by the instrument into `length` frames, panned by constant power (`gains`). */
export async function playSampled(
  instrument: SampledInstrument,
  notes: readonly NoteEvent[],
  length: number,
  gains: [number, number],
): Promise<Stereo> {
  const p = await prepare1(instrument.sample);
  const out = silence(length);
  for (const note of notes) {
    const rate = 2 ** ((note.midi - p.root) / 12);
    const held = Math.round(note.duration * SAMPLE_RATE);
    const gain = instrument.gain * note.velocity ** 1.5;
    addInto(
      out,
      voice(p, instrument, rate, held),
      Math.round(note.time * SAMPLE_RATE),
      gain * gains[0],
      gain * gains[1],
    );
  }
  return out;
}
