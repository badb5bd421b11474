import fsp from "node:fs/promises";

/** Frames converted and written at a time by the WAV writers. */
const BLOCK_FRAMES = 65536;
/** The most samples, in bytes, a WAV's 32-bit size fields can describe. */
export const WAV_MAX_DATA_BYTES = 0xffffffff - 36;

/**
 * Planar float channels to interleaved 16-bit samples, frames `from` to `to`, as ffmpeg converts them
 * (libswresample: value × 32768 rounded half to even, then clipped), so a WAV written here has the samples
 * ffmpeg's pcm_s16le encoder would give.
 */
export function toInt16(channels: readonly Float32Array[], from: number, to: number): Int16Array {
  const count = channels.length;
  const out = new Int16Array((to - from) * count);
  for (let c = 0; c < count; c++) {
    const channel = channels[c] as Float32Array;
    for (let i = from, o = c; i < to; i++, o += count) {
      const scaled = (channel[i] as number) * 32768;
      let rounded = Math.round(scaled);
      if (rounded - scaled === 0.5 && rounded % 2 !== 0) rounded -= 1; // a tie goes to the even neighbour
      out[o] = Math.min(32767, Math.max(-32768, rounded));
    }
  }
  return out;
}

/** Sample encodings a WAV written here can hold: 16-bit integers (format tag 1) or 32-bit floats (tag 3). */
const SAMPLE_FORMATS = { s16: { tag: 1, bytes: 2 }, f32: { tag: 3, bytes: 4 } } as const;
type SampleFormat = keyof typeof SAMPLE_FORMATS;

/** The 44-byte header of a WAV of `frames` frames of `count` channels in `format`. */
function header(count: number, sampleRate: number, frames: number, format: SampleFormat): Buffer {
  const { tag, bytes } = SAMPLE_FORMATS[format];
  const dataBytes = frames * count * bytes;
  if (dataBytes > WAV_MAX_DATA_BYTES) throw new RangeError("a WAV file holds at most 4 GiB of samples");
  const header = Buffer.alloc(44);
  header.write("RIFF", 0, "ascii");
  header.writeUInt32LE(36 + dataBytes, 4);
  header.write("WAVE", 8, "ascii");
  header.write("fmt ", 12, "ascii");
  header.writeUInt32LE(16, 16);
  header.writeUInt16LE(tag, 20);
  header.writeUInt16LE(count, 22);
  header.writeUInt32LE(sampleRate, 24);
  header.writeUInt32LE(sampleRate * count * bytes, 28);
  header.writeUInt16LE(count * bytes, 32);
  header.writeUInt16LE(bytes * 8, 34);
  header.write("data", 36, "ascii");
  header.writeUInt32LE(dataBytes, 40);
  return header;
}

/** Planar float channels to interleaved float32 samples, frames `from` to `to`, unchanged (nothing clips). */
export function toFloat32(channels: readonly Float32Array[], from: number, to: number): Float32Array {
  const count = channels.length;
  const out = new Float32Array((to - from) * count);
  for (let c = 0; c < count; c++) {
    const channel = channels[c] as Float32Array;
    for (let i = from, o = c; i < to; i++, o += count) out[o] = channel[i] as number;
  }
  return out;
}

const framesOf = (channels: readonly Float32Array[]) => Math.min(...channels.map((c) => c.length));
const bytesOf = (samples: Int16Array | Float32Array) =>
  Buffer.from(samples.buffer, samples.byteOffset, samples.byteLength);

/** A 16-bit PCM WAV of planar float channels, in memory. */
export function encodeWav16(channels: readonly Float32Array[], sampleRate: number): Buffer {
  const frames = framesOf(channels);
  return Buffer.concat([header(channels.length, sampleRate, frames, "s16"), bytesOf(toInt16(channels, 0, frames))]);
}

/** Writes a 16-bit PCM WAV of planar float channels to `file`, a block at a time (memory stays flat). */
export function writeWav16(
  channels: readonly Float32Array[],
  sampleRate: number,
  file: string,
  signal?: AbortSignal,
): Promise<void> {
  return writeWav(channels, sampleRate, file, "s16", signal);
}

/**
 * Writes a 32-bit float WAV of planar float channels to `file`: the samples exactly, those past full scale
 * included, for intermediate files that must lose nothing.
 */
export function writeWavFloat(
  channels: readonly Float32Array[],
  sampleRate: number,
  file: string,
  signal?: AbortSignal,
): Promise<void> {
  return writeWav(channels, sampleRate, file, "f32", signal);
}

async function writeWav(
  channels: readonly Float32Array[],
  sampleRate: number,
  file: string,
  format: SampleFormat,
  signal?: AbortSignal,
): Promise<void> {
  const frames = framesOf(channels);
  const convert = format === "s16" ? toInt16 : toFloat32;
  const head = header(channels.length, sampleRate, frames, format);
  const handle = await fsp.open(file, "w");
  try {
    await handle.write(head);
    for (let from = 0; from < frames; from += BLOCK_FRAMES) {
      signal?.throwIfAborted();
      await handle.write(bytesOf(convert(channels, from, Math.min(frames, from + BLOCK_FRAMES))));
    }
  } finally {
    await handle.close();
  }
}
