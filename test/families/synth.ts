/**
 * Subtractive synthesis written here (no sample set): band-limited saw and square oscillators (polyBLEP),
 * a resonant state-variable lowpass with its own envelope, ADSR amplitude: a synth bass, a detuned-saw pad and
 * a square/saw lead with delayed vibrato. And an analogue-style drum machine after the TR-808: a kick that is a
 * sine swept down to ~50 Hz with a long decay, noise snares and claps, hi-hats and cymbals of highpassed noise,
 * swept-sine toms. Deterministic given the seed.
 */
import type { NoteEvent } from "../corpus/types.ts";
import { addInto, Rng, SAMPLE_RATE, type Stereo, silence } from "./audio.ts";
import { type DrumElement, elementOf } from "./hydrogen-kit.ts";

export interface SynthPatch {
  /** Oscillators: waveform and detune in cents; each is panned by `spread` (alternating sides). */
  oscillators: { wave: "saw" | "square"; cents: number }[];
  spread: number;
  /** Lowpass cutoff (Hz) at rest and its envelope's peak over it, with the envelope's decay (s) and resonance. */
  cutoff: number;
  envelopeHz: number;
  envelopeDecay: number;
  resonance: number;
  attack: number;
  decay: number;
  sustain: number;
  release: number;
  /** Vibrato depth in cents, starting after 0.25 s; 0 for none. */
  vibrato: number;
  gain: number;
}

export const SYNTH_BASS: SynthPatch = {
  oscillators: [
    { wave: "saw", cents: 0 },
    { wave: "square", cents: -5 },
  ],
  spread: 0,
  cutoff: 260,
  envelopeHz: 1400,
  envelopeDecay: 0.18,
  resonance: 0.35,
  attack: 0.004,
  decay: 0.3,
  sustain: 0.7,
  release: 0.06,
  vibrato: 0,
  gain: 0.5,
};

export const SYNTH_PAD: SynthPatch = {
  oscillators: [
    { wave: "saw", cents: -9 },
    { wave: "saw", cents: 0 },
    { wave: "saw", cents: 8 },
    { wave: "saw", cents: 13 },
  ],
  spread: 0.8,
  cutoff: 1500,
  envelopeHz: 500,
  envelopeDecay: 1.2,
  resonance: 0.1,
  attack: 0.35,
  decay: 0.8,
  sustain: 0.8,
  release: 0.6,
  vibrato: 0,
  gain: 0.18,
};

export const SYNTH_LEAD: SynthPatch = {
  oscillators: [
    { wave: "square", cents: 0 },
    { wave: "saw", cents: 6 },
  ],
  spread: 0.2,
  cutoff: 2400,
  envelopeHz: 2500,
  envelopeDecay: 0.25,
  resonance: 0.25,
  attack: 0.01,
  decay: 0.2,
  sustain: 0.75,
  release: 0.12,
  vibrato: 18,
  gain: 0.3,
};

/** polyBLEP correction of a unit step at phase t (0..1) for an increment dt. */
function blep(t: number, dt: number): number {
  if (t < dt) {
    const x = t / dt;
    return x + x - x * x - 1;
  }
  if (t > 1 - dt) {
    const x = (t - 1) / dt;
    return x * x + x + x + 1;
  }
  return 0;
}

function synthNote(patch: SynthPatch, note: NoteEvent, rng: Rng): Stereo {
  const held = Math.round(note.duration * SAMPLE_RATE);
  const length = held + Math.round(patch.release * SAMPLE_RATE);
  const out = silence(length);
  const hz = 440 * 2 ** ((note.midi - 69) / 12);
  patch.oscillators.forEach((osc, k) => {
    const side = patch.spread * (k % 2 === 0 ? -1 : 1) * (patch.oscillators.length > 1 ? 1 : 0);
    const left = Math.cos(((side + 1) * Math.PI) / 4) * Math.SQRT2;
    const right = Math.sin(((side + 1) * Math.PI) / 4) * Math.SQRT2;
    let phase = rng.next();
    // State-variable filter state (Chamberlin), per oscillator so the stereo spread survives.
    let low = 0;
    let band = 0;
    for (let n = 0; n < length; n++) {
      const t = n / SAMPLE_RATE;
      const vibrato = patch.vibrato && t > 0.25 ? patch.vibrato * Math.sin(2 * Math.PI * 5.5 * t) : 0;
      const dt = (hz * 2 ** ((osc.cents + vibrato) / 1200)) / SAMPLE_RATE;
      phase += dt;
      if (phase >= 1) phase -= 1;
      let v = 2 * phase - 1 - blep(phase, dt);
      if (osc.wave === "square") {
        const shifted = (phase + 0.5) % 1;
        v = (phase < 0.5 ? 1 : -1) + blep(phase, dt) - blep(shifted, dt);
      }
      const cutoff = Math.min(
        0.45 * SAMPLE_RATE,
        patch.cutoff + patch.envelopeHz * note.velocity * Math.exp(-t / patch.envelopeDecay),
      );
      const f = 2 * Math.sin((Math.PI * cutoff) / (2 * SAMPLE_RATE));
      const q = 1 - patch.resonance;
      low += f * band;
      const high = v - low - q * band;
      band += f * high;
      const amp =
        n < held
          ? Math.min(1, t / patch.attack) *
            (patch.sustain + (1 - patch.sustain) * Math.exp(-Math.max(0, t - patch.attack) / patch.decay))
          : Math.max(0, 1 - (n - held) / (patch.release * SAMPLE_RATE)) *
            (patch.sustain + (1 - patch.sustain) * Math.exp(-note.duration / patch.decay));
      const s = low * amp * patch.gain * note.velocity;
      out[0][n] = (out[0][n] as number) + s * left;
      out[1][n] = (out[1][n] as number) + s * right;
    }
  });
  return out;
}

