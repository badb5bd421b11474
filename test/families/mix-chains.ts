/**
 * Mixing and mastering chains applied so that the true stems still add up to the mixture: what acts on one
 * stem (EQ, saturation: ffmpeg's equalizer, highpass and asoftclip filters; a convolution reverb send, ffmpeg's
 * afir with a synthetic room response) is applied to that stem, and what acts on the whole mix (a bus
 * compressor, a lookahead brick-wall limiter, the gain to a loudness target) is one gain curve computed from the
 * mix and applied to every stem alike — as a mastering compressor's gain is. The loudness is measured by
 * Mixdown's own BS.1770 meter (src/dsp/loudness.ts).
 */
import path from "node:path";
import { measureLoudness } from "../../src/dsp/loudness.ts";
import type { Stem } from "../corpus/types.ts";
import { ffmpeg } from "../helpers/media.ts";
import {
  addInto,
  ffmpegFilter,
  fitted,
  frames,
  Rng,
  readFloat,
  SAMPLE_RATE,
  type Stereo,
  sumOf,
  withScratch,
  writeFloat,
} from "./audio.ts";

export interface MixChain {
  /** ffmpeg filters per stem (EQ, saturation). */
  stemFilters: Partial<Record<Stem, string>>;
  /** Reverb send level per stem (linear), and the room's decay time. */
  reverbSend: Partial<Record<Stem, number>>;
  reverbSeconds: number;
  /** Bus compressor: threshold (dBFS, RMS over 10 ms attack / 150 ms release) and ratio. */
  compressor?: { threshold: number; ratio: number };
  /** Integrated loudness the limited master is brought to (LUFS), the limiter's ceiling at −1 dBFS. */
  targetLufs?: number;
}

export const MIX_CHAINS = {
  /** The corpus' mixing: the stems as rendered, summed (the mixture is later peak-normalised). */
  plain: { stemFilters: {}, reverbSend: {}, reverbSeconds: 0 },
  /** A loud modern master: bright EQ, saturated drums and bass, plate-like reverb, 4:1 bus compression, −9 LUFS. */
  loud: {
    stemFilters: {
      drums: "equalizer=f=60:t=q:w=1:g=3,equalizer=f=5000:t=q:w=1:g=2,asoftclip=type=tanh:threshold=0.5",
      bass: "highpass=f=35,equalizer=f=100:t=q:w=1:g=2,asoftclip=type=tanh:threshold=0.6",
      vocals: "highpass=f=100,equalizer=f=3000:t=q:w=1:g=3,equalizer=f=250:t=q:w=1:g=-2",
      other: "highpass=f=120,equalizer=f=300:t=q:w=1:g=-2,equalizer=f=8000:t=q:w=1:g=2",
    },
    reverbSend: { vocals: 0.25, other: 0.18, drums: 0.06 },
    reverbSeconds: 1.4,
    compressor: { threshold: -20, ratio: 4 },
    targetLufs: -9,
  },
  /** A gentle master: a darker tilt, a larger room, 2:1 compression, −14 LUFS. */
  gentle: {
    stemFilters: {
      drums: "equalizer=f=8000:t=q:w=1:g=-2",
      bass: "lowpass=f=3000",
      vocals: "highpass=f=80,equalizer=f=5000:t=q:w=1:g=1",
      other: "equalizer=f=10000:t=q:w=1:g=-3",
    },
    reverbSend: { vocals: 0.3, other: 0.3, drums: 0.12 },
    reverbSeconds: 2.2,
    compressor: { threshold: -24, ratio: 2 },
    targetLufs: -14,
  },
} satisfies Record<string, MixChain>;
export type MixChainName = keyof typeof MIX_CHAINS;

/** A stereo room response: decorrelated noise decaying by 60 dB over `seconds`, darker as it decays. */
function roomResponse(seconds: number, seed: number): Stereo {
  const rng = new Rng(seed);
  const length = Math.round(seconds * SAMPLE_RATE);
  const predelay = Math.round(0.02 * SAMPLE_RATE);
  return [0, 1].map(() => {
    const ir = new Float32Array(length);
    let lp = 0;
    for (let n = predelay; n < length; n++) {
      const t = (n - predelay) / SAMPLE_RATE;
      const coefficient = Math.max(0.08, 0.9 * Math.exp(-t / seconds));
      lp += coefficient * (rng.uniform(-1, 1) - lp);
      ir[n] = lp * 10 ** ((-3 * t) / seconds) * 0.05;
    }
    return ir;
  }) as Stereo;
}

async function reverb(stem: Stereo, seconds: number, seed: number): Promise<Stereo> {
  return withScratch(async (dir) => {
    const input = path.join(dir, "in.wav");
    const ir = path.join(dir, "ir.wav");
    const output = path.join(dir, "out.wav");
    await writeFloat(input, stem);
    await writeFloat(ir, roomResponse(seconds, seed));
    await ffmpeg([
      ...["-nostdin", "-i", input, "-i", ir],
      ...["-filter_complex", "[0:a][1:a]afir=dry=1:wet=1:gtype=none", "-c:a", "pcm_f32le", output],
    ]);
    return fitted(await readFloat(output), frames(stem));
  });
}

