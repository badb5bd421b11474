import { FrameAnalyzer } from "../../dsp/stft.ts";
import type { NoteEvent } from "./decode.ts";
import { midiHz, partialMagnitude } from "./partials.ts";

/**
 * Re-struck notes in chord re-attacks. A strummed guitar chord struck again while it rings re-strikes every
 * string, but basic-pitch's onset activation for a string that was already sounding often peaks only at 0.45–0.6,
 * under the onset threshold: the decoder then hears one long note (on the corpus' guitar parts, the most common
 * miss). A note is taken to be struck again at such a peak when the attack is a chord's — at least
 * CHORD_NOTES other pitches have confident onsets within ±35 ms — and the note's own partials (those none of the
 * chord's other notes share) grow across it, the spectral-flux onset test (Bello et al., "A tutorial on onset
 * detection in music signals", IEEE TSAP 2005) restricted to the partials the other notes do not explain
 * (Klapuri 2006). A note that only rings on while the others are struck has no rise of its own.
 */

/** The onset activation a re-strike must peak at, at least (below, peaks are mostly noise). */
const RESTRIKE_ONSET = 0.45;
/** Other pitches with confident onsets that make an attack a chord's. */
const CHORD_NOTES = 3;
/** Activation frames (±35 ms) within which onsets count as one attack. */
const ATTACK_FRAMES = 3;
/** A re-strike is at least this many frames (105 ms) after the note's start or the last re-strike. */
const MIN_FRAMES_APART = 9;
/** Energy before: frames 8..5 before the peak (the 93 ms window then ends before the attack); after: 1..4 past. */
const BEFORE = [-8, -5] as const;
const AFTER = [1, 4] as const;
const FFT_SIZE = 2048;
/** Partials of the note weighed, and of the chord's other notes taken to explain a bin. */
const PARTIALS = 8;
const OTHER_PARTIALS = 12;

/**
 * The notes plus the re-struck ones found inside them, each lasting to its note's end (the caller's repeat
 * separation then ends the earlier one there). `centre(frame)` is the sample an activation frame is centred on.
 */
export function addRestruckNotes(
  events: NoteEvent[],
  onsets: number[][],
  onsetThreshold: number,
  audio: Float32Array,
  sampleRate: number,
  centre: (frame: number) => number,
): NoteEvent[] {
  const frames = onsets.length;
  const isPeak = (i: number, pitch: number): boolean => {
    const v = (onsets[i] as number[])[pitch] as number;
    return v > ((onsets[i - 1] as number[])[pitch] as number) && v > ((onsets[i + 1] as number[])[pitch] as number);
  };
  const spectra = new SpectrumCache(audio, centre);
  const binOf = (midi: number, partial: number): number => Math.round((partial * midiHz(midi) * FFT_SIZE) / sampleRate);
  const restruck: NoteEvent[] = [];
  for (const note of events) {
    const pitch = note.pitchMidi - MIDI_OFFSET;
    const end = note.startFrame + note.durationFrames;
    const last = Math.min(end - 2, frames - AFTER[1] - 1);
    for (let i = note.startFrame + MIN_FRAMES_APART; i < last; i++) {
      const peak = (onsets[i] as number[])[pitch] as number;
      if (peak < RESTRIKE_ONSET || peak > onsetThreshold || !isPeak(i, pitch)) continue;
      const chord = new Set<number>();
      for (let j = Math.max(1, i - ATTACK_FRAMES); j <= Math.min(frames - 2, i + ATTACK_FRAMES); j++) {
        const row = onsets[j] as number[];
        row.forEach((v, other) => {
          if (other !== pitch && v > onsetThreshold && isPeak(j, other)) chord.add(other + MIDI_OFFSET);
        });
      }
      if (chord.size < CHORD_NOTES) continue;
      const explained = new Set<number>();
      for (const other of chord) {
        for (let h = 1; h <= OTHER_PARTIALS; h++) {
          const bin = binOf(other, h);
          for (const b of [bin - 1, bin, bin + 1]) explained.add(b);
        }
      }
      const own: number[] = [];
      for (let h = 1; h <= PARTIALS; h++) {
        const bin = binOf(note.pitchMidi, h);
        if (bin + 1 < FFT_SIZE / 2 && !explained.has(bin)) own.push(bin);
      }
      if (own.length === 0) continue;
      if (spectra.energy(own, i + BEFORE[0], i + BEFORE[1]) > spectra.energy(own, i + AFTER[0], i + AFTER[1])) continue;
      restruck.push({ ...note, startFrame: i, durationFrames: end - i });
      i += MIN_FRAMES_APART - 1;
    }
  }
  return [...events, ...restruck];
}

const MIDI_OFFSET = 21;

/** Magnitude spectra of activation frames, each computed once. */
class SpectrumCache {
  private readonly analyzer = new FrameAnalyzer(FFT_SIZE);
  private readonly spectra = new Map<number, Float32Array>();
  private readonly audio: Float32Array;
  private readonly centre: (frame: number) => number;

  constructor(audio: Float32Array, centre: (frame: number) => number) {
    this.audio = audio;
    this.centre = centre;
  }

  /** The mean over frames from..to of the summed magnitudes at `bins` (each the largest of the 3 around it). */
  energy(bins: number[], from: number, to: number): number {
    let sum = 0;
    for (let i = from; i <= to; i++) {
      const spectrum = this.at(i);
      for (const b of bins) sum += partialMagnitude(spectrum, b);
    }
    return sum / (to - from + 1);
  }

  private at(frame: number): Float32Array {
    let spectrum = this.spectra.get(frame);
    if (!spectrum) {
      spectrum = this.analyzer.magnitudesAt(this.audio, this.centre(frame));
      this.spectra.set(frame, spectrum);
    }
    return spectrum;
  }
}
