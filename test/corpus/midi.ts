/**
 * Parts to a Standard MIDI File (@tonejs/midi): one track per part, program, volume, pan and (when a part has
 * them) mod wheel and chorus send set at time 0.
 */
import tonejs from "@tonejs/midi";
import type { Part } from "./types.ts";

/** 120 BPM, 480 PPQ: 960 ticks a second, the grid the note times are already on (timeline.ts). */
export function midiFile(parts: readonly Part[]): Buffer {
  const midi = new tonejs.Midi();
  midi.header.setTempo(120);
  for (const part of parts) {
    const track = midi.addTrack();
    track.name = part.name;
    track.channel = part.channel;
    track.instrument.number = part.program;
    track.addCC({ number: 7, value: part.volume / 127, time: 0 });
    track.addCC({ number: 10, value: part.pan / 127, time: 0 });
    if (part.modulation !== undefined) track.addCC({ number: 1, value: part.modulation / 127, time: 0 });
    if (part.chorus !== undefined) track.addCC({ number: 93, value: part.chorus / 127, time: 0 });
    for (const note of part.notes) track.addNote(note);
  }
  return Buffer.from(midi.toArray());
}
