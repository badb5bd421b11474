import assert from "node:assert/strict";
import tonejs from "@tonejs/midi";

export interface TranscribedNote {
  pitch: number;
  start: number;
  end: number;
  velocity: number;
}

/** The note list's documented shape: MIDI pitches of the model's range, times in seconds, velocities 1..127, by start. */
export function assertNoteShape(notes: unknown): asserts notes is TranscribedNote[] {
  assert.ok(Array.isArray(notes));
  for (const [i, note] of notes.entries()) {
    assert.deepEqual(Object.keys(note).sort(), ["end", "pitch", "start", "velocity"]);
    assert.ok(Number.isInteger(note.pitch) && note.pitch >= 21 && note.pitch <= 108, JSON.stringify(note));
    assert.ok(Number.isInteger(note.velocity) && note.velocity >= 1 && note.velocity <= 127, JSON.stringify(note));
    assert.ok(note.start >= 0 && note.end > note.start, JSON.stringify(note));
    if (i > 0) assert.ok(note.start >= notes[i - 1].start, "sorted by start");
  }
}

/** Parses the Standard MIDI File and checks it holds exactly the JSON's notes (times to the millisecond tick). */
export function assertMidiMatches(midiBytes: Uint8Array, notes: TranscribedNote[]): void {
  const midi = new tonejs.Midi(midiBytes);
  assert.equal(midi.tracks.length, 1);
  const parsed = (midi.tracks[0]?.notes ?? [])
    .map((n) => ({ pitch: n.midi, start: n.time, end: n.time + n.duration, velocity: Math.round(n.velocity * 127) }))
    .sort((a, b) => a.start - b.start || a.pitch - b.pitch);
  assert.equal(parsed.length, notes.length);
  parsed.forEach((p, i) => {
    const n = notes[i] as TranscribedNote;
    assert.equal(p.pitch, n.pitch);
    assert.equal(p.velocity, n.velocity);
    assert.ok(
      Math.abs(p.start - n.start) < 1e-6 && Math.abs(p.end - n.end) < 1e-6,
      `${JSON.stringify(p)} vs ${JSON.stringify(n)}`,
    );
  });
}
