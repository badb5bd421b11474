import { outputToNotesPoly } from "@spotify/basic-pitch";

/** basic-pitch's note decoder settings (outputToNotesPoly's arguments). */
export interface DecodeOptions {
  onsetThreshold: number;
  frameThreshold: number;
  minNoteFrames: number;
  minFrequency?: number;
  maxFrequency?: number;
  /** Adds onsets where the note activation jumps (outputToNotesPoly's inferOnsets). */
  inferOnsets: boolean;
  /** Adds notes from the energy no onset claimed (outputToNotesPoly's melodiaTrick). */
  melodiaTrick: boolean;
}

export type NoteEvent = ReturnType<typeof outputToNotesPoly>[number];

/** Frames a note may stay below the frame threshold and still go on (outputToNotesPoly's energyTolerance). */
const ENERGY_TOLERANCE = 11;

/**
 * basic-pitch's polyphonic note decoding, as outputToNotesPoly computes it, in frames; its "melodia trick" in
 * linear-logarithmic time. The library's own melodia pass rescans the whole activation matrix for its maximum
 * once per note it adds — quadratic in the length: 45 s for 3 minutes of music. Here the library decodes the
 * onset-led notes, and the melodia pass below finds its maxima with a max-heap instead; the notes are the same,
 * in the same order.
 */
export function decodeNotes(frames: number[][], onsets: number[][], options: DecodeOptions): NoteEvent[] {
  const events = outputToNotesPoly(
    frames,
    onsets,
    options.onsetThreshold,
    options.frameThreshold,
    options.minNoteFrames,
    options.inferOnsets,
    options.maxFrequency ?? null,
    options.minFrequency ?? null,
    false,
  );
  if (!options.melodiaTrick) return events;
  // outputToNotesPoly zeroed `frames` outside the frequency bounds; what its notes used is now spent.
  const remaining = frames.map((row) => Float64Array.from(row));
  for (const e of events) {
    const freq = e.pitchMidi - MIDI_OFFSET;
    for (let i = e.startFrame; i < e.startFrame + e.durationFrames; i++)
      clearAround(remaining[i] as Float64Array, freq);
  }
  events.push(...melodiaNotes(frames, remaining, options.frameThreshold, options.minNoteFrames));
  return events;
}

/**
 * Moves each note's start back from its onset peak to where the onset activation's rise passes `fraction` of the
 * peak. A peak marks the middle of a broad onset: struck low strings and organ keys rise over 40–100 ms, so the
 * peak lags the note-on (on the corpus' guitar parts by 20–60 ms, often past a ±50 ms tolerance).
 */
export function backtrackOnsets(events: NoteEvent[], onsets: number[][], fraction: number): void {
  for (const e of events) {
    const freq = e.pitchMidi - MIDI_OFFSET;
    const at = (i: number) => (onsets[i] as number[])[freq] as number;
    const floor = fraction * at(e.startFrame);
    let start = e.startFrame;
    while (start > 0 && at(start - 1) >= floor && at(start - 1) <= at(start)) start--;
    e.durationFrames += e.startFrame - start;
    e.startFrame = start;
  }
}

const MIDI_OFFSET = 21;
const MAX_FREQ_INDEX = 87;

function clearAround(row: Float64Array, freq: number): void {
  row[freq] = 0;
  if (freq < MAX_FREQ_INDEX) row[freq + 1] = 0;
  if (freq > 0) row[freq - 1] = 0;
}

/**
 * The melodia trick of basic-pitch's outputToNotesPoly: while energy above the frame threshold is left, take its
 * strongest cell and follow that pitch both ways until it stays below the threshold for ENERGY_TOLERANCE frames,
 * spending the energy on the way. Cells only ever drop to 0, so a heap with stale entries skipped finds each
 * maximum; ties go to the earliest frame, then the highest pitch, as the library's scan does.
 */
function melodiaNotes(frames: number[][], remaining: Float64Array[], threshold: number, minNoteFrames: number) {
  const heap = new CellHeap();
  remaining.forEach((row, i) => {
    row.forEach((value, freq) => {
      if (value > threshold) heap.push(value, i, freq);
    });
  });
  const notes: NoteEvent[] = [];
  const n = remaining.length;
  for (let top = heap.pop(); top; top = heap.pop()) {
    const [value, mid, freq] = top;
    if ((remaining[mid] as Float64Array)[freq] !== value) continue; // spent since it was queued
    (remaining[mid] as Float64Array)[freq] = 0;
    let i = mid + 1;
    let k = 0;
    while (i < n - 1 && k < ENERGY_TOLERANCE) {
      k = ((remaining[i] as Float64Array)[freq] as number) < threshold ? k + 1 : 0;
      clearAround(remaining[i] as Float64Array, freq);
      i++;
    }
    const end = i - 1 - k;
    i = mid - 1;
    k = 0;
    while (i > 0 && k < ENERGY_TOLERANCE) {
      k = ((remaining[i] as Float64Array)[freq] as number) < threshold ? k + 1 : 0;
      clearAround(remaining[i] as Float64Array, freq);
      i--;
    }
    const start = i + 1 + k;
    if (end - start <= minNoteFrames) continue;
    let sum = 0;
    for (let j = start; j < end; j++) sum += (frames[j] as number[])[freq] as number;
    notes.push({
      startFrame: start,
      durationFrames: end - start,
      pitchMidi: freq + MIDI_OFFSET,
      amplitude: sum / (end - start),
    });
  }
  return notes;
}

/** A binary max-heap of activation cells: by value, then earlier frame, then higher pitch. */
class CellHeap {
  private readonly cells: [number, number, number][] = [];

  push(value: number, frame: number, freq: number): void {
    const cells = this.cells;
    cells.push([value, frame, freq]);
    for (let i = cells.length - 1; i > 0; ) {
      const parent = (i - 1) >> 1;
      if (!before(cells[i] as [number, number, number], cells[parent] as [number, number, number])) break;
      [cells[i], cells[parent]] = [cells[parent] as [number, number, number], cells[i] as [number, number, number]];
      i = parent;
    }
  }

  pop(): [number, number, number] | undefined {
    const cells = this.cells;
    const top = cells[0];
    const last = cells.pop();
    if (cells.length === 0 || !last) return top;
    cells[0] = last;
    for (let i = 0; ; ) {
      let best = i;
      for (const child of [2 * i + 1, 2 * i + 2]) {
        if (
          child < cells.length &&
          before(cells[child] as [number, number, number], cells[best] as [number, number, number])
        )
          best = child;
      }
      if (best === i) break;
      [cells[i], cells[best]] = [cells[best] as [number, number, number], cells[i] as [number, number, number]];
      i = best;
    }
    return top;
  }
}

const before = (a: [number, number, number], b: [number, number, number]): boolean =>
  a[0] !== b[0] ? a[0] > b[0] : a[1] !== b[1] ? a[1] < b[1] : a[2] > b[2];
