import type { TimeSpan } from "./vad.ts";

/** One span of the input placed in the spliced audio. */
export interface SplicedPart {
  /** Where it came from, seconds on the input's timeline. */
  start: number;
  end: number;
  /** Where it starts in the spliced audio, seconds. */
  at: number;
}

/** The chosen spans of an input, back to back with a fixed gap of silence, and the way back to the input's timeline. */
export class SplicedAudio {
  readonly samples: Float32Array;
  readonly sampleRate: number;
  readonly parts: SplicedPart[];

  constructor(input: Float32Array, sampleRate: number, spans: TimeSpan[], gapSeconds: number) {
    this.sampleRate = sampleRate;
    const gap = Math.round(gapSeconds * sampleRate);
    const ranges = spans
      .map((s) => [Math.round(s.start * sampleRate), Math.min(input.length, Math.round(s.end * sampleRate))] as const)
      .filter(([from, to]) => to > from);
    const length = ranges.reduce((sum, [from, to]) => sum + (to - from), 0) + gap * Math.max(0, ranges.length - 1);
    this.samples = new Float32Array(length);
    this.parts = [];
    let offset = 0;
    for (const [from, to] of ranges) {
      this.samples.set(input.subarray(from, to), offset);
      this.parts.push({ start: from / sampleRate, end: to / sampleRate, at: offset / sampleRate });
      offset += to - from + gap;
    }
  }

  /** The part a time of the spliced audio falls in (in a gap: the nearer neighbour). */
  partAt(time: number): number {
    let best = 0;
    let distance = Number.POSITIVE_INFINITY;
    this.parts.forEach((part, i) => {
      const end = part.at + (part.end - part.start);
      const d = time < part.at ? part.at - time : time > end ? time - end : 0;
      if (d < distance) {
        distance = d;
        best = i;
      }
    });
    return best;
  }

  /** A time of the spliced audio on the input's timeline, kept inside its part. */
  toInput(time: number, part = this.partAt(time)): number {
    const p = this.parts[part];
    if (!p) return time;
    return Math.min(p.end, Math.max(p.start, p.start + (time - p.at)));
  }
}
