import { logBandEdges, repeatingMask, similarFrames } from "./repet-sim.ts";
import { meanMagnitude, type Spectrogram } from "./spectrogram.ts";

/**
 * The lead-voice soft mask of a song: REPET-SIM's repeating model says what repeats (the accompaniment), a
 * Wiener-style mask of the rest against it says what is voice, and stereo centre extraction keeps only what
 * is panned centre (lead vocals nearly always are), so an instrument panned aside never counts as voice.
 */
export interface VocalMaskOptions {
  /** Frames whose median models the repeating part. */
  repeats: number;
  /** Chosen frames are at least this far apart, seconds. */
  minDistanceSeconds: number;
  /** Frames are compared with those up to this far away, seconds. */
  searchSeconds: number;
  /** Exponent of the centre weight (1 = plain inter-channel coherence; higher = narrower centre). */
  centreExponent: number;
  /** No voice below this frequency: it is bass and kick. */
  highPassHz: number;
}

export const VOCAL_MASK_DEFAULTS: VocalMaskOptions = {
  repeats: 20,
  minDistanceSeconds: 0.15,
  searchSeconds: 20,
  centreExponent: 4,
  highPassHz: 100,
};

/** One mask for every channel (frame-major, like the spectrograms): 1 = voice, 0 = accompaniment. */
export function vocalMask(
  channels: readonly Spectrogram[],
  sampleRate: number,
  options: VocalMaskOptions = VOCAL_MASK_DEFAULTS,
): Float32Array {
  const first = channels[0];
  if (!first) throw new RangeError("no channels");
  const { frames, bins, hop } = first;
  // The average magnitude of the channels: what the repeating model is made of.
  const magnitude = meanMagnitude(channels);
  const framesPerSecond = sampleRate / hop;
  const chosen = similarFrames(magnitude, frames, bins, {
    repeats: options.repeats,
    minDistance: Math.max(1, Math.round(options.minDistanceSeconds * framesPerSecond)),
    minSimilarity: 0,
    searchFrames: Math.max(1, Math.round(options.searchSeconds * framesPerSecond)),
    bandEdges: logBandEdges(bins, sampleRate, 60, Math.min(12000, sampleRate / 2), 40),
  });
  const mask = repeatingMask(magnitude, frames, bins, chosen, options.repeats);

  const stereo = channels.length === 2;
  const left = channels[0] as Spectrogram;
  const right = channels[stereo ? 1 : 0] as Spectrogram;
  const lowest = Math.ceil((options.highPassHz * 2 * (bins - 1)) / sampleRate);
  const gamma = options.centreExponent;
  for (let t = 0; t < frames; t++) {
    for (let k = 0; k < bins; k++) {
      const i = t * bins + k;
      if (k < lowest) {
        mask[i] = 0;
        continue;
      }
      const repeating = mask[i] as number;
      const voice = 1 - repeating;
      const wiener = voice > 0 ? (voice * voice) / (voice * voice + repeating * repeating) : 0;
      let centre = 1;
      if (stereo) {
        // 2·Re(L·R*) / (|L|² + |R|²): 1 for equal channels, 0 for one silent side, < 0 out of phase.
        const lr = (left.re[i] as number) ** 2 + (left.im[i] as number) ** 2;
        const rr = (right.re[i] as number) ** 2 + (right.im[i] as number) ** 2;
        const cross =
          (left.re[i] as number) * (right.re[i] as number) + (left.im[i] as number) * (right.im[i] as number);
        centre = lr + rr > 0 ? Math.max(0, (2 * cross) / (lr + rr)) ** gamma : 1;
      }
      mask[i] = wiener * centre;
    }
  }
  return mask;
}
