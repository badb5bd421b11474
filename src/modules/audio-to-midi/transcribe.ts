import * as tf from "@tensorflow/tfjs";
import { backtrackOnsets, decodeNotes } from "./decode.ts";
import { loadModel } from "./model.ts";
import { addRestruckNotes } from "./restruck-notes.ts";
import { dropSubharmonicGhosts } from "./subharmonic-ghosts.ts";

/** basic-pitch's framing (its constants.py): 2 s windows of 22050 Hz audio overlapping by 30 hops of 256 samples. */
export const SAMPLE_RATE = 22050;
const FFT_HOP = 256;
const FRAMES_PER_SECOND = Math.floor(SAMPLE_RATE / FFT_HOP);
const WINDOW_SAMPLES = SAMPLE_RATE * 2 - FFT_HOP;
const OVERLAP_FRAMES = 30;
const WINDOW_HOP = WINDOW_SAMPLES - OVERLAP_FRAMES * FFT_HOP;
const OUTPUT_FRAMES = "Identity_1";
const OUTPUT_ONSETS = "Identity_2";
const PITCHES = 88;

export interface Note {
  /** MIDI note number. */
  pitch: number;
  /** Seconds. */
  start: number;
  end: number;
  /** 1..127 */
  velocity: number;
}

export interface TranscribeOptions {
  onsetThreshold: number;
  frameThreshold: number;
  minNoteLengthMs: number;
  minFrequency?: number;
  maxFrequency?: number;
}

/**
 * The model's note and onset activations (frames × 88 pitches from A0) over mono 22050 Hz audio. The same
 * windowing as basic-pitch's BasicPitch.evaluateModel, but each window's tensors are freed as soon as it is read
 * and the caller can stop between windows.
 */
export async function activations(
  audio: Float32Array,
  signal: AbortSignal,
  onProgress?: (fraction: number) => void,
): Promise<{ frames: number[][]; onsets: number[][] }> {
  const model = await loadModel();
  const padded = new Float32Array((OVERLAP_FRAMES * FFT_HOP) / 2 + audio.length);
  padded.set(audio, (OVERLAP_FRAMES * FFT_HOP) / 2);
  const wanted = Math.floor(audio.length * (FRAMES_PER_SECOND / SAMPLE_RATE));
  const frames: number[][] = [];
  const onsets: number[][] = [];
  for (let start = 0; start < padded.length && frames.length < wanted; start += WINDOW_HOP) {
    signal.throwIfAborted();
    onProgress?.(start / padded.length);
    const window = new Float32Array(WINDOW_SAMPLES);
    window.set(padded.subarray(start, start + WINDOW_SAMPLES));
    // tidy() returns the two output tensors, not their data: it searches what it returns for tensors to keep,
    // value by value in a typed array (30,000 values a window: with the garbage, a tenth of the job's CPU).
    const outputs = tf.tidy(
      () => model.execute(tf.tensor3d(window, [1, WINDOW_SAMPLES, 1]), [OUTPUT_FRAMES, OUTPUT_ONSETS]) as tf.Tensor[],
    );
    const [frameData, onsetData] = outputs.map((t) => t.dataSync() as Float32Array) as [Float32Array, Float32Array];
    tf.dispose(outputs);
    const rows = frameData.length / PITCHES;
    for (let row = OVERLAP_FRAMES / 2; row < rows - OVERLAP_FRAMES / 2 && frames.length < wanted; row++) {
      frames.push(Array.from(frameData.subarray(row * PITCHES, (row + 1) * PITCHES)));
      onsets.push(Array.from(onsetData.subarray(row * PITCHES, (row + 1) * PITCHES)));
    }
    // Lets the abort signal and the event loop through between windows.
    await new Promise((resolve) => setImmediate(resolve));
  }
  return { frames, onsets };
}

