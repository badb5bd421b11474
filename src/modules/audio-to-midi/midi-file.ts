import tonejs from "@tonejs/midi";
import type { Note } from "./transcribe.ts";

/** At 125 beats per minute and the default 480 ticks per beat, a tick is a millisecond: the JSON's time unit. */
const TEMPO_BPM = 125;

/** A Standard MIDI File (format 1, one piano track) holding exactly the given notes. */
export function encodeMidi(notes: readonly Note[]): Uint8Array {
  const midi = new tonejs.Midi();
  midi.header.setTempo(TEMPO_BPM);
  const ticksPerSecond = (TEMPO_BPM / 60) * midi.header.ppq;
  const track = midi.addTrack();
  track.name = "Mixdown transcription";
  for (const note of notes) {
    const ticks = Math.round(note.start * ticksPerSecond);
    track.addNote({
      midi: note.pitch,
      ticks,
      durationTicks: Math.round(note.end * ticksPerSecond) - ticks,
      velocity: note.velocity / 127,
    });
  }
  return midi.toArray();
}