/** The gain curve of an RMS bus compressor on `mix` (10 ms attack, 150 ms release, hard knee). */
function compressorGain(mix: Stereo, threshold: number, ratio: number): Float32Array {
  const attack = Math.exp(-1 / (0.01 * SAMPLE_RATE));
  const release = Math.exp(-1 / (0.15 * SAMPLE_RATE));
  const gain = new Float32Array(frames(mix));
  let power = 0;
  for (let i = 0; i < gain.length; i++) {
    const p = ((mix[0][i] as number) ** 2 + (mix[1][i] as number) ** 2) / 2;
    power = p > power ? attack * power + (1 - attack) * p : release * power + (1 - release) * p;
    const level = 10 * Math.log10(power + 1e-12);
    const over = Math.max(0, level - threshold);
    gain[i] = 10 ** ((-over * (1 - 1 / ratio)) / 20);
  }
  return gain;
}

/**
 * The gain curve of a lookahead brick-wall limiter (5 ms lookahead, 80 ms release) that keeps `mix` at or under
 * `ceiling`: the least gain any sample in the next 5 ms needs, released slowly, then averaged over 5 ms — every
 * value averaged at a peak is at most the gain that peak needs, so no sample passes the ceiling.
 */
function limiterGain(mix: Stereo, ceiling: number): Float32Array {
  const n = frames(mix);
  const look = Math.round(0.005 * SAMPLE_RATE);
  const need = Float32Array.from({ length: n }, (_, i) => {
    const peak = Math.max(Math.abs(mix[0][i] as number), Math.abs(mix[1][i] as number));
    return peak > ceiling ? ceiling / peak : 1;
  });
  const ahead = new Float32Array(n);
  // Sliding minimum over [i, i + look] (a monotonic deque).
  const deque: number[] = [];
  for (let i = n - 1; i >= 0; i--) {
    while (deque.length && (need[deque.at(-1) as number] as number) >= (need[i] as number)) deque.pop();
    deque.push(i);
    while ((deque[0] as number) > i + look) deque.shift();
    ahead[i] = need[deque[0] as number] as number;
  }
  const release = 1 - Math.exp(-1 / (0.08 * SAMPLE_RATE));
  let held = 1;
  for (let i = 0; i < n; i++) {
    held = Math.min(ahead[i] as number, held + (1 - held) * release);
    ahead[i] = held;
  }
  const out = new Float32Array(n);
  let sum = 0;
  for (let i = 0; i < n; i++) {
    sum += ahead[i] as number;
    if (i >= look) sum -= ahead[i - look] as number;
    out[i] = sum / Math.min(i + 1, look);
  }
  return out;
}

const withGain = (audio: Stereo, gain: Float32Array | number): Stereo =>
  audio.map((channel) => channel.map((v, i) => v * (typeof gain === "number" ? gain : (gain[i] as number)))) as Stereo;

/** The stems through the chain; their sum is the mastered mixture. */
export async function applyMixChain(
  chainName: MixChainName,
  stems: Record<Stem, Stereo>,
  seed: number,
): Promise<Record<Stem, Stereo>> {
  const chain: MixChain = MIX_CHAINS[chainName];
  const out = { ...stems };
  for (const stem of Object.keys(out) as Stem[]) {
    let audio = out[stem];
    const filter = chain.stemFilters[stem];
    if (filter) audio = await ffmpegFilter(audio, filter);
    const send = chain.reverbSend[stem];
    if (send) {
      const wet = await reverb(audio, chain.reverbSeconds, seed);
      audio = sumOf(audio);
      addInto(audio, wet, 0, send, send);
    }
    out[stem] = audio;
  }
  if (chain.compressor) {
    const gain = compressorGain(sumOf(...Object.values(out)), chain.compressor.threshold, chain.compressor.ratio);
    for (const stem of Object.keys(out) as Stem[]) out[stem] = withGain(out[stem], gain);
  }
  if (chain.targetLufs !== undefined) {
    // Gain into the limiter, found in a few steps: the limiter's loss of loudness grows with the drive.
    const ceiling = 10 ** (-1 / 20);
    let drive = 1;
    let mastered = out;
    for (let step = 0; step < 4; step++) {
      const driven = Object.fromEntries(
        Object.entries(out).map(([stem, audio]) => [stem, withGain(audio, drive)]),
      ) as Record<Stem, Stereo>;
      const gain = limiterGain(sumOf(...Object.values(driven)), ceiling);
      mastered = Object.fromEntries(
        Object.entries(driven).map(([stem, audio]) => [stem, withGain(audio, gain)]),
      ) as Record<Stem, Stereo>;
      const lufs = measureLoudness(sumOf(...Object.values(mastered)), SAMPLE_RATE).integratedLoudness;
      if (Math.abs(lufs - chain.targetLufs) < 0.3) break;
      drive *= 10 ** ((chain.targetLufs - lufs) / 20);
    }
    return mastered;
  }
  return out;
}
