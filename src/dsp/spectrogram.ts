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

/**
 * The real DFT of one frame (bins 0..size/2, interleaved re/im, unnormalised), for a size that is a power of 2
 * (fft.js directly) or an odd factor up to 15 times one, as separation models use (6144 = 3·2048,
 * 7680 = 15·512): then by decimation in time, `odd` FFTs of the power-of-2 length combined with twiddles.
 */
export class RealFft {
  readonly size: number;
  private readonly odd: number;
  private readonly fft: FFT;
  private readonly part: Float64Array;
  private readonly parts: Float64Array[];
  private readonly cos: Float64Array;
  private readonly sin: Float64Array;

  constructor(size: number) {
    let odd = size;
    while (odd % 2 === 0) odd /= 2;
    const sub = size / odd;
    if (!Number.isInteger(size) || sub < 4 || odd > 15) {
      throw new RangeError(`FFT size ${size}: a power of 2 (≥ 4), or 3, 5 … 15 times one`);
    }
    this.size = size;
    this.odd = odd;
    this.fft = new FFT(sub);
    this.part = new Float64Array(sub);
    this.parts = Array.from({ length: odd > 1 ? odd : 0 }, () => new Float64Array(2 * sub));
    this.cos = Float64Array.from({ length: odd > 1 ? size : 0 }, (_, i) => Math.cos((2 * Math.PI * i) / size));
    this.sin = Float64Array.from({ length: odd > 1 ? size : 0 }, (_, i) => -Math.sin((2 * Math.PI * i) / size));
  }

  /** `out` (length ≥ size + 2) receives bins 0..size/2 of the real `input` (length size). */
  transform(out: Float64Array, input: Float64Array): void {
    const { odd, size } = this;
    if (odd === 1) {
      this.fft.realTransform(out, input);
      return;
    }
    const sub = size / odd;
    for (let r = 0; r < odd; r++) {
      const part = this.part;
      for (let m = 0; m < sub; m++) part[m] = input[m * odd + r] as number;
      const spectrum = this.parts[r] as Float64Array;
      this.fft.realTransform(spectrum, part);
      this.fft.completeSpectrum(spectrum);
    }
    const { cos, sin } = this;
    for (let k = 0; k <= size / 2; k++) {
      const q = k % sub;
      let re = 0;
      let im = 0;
      for (let r = 0, angle = 0; r < odd; r++, angle = (angle + k) % size) {
        const spectrum = this.parts[r] as Float64Array;
        const a = spectrum[2 * q] as number;
        const b = spectrum[2 * q + 1] as number;
        const c = cos[angle] as number;
        const d = sin[angle] as number;
        re += a * c - b * d;
        im += a * d + b * c;
      }
      out[2 * k] = re;
      out[2 * k + 1] = im;
    }
  }
}

function checkHop(fftSize: number, hop: number): void {
  if (!Number.isInteger(hop) || hop < 1 || hop > fftSize / 2) throw new RangeError(`hop ${hop}: 1..fftSize/2`);
}

