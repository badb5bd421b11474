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

/** `length` samples of pink noise: Paul Kellet's refined filter over the white samples `white()` gives. */
export function pinkNoiseFrom(white: () => number, length: number): Float64Array {
  const out = new Float64Array(length);
  let [b0, b1, b2, b3, b4, b5, b6] = [0, 0, 0, 0, 0, 0, 0];
  for (let i = 0; i < length; i++) {
    const w = white();
    b0 = 0.99886 * b0 + w * 0.0555179;
    b1 = 0.99332 * b1 + w * 0.0750759;
    b2 = 0.969 * b2 + w * 0.153852;
    b3 = 0.8665 * b3 + w * 0.3104856;
    b4 = 0.55 * b4 + w * 0.5329522;
    b5 = -0.7616 * b5 - w * 0.016898;
    out[i] = b0 + b1 + b2 + b3 + b4 + b5 + b6 + w * 0.5362;
    b6 = w * 0.115926;
  }
  return out;
}

/** The pieces one after another, in one array. */
export function concatSamples(pieces: readonly Float32Array[]): Float32Array {
  const out = new Float32Array(pieces.reduce((sum, piece) => sum + piece.length, 0));
  let at = 0;
  for (const piece of pieces) {
    out.set(piece, at);
    at += piece.length;
  }
  return out;
}
