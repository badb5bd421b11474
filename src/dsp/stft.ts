import FFT from "fft.js";

/** A periodic Hann window. */
export function hann(size: number): Float64Array {
  return Float64Array.from({ length: size }, (_, i) => 0.5 - 0.5 * Math.cos((2 * Math.PI * i) / size));
}

/** Magnitude spectra of Hann-windowed frames of a signal (zero outside it), fftSize/2+1 bins each. */
export class FrameAnalyzer {
  readonly fftSize: number;
  private readonly fft: FFT;
  private readonly window: Float64Array;
  private readonly input: Float64Array;
  private readonly output: Float64Array;

  constructor(fftSize: number) {
    this.fftSize = fftSize;
    this.fft = new FFT(fftSize);
    this.window = hann(fftSize);
    this.input = new Float64Array(fftSize);
    this.output = new Float64Array(2 * fftSize);
  }

  /** The spectrum (bins 0..bins-1, all by default) of the frame centred on sample `center`. */
  magnitudesAt(signal: Float32Array, center: number, bins = this.fftSize / 2 + 1, into?: Float32Array): Float32Array {
    const start = Math.round(center) - this.fftSize / 2;
    const input = this.input;
    const window = this.window;
    for (let i = 0; i < this.fftSize; i++) {
      const index = start + i;
      input[i] = index >= 0 && index < signal.length ? (signal[index] as number) * (window[i] as number) : 0;
    }
    this.fft.realTransform(this.output, this.input);
    const out = this.output;
    const row = into ?? new Float32Array(bins);
    for (let k = 0; k < bins; k++) {
      const re = out[2 * k] as number;
      const im = out[2 * k + 1] as number;
      row[k] = Math.sqrt(re * re + im * im);
    }
    return row;
  }
}

/** The average of all channels. */
export function mixToMono(channels: Float32Array[]): Float32Array {
  const length = channels[0]?.length ?? 0;
  const mono = new Float32Array(length);
  for (const channel of channels)
    for (let i = 0; i < length; i++) mono[i] = (mono[i] as number) + (channel[i] as number) / channels.length;
  return mono;
}