/** Polyphonic notes in mono 22050 Hz audio, sorted by start then pitch; never two sounding at once on one pitch. */
export async function transcribe(
  audio: Float32Array,
  options: TranscribeOptions,
  signal: AbortSignal,
  onProgress?: (fraction: number) => void,
): Promise<Note[]> {
  const { frames, onsets } = await activations(audio, signal, onProgress);
  return notesOf(frames, onsets, options, audio);
}

/**
 * The notes in the model's activations, sorted by start then pitch; with the `audio` they came from, without the
 * subharmonic ghosts (subharmonic-ghosts.ts) and with the notes re-struck in chord re-attacks (restruck-notes.ts).
 */
export function notesOf(
  frames: number[][],
  onsets: number[][],
  options: TranscribeOptions,
  audio?: Float32Array,
): Note[] {
  // basic-pitch's decoder needs a few frames to infer onsets from; fewer hold no note anyway.
  if (frames.length < 3) return [];
  // Without basic-pitch's inferred onsets and melodia notes, which start notes where no onset is (on the corpus'
  // development split, solo parts: note F 0.75 -> 0.79), with onsets moved to the start of their rise (0.82).
  const decoded = decodeNotes(frames, onsets, {
    ...options,
    minNoteFrames: Math.round((options.minNoteLengthMs / 1000) * (SAMPLE_RATE / FFT_HOP)),
    inferOnsets: false,
    melodiaTrick: false,
  });
  // On the corpus' solo parts (every 4th song), note F: without the ghosts, development 0.853 -> 0.858 and tuning
  // 0.814 -> 0.844 (the tuning split's saxophone and clarinet leads 0.819 -> 0.867, pianos 0.916 -> 0.943, organs
  // -0.005); with the re-struck notes, 0.862 and 0.846 (guitars 0.720 -> 0.744 and 0.787 -> 0.800).
  const centre = (frame: number): number => frameTime(frame) * SAMPLE_RATE;
  const events = audio
    ? addRestruckNotes(
        dropSubharmonicGhosts(decoded, audio, SAMPLE_RATE, centre),
        onsets,
        options.onsetThreshold,
        audio,
        SAMPLE_RATE,
        centre,
      )
    : decoded;
  backtrackOnsets(events, onsets, ONSET_RISE);
  const notes = events.map(
    (n): Note => ({
      pitch: n.pitchMidi,
      start: toMs(frameTime(n.startFrame)),
      end: toMs(frameTime(n.startFrame + n.durationFrames)),
      velocity: Math.min(127, Math.max(1, Math.round(127 * n.amplitude))),
    }),
  );
  notes.sort((a, b) => a.start - b.start || a.pitch - b.pitch);
  return separateRepeats(notes);
}

/** A note starts where its onset activation first reaches this share of its peak (tuned on the development split). */
const ONSET_RISE = 0.7;
/** Frames each window adds to the activations (its middle, the overlap cut off). */
const KEPT_FRAMES = 2 * FRAMES_PER_SECOND - OVERLAP_FRAMES;

/**
 * The time of an activation frame: frame k of window w is k hops into the window, and windows start WINDOW_HOP
 * samples apart — 141.3 hops for 142 frames. basic-pitch's own noteFramesToTime corrects that drift every 172
 * frames by an average, 10 ms off at times.
 */
function frameTime(frame: number): number {
  const window = Math.floor(frame / KEPT_FRAMES);
  return (window * WINDOW_HOP + (frame - window * KEPT_FRAMES) * FFT_HOP) / SAMPLE_RATE;
}

const toMs = (seconds: number): number => Math.round(seconds * 1000) / 1000;

/** A note that starts while the same pitch still sounds ends the earlier one there: MIDI cannot tell them apart. */
function separateRepeats(notes: Note[]): Note[] {
  const sounding = new Map<number, Note>();
  for (const note of notes) {
    const earlier = sounding.get(note.pitch);
    if (earlier && earlier.end > note.start) earlier.end = note.start;
    sounding.set(note.pitch, note);
  }
  return notes.filter((n) => n.end > n.start);
}
