/**
 * The plain audio plumbing of the family renderers: planar stereo buffers at 44.1 kHz, sample files decoded once
 * per process (ffmpeg reads the kits' WAV, FLAC and AIFF and the libraries' Ogg), ffmpeg and external
 * programs run on buffers by way of scratch files, and a seeded PRNG.
 */
import { execFile } from "node:child_process";
import fsp from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { decodeAudio } from "../../src/media/pcm.ts";
import { writeWavFloat } from "../../src/media/wav.ts";
import { readFloatWav } from "../corpus/render.ts";
import { ffmpeg } from "../helpers/media.ts";

export { Rng } from "../music/synth.ts";

export const execFileAsync = promisify(execFile);
export const SAMPLE_RATE = 44100;
export type Stereo = [Float32Array, Float32Array];

export const silence = (frames: number): Stereo => [new Float32Array(frames), new Float32Array(frames)];
export const frames = (audio: Stereo): number => audio[0].length;

/** Adds `source` (mono or stereo) into `target` from frame `at`, with a gain per channel. */
export function addInto(target: Stereo, source: Float32Array | Stereo, at: number, gainLeft = 1, gainRight = gainLeft) {
  const [l, r] = source instanceof Float32Array ? [source, source] : source;
  const start = Math.max(0, at);
  const end = Math.min(target[0].length, at + l.length);
  for (let i = start; i < end; i++) {
    target[0][i] = (target[0][i] as number) + gainLeft * (l[i - at] as number);
    target[1][i] = (target[1][i] as number) + gainRight * (r[i - at] as number);
  }
}

/** Constant-power pan gains for a position in [-1 (left), 1 (right)]. */
export function panGains(pan: number): [number, number] {
  const angle = ((Math.max(-1, Math.min(1, pan)) + 1) * Math.PI) / 4;
  return [Math.cos(angle) * Math.SQRT2, Math.sin(angle) * Math.SQRT2];
}

export const sumOf = (...parts: Stereo[]): Stereo => {
  const out = silence(Math.max(...parts.map(frames)));
  for (const part of parts) addInto(out, part, 0);
  return out;
};

export const energy = (audio: readonly Float32Array[]): number =>
  audio.reduce((total, channel) => channel.reduce((a, v) => a + v * v, total), 0);

export const scaled = (audio: Stereo, gain: number): Stereo => [
  audio[0].map((v) => v * gain),
  audio[1].map((v) => v * gain),
];

/** The audio cut or padded with silence to `length` frames. */
export function fitted(audio: Stereo, length: number): Stereo {
  return audio.map((channel) => {
    const out = new Float32Array(length);
    out.set(channel.subarray(0, length));
    return out;
  }) as Stereo;
}

const decoded = new Map<string, Promise<Stereo>>();

const decodeStereo = async (file: string): Promise<Stereo> => {
  const pcm = await decodeAudio(file, { sampleRate: SAMPLE_RATE, channels: 2 });
  return [pcm.channels[0], pcm.channels[1]] as Stereo;
};

/**
 * A sample file as 44.1 kHz stereo (a mono file in both channels), decoded once per process. A few of LMMS's
 * samples are Ogg Vorbis streams inside a WAV container (format 0x674F, the old vorbis.acm codec), which ffmpeg
 * does not read: the Ogg stream is taken out of the container and decoded on its own.
 */
export function sampleFile(file: string): Promise<Stereo> {
  let pending = decoded.get(file);
  if (!pending) {
    pending = decodeStereo(file).catch(async (error: unknown) => {
      const bytes = await fsp.readFile(file);
      const ogg = bytes.indexOf("OggS");
      if (bytes.toString("ascii", 0, 4) !== "RIFF" || ogg < 0) throw error;
      return withScratch(async (dir) => {
        await fsp.writeFile(path.join(dir, "stream.ogg"), bytes.subarray(ogg));
        return decodeStereo(path.join(dir, "stream.ogg"));
      });
    });
    decoded.set(file, pending);
  }
  return pending;
}

/** A scratch directory for one renderer call, removed afterwards. */
export async function withScratch<T>(use: (dir: string) => Promise<T>): Promise<T> {
  const dir = await fsp.mkdtemp(path.join(os.tmpdir(), "mixdown-families-scratch-"));
  try {
    return await use(dir);
  } finally {
    await fsp.rm(dir, { recursive: true, force: true });
  }
}

/** Writes stereo as a float WAV at 44.1 kHz. */
export const writeFloat = (file: string, audio: readonly Float32Array[]) => writeWavFloat(audio, SAMPLE_RATE, file);

/** Reads a 32-bit float WAV (as ffmpeg, sox or lv2file wrote it) as stereo, a mono file in both channels. */
export async function readFloat(file: string): Promise<Stereo> {
  const channels = readFloatWav(await fsp.readFile(file));
  return [channels[0] as Float32Array, (channels[1] ?? channels[0]) as Float32Array];
}

/**
 * `audio` (mono or stereo) through an ffmpeg audio filter graph (e.g. "equalizer=f=300:t=q:w=1:g=-4,aecho=…"), with
 * as many channels and the same length out; a mono result comes back in both channels, as readFloat gives it.
 */
export async function ffmpegFilter(audio: Stereo | [Float32Array], filter: string): Promise<Stereo> {
  return withScratch(async (dir) => {
    const input = path.join(dir, "in.wav");
    const output = path.join(dir, "out.wav");
    await writeFloat(input, audio);
    await ffmpeg([
      ...["-nostdin", "-i", input, "-af", filter],
      ...["-ar", String(SAMPLE_RATE), "-ac", String(audio.length), "-c:a", "pcm_f32le", output],
    ]);
    return fitted(await readFloat(output), audio[0].length);
  });
}

/** Root-mean-square level in dBFS of both channels together (−Infinity for silence). */
export function rmsDb(audio: readonly Float32Array[]): number {
  const count = audio.reduce((n, c) => n + c.length, 0);
  const power = energy(audio) / Math.max(1, count);
  return power > 0 ? 10 * Math.log10(power) : Number.NEGATIVE_INFINITY;
}
