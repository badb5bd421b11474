import fsp from "node:fs/promises";

/** Planar float channels of a 16-bit stereo WAV written by encodeWav16 (44-byte header), exactly k / 32768. */
export async function readWav16(file: string, channels = 2): Promise<Float32Array[]> {
  const bytes = await fsp.readFile(file);
  const samples = new Int16Array(bytes.buffer.slice(bytes.byteOffset + 44, bytes.byteOffset + bytes.length));
  const frames = Math.floor(samples.length / channels);
  return Array.from({ length: channels }, (_, c) => {
    const out = new Float32Array(frames);
    for (let i = 0; i < frames; i++) out[i] = (samples[i * channels + c] as number) / 32768;
    return out;
  });
}
