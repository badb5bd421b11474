import { spatialWiener } from "../../dsp/spatial-wiener.ts";
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

/**
 * The sources `wanted` (indices into the masks), one signal per channel, from soft masks of all the sources but
 * the last (adding up to at most 1; the last source is the rest); `masksOf(c)` gives those of the stereo pair
 * (or lone channel) that starts at channel c. Each stereo pair goes through the multichannel Wiener filter
 * (dsp/spatial-wiener.ts); a lone channel (mono, or the last of an odd count) takes the masks alone.
 */
export function wienerStems(
  specs: readonly Spectrogram[],
  masksOf: (channel: number) => readonly Float32Array[],
  wanted: readonly number[],
): Float32Array[][] {
  const out = wanted.map(() => [] as Float32Array[]);
  for (let c = 0; c < specs.length; c += 2) {
    const left = specs[c] as Spectrogram;
    const right = specs[c + 1];
    const masks = masksOf(c);
    if (!right) {
      wanted.forEach((j, i) => {
        out[i]?.push(istft(left, masks[j]));
      });
      continue;
    }
    spatialWiener(left, right, masks, wanted).forEach((pair, i) => {
      out[i]?.push(...pair);
    });
  }
  return out;
}
