/**
 * Calibration material for the analysis' confidences (src/dsp/pulse-evidence.ts, tonal-evidence.ts): signals with
 * nothing to find, made here in code or by espeak-ng in languages other than English, never by the generators the
 * tests use (sox, festival, English espeak-ng, FluidSynth; test/analysis/nothing-to-find.test.ts). The music side
 * of the calibration is the generated suite and the corpus' development and tuning splits.
 */
import { Rng, renderNote, wavetable } from "../music/synth.ts";
import { RATE, speak } from "../speech/speech-audio.ts";

/** espeak-ng's rate: every calibration signal is made at it. */
export { RATE };

export interface Material {
  name: string;
  kind: "silence" | "noise" | "drone" | "speech" | "free time";
  /** Whether a key is there to find (a drone on one pitch or a bare fifth has no mode: no). */
  hasKey: boolean;
  signal: Float32Array;
}

const seconds = (s: number) => Math.round(s * RATE);

function white(seed: number, length: number, level: number): Float32Array {
  const rng = new Rng(seed);
  return Float32Array.from({ length: seconds(length) }, () => (rng.next() * 2 - 1) * level);
}

/** Pink by Paul Kellet's filter bank (another recipe than the suite's noise). */
function pink(seed: number, length: number, level: number): Float32Array {
  const rng = new Rng(seed);
  const b = [0, 0, 0, 0, 0, 0, 0];
  return Float32Array.from({ length: seconds(length) }, () => {
    const w = rng.next() * 2 - 1;
    b[0] = 0.99886 * (b[0] as number) + w * 0.0555179;
    b[1] = 0.99332 * (b[1] as number) + w * 0.0750759;
    b[2] = 0.969 * (b[2] as number) + w * 0.153852;
    b[3] = 0.8665 * (b[3] as number) + w * 0.3104856;
    b[4] = 0.55 * (b[4] as number) + w * 0.5329522;
    b[5] = -0.7616 * (b[5] as number) - w * 0.016898;
    const out = (b[0] as number) + (b[1] as number) + (b[2] as number) + (b[3] as number) + (b[4] as number);
    const value = (out + (b[5] as number) + (b[6] as number) + w * 0.5362) * 0.11 * level;
    b[6] = w * 0.115926;
    return value;
  });
}

function brown(seed: number, length: number, level: number): Float32Array {
  const rng = new Rng(seed);
  let y = 0;
  return Float32Array.from({ length: seconds(length) }, () => {
    y = 0.998 * y + (rng.next() * 2 - 1) * 0.05;
    return y * level;
  });
}

/** Sustained harmonic tones with a slow vibrato; `tremoloHz` > 0 adds a steady amplitude wobble. */
function drone(frequencies: number[], length: number, tremoloHz = 0, vibratoHz = 5): Float32Array {
  const out = new Float32Array(seconds(length));
  const harmonics = [1, 0.5, 0.33, 0.25, 0.2, 0.16];
  frequencies.forEach((f, j) => {
    harmonics.forEach((amplitude, h) => {
      const hz = (f + j * 0.3) * (h + 1);
      for (let i = 0; i < out.length; i++) {
        const t = i / RATE;
        const wobble = 0.002 * hz * Math.sin(2 * Math.PI * vibratoHz * t);
        out[i] = (out[i] as number) + amplitude * 0.1 * Math.sin(2 * Math.PI * hz * t + wobble + j + h);
      }
    });
  });
  if (tremoloHz > 0)
    for (let i = 0; i < out.length; i++)
      out[i] = (out[i] as number) * (0.6 + 0.4 * Math.sin((2 * Math.PI * tremoloHz * i) / RATE));
  return out;
}