/** The notes played by the patch into `length` frames. */
export function playSynth(
  patch: SynthPatch,
  notes: readonly NoteEvent[],
  length: number,
  gains: [number, number],
  seed: number,
): Stereo {
  const rng = new Rng(seed);
  const out = silence(length);
  for (const note of notes)
    addInto(out, synthNote(patch, note, rng), Math.round(note.time * SAMPLE_RATE), gains[0], gains[1]);
  return out;
}

/** One hit of the drum machine, mono. */
function machineHit(element: DrumElement, velocity: number, rng: Rng): Float32Array {
  const seconds =
    { kick: 0.9, crash: 1.6, ride: 1.2, "ride bell": 1.0, "open hi-hat": 0.45 }[element as string] ?? 0.35;
  const length = Math.round(seconds * SAMPLE_RATE);
  const out = new Float32Array(length);
  const sweep = (from: number, to: number, tau: number, decay: number, gain: number) => {
    let phase = 0;
    for (let n = 0; n < length; n++) {
      const t = n / SAMPLE_RATE;
      phase += (to + (from - to) * Math.exp(-t / tau)) / SAMPLE_RATE;
      out[n] = (out[n] as number) + gain * Math.sin(2 * Math.PI * phase) * Math.exp(-t / decay);
    }
  };
  /** Noise through a one-pole highpass (`hp` 0..1) with an exponential decay. */
  const noise = (decay: number, gain: number, hp: number) => {
    let last = 0;
    let held = 0;
    for (let n = 0; n < length; n++) {
      const white = rng.uniform(-1, 1);
      held = hp * (held + white - last);
      last = white;
      out[n] = (out[n] as number) + gain * held * Math.exp(-n / SAMPLE_RATE / decay);
    }
  };
  switch (element) {
    case "kick":
      sweep(130, 48, 0.04, 0.45, 1);
      break;
    case "snare":
    case "side stick":
      sweep(190, 170, 0.02, 0.06, 0.5);
      noise(element === "snare" ? 0.09 : 0.02, 0.6, 0.7);
      break;
    case "clap":
      for (const delay of [0, 0.011, 0.022]) {
        const at = Math.round(delay * SAMPLE_RATE);
        for (let n = at; n < Math.min(length, at + 0.1 * SAMPLE_RATE); n++)
          out[n] = (out[n] as number) + 0.4 * rng.uniform(-1, 1) * Math.exp(-(n - at) / SAMPLE_RATE / 0.03);
      }
      break;
    case "closed hi-hat":
    case "pedal hi-hat":
    case "tambourine":
      noise(0.035, 0.5, 0.97);
      break;
    case "open hi-hat":
      noise(0.18, 0.45, 0.97);
      break;
    case "crash":
    case "ride":
    case "ride bell":
      noise(element === "crash" ? 0.6 : 0.35, 0.35, 0.95);
      if (element !== "crash") sweep(800, 800, 1, 0.4, 0.08);
      break;
    case "high tom":
    case "mid tom":
    case "floor tom": {
      const base = { "high tom": 200, "mid tom": 150, "floor tom": 105 }[element];
      sweep(base * 1.5, base, 0.05, 0.25, 0.8);
      break;
    }
    case "cowbell":
      sweep(540, 540, 1, 0.08, 0.3);
      sweep(800, 800, 1, 0.08, 0.3);
      break;
  }
  for (let n = 0; n < length; n++) out[n] = (out[n] as number) * velocity;
  return out;
}

/** GM drum hits on the drum machine into `length` frames (kick and snare centred, hats and cymbals a little off). */
export function playDrumMachine(hits: readonly NoteEvent[], length: number, seed: number): Stereo {
  const rng = new Rng(seed);
  const out = silence(length);
  for (const hit of hits) {
    const element = elementOf(hit.midi);
    const side = /hat|crash|ride|tambourine/.test(element) ? 0.3 : /tom/.test(element) ? -0.2 : 0;
    addInto(
      out,
      machineHit(element, hit.velocity, rng),
      Math.round(hit.time * SAMPLE_RATE),
      0.7 * (1 - side),
      0.7 * (1 + side),
    );
  }
  return out;
}
