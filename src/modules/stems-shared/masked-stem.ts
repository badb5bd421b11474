import { istft, type Spectrogram, stft } from "../../dsp/spectrogram.ts";
import type { Pcm } from "../../media/pcm.ts";

/** STFT of ~93 ms frames (4096 samples at 44.1 or 48 kHz) with 75 % overlap, at any sample rate. */
export function analysisSize(sampleRate: number): { fftSize: number; hop: number } {
  const fftSize = 2 ** Math.max(8, Math.round(Math.log2(0.093 * sampleRate)));
  return { fftSize, hop: fftSize / 4 };
}

/** The stem a soft mask (one for all channels) selects, by STFT, mask and exact inverse STFT of each channel. */
export function maskedStem(pcm: Pcm, maskOf: (channels: Spectrogram[]) => Float32Array): Float32Array[] {
  const { fftSize, hop } = analysisSize(pcm.sampleRate);
  const specs = pcm.channels.map((channel) => stft(channel, fftSize, hop));
  const mask = maskOf(specs);
  return specs.map((spec) => istft(spec, mask));
}
