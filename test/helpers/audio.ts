import { encodeWav16 } from "../../src/media/wav.ts";

/** A 16-bit PCM WAV of a sine tone (half scale), made in code so tests need no audio tools. */
export function sineWav(seconds: number, { rate = 44100, channels = 2, frequency = 440 } = {}): Buffer {
  const frames = Math.round(seconds * rate);
  const tone = Float32Array.from({ length: frames }, (_, i) => Math.sin((2 * Math.PI * frequency * i) / rate) * 0.5);
  return encodeWav16(
    Array.from({ length: channels }, () => tone),
    rate,
  );
}
