import FFT from "fft.js";
import { hann } from "./stft.ts";

/**
 * The complex short-time Fourier transform of one channel, frame-major (`re[frame * bins + bin]`). Frame t is
 * centred on sample t·hop with a periodic Hann window (the signal is zero outside itself), so frames cover
 * every sample and the inverse is exact.
 */
export interface Spectrogram {
  fftSize: number;
  hop: number;
  /** Samples of the analysed signal. */
  length: number;
  frames: number;
  /** fftSize / 2 + 1 */
  bins: number;
  re: Float32Array;
  im: Float32Array;
}

export const frameCount = (length: number, hop: number): number => Math.floor(length / hop) + 1;

function checkSizes(fftSize: number, hop: number): void {
  if (!Number.isInteger(Math.log2(fftSize)) || fftSize < 4) throw new RangeError(`fftSize ${fftSize}: a power of 2`);
  if (!Number.isInteger(hop) || hop < 1 || hop > fftSize / 2) throw new RangeError(`hop ${hop}: 1..fftSize/2`);
}

/** Forward STFT (unnormalised DFT of the windowed frame, as numpy's rfft or torch.stft compute it). */
export function stft(signal: Float32Array, fftSize: number, hop: number): Spectrogram {
  checkSizes(fftSize, hop);
  const length = signal.length;
  const frames = frameCount(length, hop);
  const bins = fftSize / 2 + 1;
  const re = new Float32Array(frames * bins);
  const im = new Float32Array(frames * bins);
  const fft = new FFT(fftSize);
  const window = hann(fftSize);
  const input = new Float64Array(fftSize);
  const output = new Float64Array(2 * fftSize);
  const half = fftSize / 2;
  for (let t = 0; t < frames; t++) {
    const start = t * hop - half;
    const from = Math.max(0, -start);
    const to = Math.min(fftSize, length - start);
    input.fill(0);
    for (let n = from; n < to; n++) input[n] = (signal[start + n] as number) * (window[n] as number);
    fft.realTransform(output, input);
    const row = t * bins;
    for (let k = 0; k < bins; k++) {
      re[row + k] = output[2 * k] as number;
      im[row + k] = output[2 * k + 1] as number;
    }
  }
  return { fftSize, hop, length, frames, bins, re, im };
}

/** |X| of every cell. */
export function magnitudes(spec: Spectrogram): Float32Array {
  const out = new Float32Array(spec.re.length);
  const { re, im } = spec;
  for (let i = 0; i < out.length; i++) {
    const a = re[i] as number;
    const b = im[i] as number;
    out[i] = Math.sqrt(a * a + b * b);
  }
  return out;
}

/**
 * Inverse STFT by weighted overlap-add: x[n] = Σ w·ifft(X_t) / Σ w², exact for an unmodified spectrogram. An
 * optional real mask (same layout) is applied on the fly, so a masked stem needs no masked copy of the
 * spectrogram. Each frame is inverted with one real FFT through the Hartley transform (for a real frame,
 * ifft(X) = DHT(Re X − Im X) / N), half the work of a complex inverse FFT; like any real inverse FFT it ignores
 * the imaginary parts of the DC and Nyquist bins.
 */
export function istft(spec: Spectrogram, mask?: Float32Array): Float32Array {
  const { fftSize, hop, length, frames, bins, re, im } = spec;
  checkSizes(fftSize, hop);
  const out = new Float32Array(length);
  const norm = new Float32Array(length);
  const fft = new FFT(fftSize);
  const window = hann(fftSize);
  const hartley = new Float64Array(fftSize);
  const transformed = new Float64Array(2 * fftSize);
  const frame = new Float64Array(fftSize);
  const half = fftSize / 2;

  for (let t = 0; t < frames; t++) {
    const row = t * bins;
    for (let k = 0; k < bins; k++) {
      const g = mask ? (mask[row + k] as number) : 1;
      const a = (re[row + k] as number) * g;
      const b = (im[row + k] as number) * g;
      if (k === 0 || k === half) hartley[k] = a;
      else {
        hartley[k] = a - b;
        hartley[fftSize - k] = a + b;
      }
    }
    fft.realTransform(transformed, hartley);
    frame[0] = (transformed[0] as number) - (transformed[1] as number);
    for (let n = 1; n <= half; n++) {
      const fr = transformed[2 * n] as number;
      const fi = transformed[2 * n + 1] as number;
      frame[n] = fr - fi;
      frame[fftSize - n] = fr + fi;
    }
    const start = t * hop - half;
    const from = Math.max(0, -start);
    const to = Math.min(fftSize, length - start);
    for (let n = from; n < to; n++) {
      const w = window[n] as number;
      const i = start + n;
      out[i] = (out[i] as number) + (w * (frame[n] as number)) / fftSize;
      norm[i] = (norm[i] as number) + w * w;
    }
  }
  for (let i = 0; i < length; i++) {
    const s = norm[i] as number;
    out[i] = s > 1e-12 ? (out[i] as number) / s : 0;
  }
  return out;
}
