import { FrameAnalyzer } from "../../dsp/stft.ts";
import type { NoteEvent } from "./decode.ts";
import { midiHz, partialMagnitude } from "./partials.ts";

/**
 * Subharmonic "ghost" notes: basic-pitch often adds, under a loud tone, a weaker note an octave, an octave and a
 * fifth or two octaves below it (at f/2, f/3, f/4), starting with it — on the corpus' saxophone and clarinet leads
 * and on pianos. The two notes share the lower one's every 2nd, 3rd or 4th partial, so the spectrum tells them
 * apart by the partials the lower note does not share (its odd ones below an octave) and no other note sounding
 * explains: a real lower note sounds them, a ghost has nothing there. This is the harmonic-explanation test of multiple-F0 estimation (Klapuri,
 * "Multiple fundamental frequency estimation by summing harmonic amplitudes", ISMIR 2006: a candidate's weight is
 * the energy at its partials that the detected F0s do not already explain).
 */

/** Semitones between a ghost and the tone above it, with the frequency ratio: f/2, f/3, f/4. */
const SUBHARMONICS = [
  { semitones: 12, ratio: 2 },
  { semitones: 19, ratio: 3 },
  { semitones: 24, ratio: 4 },
] as const;
/** Onsets this many activation frames apart (46 ms) count as one onset. */
const SAME_ONSET_FRAMES = 4;
/** The partials of the lower note weighed: up to the 8th. */
const PARTIALS = 8;
/** The partials of the other notes sounding that are taken to explain a bin: up to the 16th. */
const OTHER_PARTIALS = 16;
/**
 * A lower note is a ghost when its own partials average less than this share of the shared ones (−14 dB): real
 * lower notes on the corpus' pianos, guitars, organs and leads measure 0.3–2, the ghosts under leads mostly < 0.2.
 */
const OWN_PARTIALS_SHARE = 0.2;
/** The spectrum is averaged over activation frames 2..7 after the onset: past the attack, before much decay. */
const SPECTRUM_FRAMES = [2, 8] as const;
/** 4096 samples at 22050 Hz: 5.4 Hz bins, narrow enough to resolve the partials of A1 (55 Hz). */
const FFT_SIZE = 4096;

/**
 * The notes without the subharmonic ghosts. `audio` is the 22050 Hz mono signal the activations came from and
 * `centre(frame)` the sample an activation frame is centred on.
 */
export function dropSubharmonicGhosts(
  events: NoteEvent[],
  audio: Float32Array,
  sampleRate: number,
  centre: (frame: number) => number,
): NoteEvent[] {
  const analyzer = new FrameAnalyzer(FFT_SIZE);
  const [from, to] = SPECTRUM_FRAMES;
  const spectrumAt = (frame: number): Float32Array => {
    const bins = FFT_SIZE / 2 + 1;
    const mean = new Float32Array(bins);
    const row = new Float32Array(bins);
    for (let i = frame + from; i < frame + to; i++) {
      analyzer.magnitudesAt(audio, centre(i), bins, row);
      for (let k = 0; k < bins; k++) mean[k] = (mean[k] as number) + (row[k] as number) / (to - from);
    }
    return mean;
  };
  const binOf = (hz: number): number => Math.round((hz * FFT_SIZE) / sampleRate);
  const ghost = (low: NoteEvent): boolean =>
    SUBHARMONICS.some(({ semitones, ratio }) => {
      const high = events.find(
        (e) =>
          e.pitchMidi === low.pitchMidi + semitones &&
          Math.abs(e.startFrame - low.startFrame) <= SAME_ONSET_FRAMES &&
          e.amplitude > low.amplitude,
      );
      if (!high) return false;
      // The bins the partials of every other note sounding then fall in: those explain them, not the low note.
      const explained = new Set<number>();
      for (const other of events) {
        const sounding =
          other.startFrame < low.startFrame + to && other.startFrame + other.durationFrames > low.startFrame + from;
        if (other === low || other === high || !sounding) continue;
        for (let h = 1; h <= OTHER_PARTIALS; h++) {
          const bin = binOf(h * midiHz(other.pitchMidi));
          for (const b of [bin - 1, bin, bin + 1]) explained.add(b);
        }
      }
      const share = ownPartialsShare(spectrumAt(low.startFrame), midiHz(low.pitchMidi), ratio, binOf, explained);
      return share !== undefined && share < OWN_PARTIALS_SHARE;
    });
  return events.filter((e) => !ghost(e));
}

/**
 * The mean magnitude of the partials of f0 that a tone at ratio·f0 does not share and no other note explains ÷
 * the mean of those it shares (each the largest of the 3 bins around it); undefined when no partial is its own.
 */
function ownPartialsShare(
  spectrum: Float32Array,
  f0: number,
  ratio: number,
  binOf: (hz: number) => number,
  explained: Set<number>,
): number | undefined {
  let own = 0;
  let owned = 0;
  let shared = 0;
  let sharedCount = 0;
  for (let h = 1; h <= PARTIALS; h++) {
    const bin = binOf(h * f0);
    if (bin + 1 >= spectrum.length) break;
    const magnitude = partialMagnitude(spectrum, bin);
    if (h % ratio === 0) {
      shared += magnitude;
      sharedCount++;
    } else if (!explained.has(bin)) {
      own += magnitude;
      owned++;
    }
  }
  if (owned === 0 || sharedCount === 0) return undefined;
  return own / owned / (shared / sharedCount || Number.MIN_VALUE);
}