/** Forward STFT (unnormalised DFT of the windowed frame, as numpy's rfft or torch.stft compute it). */
export function stft(signal: Float32Array, fftSize: number, hop: number): Spectrogram {
  const fft = new RealFft(fftSize);
  checkHop(fftSize, hop);
  const length = signal.length;
  const frames = frameCount(length, hop);
  const bins = fftSize / 2 + 1;
  const re = new Float32Array(frames * bins);
  const im = new Float32Array(frames * bins);
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
    fft.transform(output, input);
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

/** The average magnitude of several channels' spectrograms, cell by cell. */
export function meanMagnitude(channels: readonly Spectrogram[]): Float32Array {
  const out = new Float32Array(channels[0]?.re.length ?? 0);
  for (const { re, im } of channels) {
    for (let i = 0; i < out.length; i++) {
      const a = re[i] as number;
      const b = im[i] as number;
      out[i] = (out[i] as number) + Math.sqrt(a * a + b * b) / channels.length;
    }
  }
  return out;
}

/** Whether a mask row is all zero. */
function silent(mask: Float32Array, row: number, bins: number): boolean {
  for (let k = row; k < row + bins; k++) if ((mask[k] as number) !== 0) return false;
  return true;
}

/**
 * Inverse STFT by weighted overlap-add: x[n] = Σ w·ifft(X_t) / Σ w², exact for an unmodified spectrogram. An
 * optional real mask (same layout) is applied on the fly, so a masked stem needs no masked copy of the
 * spectrogram. Frames the mask zeroes entirely are skipped (InverseStft does the work).
 */
export function istft(spec: Spectrogram, mask?: Float32Array): Float32Array {
  const { fftSize, hop, length, frames, bins, re, im } = spec;
  const inverse = new InverseStft(fftSize, hop, length);
  for (let t = 0; t < frames; t++) {
    const row = t * bins;
    if (mask && silent(mask, row, bins)) inverse.skip(t);
    else inverse.add(t, re, im, row, mask);
  }
  return inverse.finish();
}

/**
 * An inverse STFT fed one frame at a time (istft's engine), for spectrograms made frame by frame and never held
 * whole. Each frame is inverted with one real FFT through the Hartley transform (for a real frame,
 * ifft(X) = DHT(Re X − Im X) / N), half the work of a complex inverse FFT; like any real inverse FFT it ignores
 * the imaginary parts of the DC and Nyquist bins.
 */
export class InverseStft {
  private readonly fftSize: number;
  private readonly hop: number;
  private readonly length: number;
  private readonly fft: RealFft;
  private readonly out: Float32Array;
  private readonly norm: Float32Array;
  private readonly window: Float64Array;
  private readonly hartley: Float64Array;
  private readonly transformed: Float64Array;
  private readonly frame: Float64Array;

  constructor(fftSize: number, hop: number, length: number) {
    checkHop(fftSize, hop);
    this.fftSize = fftSize;
    this.hop = hop;
    this.length = length;
    this.fft = new RealFft(fftSize);
    this.out = new Float32Array(length);
    this.norm = new Float32Array(length);
    this.window = hann(fftSize);
    this.hartley = new Float64Array(fftSize);
    this.transformed = new Float64Array(2 * fftSize);
    this.frame = new Float64Array(fftSize);
  }

  /** Adds frame t, whose fftSize / 2 + 1 bins are re and im from `offset`, each times `gain` (same layout) if given. */
  add(t: number, re: Float32Array, im: Float32Array, offset = 0, gain?: Float32Array): void {
    const { fftSize, hartley, transformed, frame, window, out, norm } = this;
    const half = fftSize / 2;
    for (let k = 0; k <= half; k++) {
      const g = gain ? (gain[offset + k] as number) : 1;
      const a = (re[offset + k] as number) * g;
      const b = (im[offset + k] as number) * g;
      if (k === 0 || k === half) hartley[k] = a;
      else {
        hartley[k] = a - b;
        hartley[fftSize - k] = a + b;
      }
    }
    this.fft.transform(transformed, hartley);
    frame[0] = (transformed[0] as number) - (transformed[1] as number);
    for (let n = 1; n <= half; n++) {
      const fr = transformed[2 * n] as number;
      const fi = transformed[2 * n + 1] as number;
      frame[n] = fr - fi;
      frame[fftSize - n] = fr + fi;
    }
    const start = t * this.hop - half;
    const to = Math.min(fftSize, this.length - start);
    for (let n = Math.max(0, -start); n < to; n++) {
      const w = window[n] as number;
      const i = start + n;
      out[i] = (out[i] as number) + (w * (frame[n] as number)) / fftSize;
      norm[i] = (norm[i] as number) + w * w;
    }
  }

  /** Frame t is silent: it adds nothing but its window's weight, and needs no inverse FFT. */
  skip(t: number): void {
    const { fftSize, window, norm } = this;
    const start = t * this.hop - fftSize / 2;
    const to = Math.min(fftSize, this.length - start);
    for (let n = Math.max(0, -start); n < to; n++)
      norm[start + n] = (norm[start + n] as number) + (window[n] as number) ** 2;
  }

  /** The signal: the frames' sum divided by their windows' weight. */
  finish(): Float32Array {
    const { out, norm } = this;
    for (let i = 0; i < this.length; i++) {
      const s = norm[i] as number;
      out[i] = s > 1e-12 ? (out[i] as number) / s : 0;
    }
    return out;
  }
}