/** Notes of a major scale at random times (0.15–1.6 s apart) and lengths: music, but no pulse. */
function freeTime(seed: number, length: number, harmonics: number[]): Float32Array {
  const rng = new Rng(seed);
  const left = new Float32Array(seconds(length));
  const right = new Float32Array(seconds(length));
  const table = wavetable(harmonics);
  const scale = [0, 2, 4, 5, 7, 9, 11];
  const envelope = { attack: 0.01, decay: 0.4, sustain: 0.3, release: 0.3 };
  for (let t = 0.2; t < length - 1; t += rng.uniform(0.15, 1.6)) {
    const midi = 60 + (scale[rng.int(7)] as number) + 12 * (rng.int(3) - 1);
    const frequency = 440 * 2 ** ((midi - 69) / 12);
    const hold = seconds(rng.uniform(0.1, 1.5));
    renderNote(
      left,
      right,
      { table, frequency, start: seconds(t), hold, envelope, gainLeft: 0.2, gainRight: 0.2, phase: 0 },
      RATE,
    );
  }
  return left;
}

const FABLES: [voice: string, text: string][] = [
  [
    "de",
    "Der Nordwind und die Sonne stritten sich einmal, wer von ihnen beiden wohl der Stärkere wäre, als ein Wanderer, der in einen warmen Mantel gehüllt war, des Weges daherkam. Sie wurden einig, dass derjenige für den Stärkeren gelten sollte, der den Wanderer zwingen würde, seinen Mantel abzunehmen.",
  ],
  [
    "fr",
    "La bise et le soleil se disputaient, chacun assurant qu'il était le plus fort, quand ils ont vu un voyageur qui s'avançait, enveloppé dans son manteau. Ils sont tombés d'accord que celui qui arriverait le premier à faire ôter son manteau au voyageur serait regardé comme le plus fort.",
  ],
  [
    "es",
    "El viento del norte y el sol porfiaban sobre cuál de ellos era el más fuerte, cuando acertó a pasar un viajero envuelto en ancha capa. Convinieron en que quien antes lograra obligar al viajero a quitarse la capa sería considerado más poderoso.",
  ],
];

/** The calibration signals with nothing (or no pulse, or no key) to find. */
export async function calibrationMaterial(): Promise<Material[]> {
  const speech: Material[] = [];
  for (const [voice, text] of FABLES)
    for (const [variant, speed] of [
      ["", 160],
      ["+f3", 125],
    ] as const)
      speech.push({
        name: `espeak-ng ${voice}${variant}`,
        kind: "speech",
        hasKey: false,
        signal: await speak(text, { voice: `${voice}${variant}`, speed }),
      });
  return [
    { name: "silence", kind: "silence", hasKey: false, signal: new Float32Array(seconds(20)) },
    { name: "white", kind: "noise", hasKey: false, signal: white(1, 20, 0.3) },
    { name: "white, -60 dBFS", kind: "noise", hasKey: false, signal: white(7, 20, 0.001) },
    { name: "pink (Kellet)", kind: "noise", hasKey: false, signal: pink(2, 20, 0.3) },
    { name: "brown", kind: "noise", hasKey: false, signal: brown(3, 20, 0.3) },
    { name: "drone A2", kind: "drone", hasKey: false, signal: drone([110], 20) },
    { name: "drone A2+E3", kind: "drone", hasKey: false, signal: drone([110, 165], 20) },
    { name: "drone A2+E3, tremolo 1.7 Hz", kind: "drone", hasKey: false, signal: drone([110, 165], 20, 1.7) },
    { name: "drone G2+D3+G3", kind: "drone", hasKey: false, signal: drone([98, 147, 196], 20, 0, 4) },
    { name: "free time, organ", kind: "free time", hasKey: true, signal: freeTime(5, 20, [1, 0.5, 0.3, 0.2]) },
    { name: "free time, hollow", kind: "free time", hasKey: true, signal: freeTime(6, 20, [1, 0, 0.2]) },
    { name: "free time, bright", kind: "free time", hasKey: true, signal: freeTime(8, 30, [1, 0.7, 0.5, 0.3, 0.2]) },
    ...speech,
  ];
}
