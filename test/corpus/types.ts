/** The shapes of the rendered corpus: a song's parts as MIDI notes, and the ground truth written beside it. */

export type Meter = "4/4" | "3/4" | "6/8";
export type Mode = "major" | "minor";
export type Stem = "drums" | "bass" | "vocals" | "other";
export type PartName = "drums" | "bass" | "comp" | "pad" | "lead" | "voice";
export type SectionLabel = "intro" | "verse" | "chorus" | "bridge" | "outro";

/** Which true stem each part is rendered into ("vocals" is the voice line, sung by a GM choir/voice patch). */
export const STEM_OF: Record<PartName, Stem> = {
  drums: "drums",
  bass: "bass",
  voice: "vocals",
  comp: "other",
  pad: "other",
  lead: "other",
};
export const STEMS: readonly Stem[] = ["drums", "bass", "vocals", "other"];

/** A sounding note, in seconds (after humanising); velocity 0..1; drums use GM percussion key numbers. */
export interface NoteEvent {
  midi: number;
  time: number;
  duration: number;
  velocity: number;
}

export interface Part {
  name: PartName;
  /** GM program (0-based); for drums the kit preset of bank 128. */
  program: number;
  /** MIDI channel 0..15, 9 for drums. */
  channel: number;
  /** Channel volume (CC 7) and pan (CC 10), 0..127. */
  volume: number;
  pan: number;
  /** Mod wheel (CC 1), 0..127, when set: every SF2 preset answers it with its vibrato LFO (training songs only). */
  modulation?: number;
  /** Chorus send (CC 93), 0..127, when set: FluidSynth adds it to the preset's own (training songs only). */
  chorus?: number;
  notes: NoteEvent[];
}

export interface TimedLabel<L extends string = string> {
  start: number;
  end: number;
  label: L;
}

export interface CorpusTruth {
  id: string;
  seed: number;
  /** Seconds; every stem and the mixture have exactly round(duration · 44100) frames. */
  duration: number;
  meter: Meter;
  /** Beats per bar as counted: 4, 3, or 2 in 6/8 (the beat is the dotted quarter). */
  beatsPerBar: 2 | 3 | 4;
  /** The main tempo in beats per minute (dotted quarters in 6/8), before any ritardando. */
  bpm: number;
  /** Local tempo at every beat (60 / the beat's length) when the track slows down at its end; else null. */
  tempoCurve: { time: number; bpm: number }[] | null;
  /** The drum groove of the verses and choruses: rock, ballad, shuffle, four-on-the-floor, funk, … */
  groove: string;
  swing: boolean;
  /** Beats before the first downbeat (an anacrusis). */
  pickupBeats: number;
  /** Every beat on the score's grid, before humanising; beatNum 1 = downbeat. Ends with the final hit. */
  beats: { time: number; beatNum: number }[];
  /** "C major", "F# minor", … in the analysis' spelling. */
  key: string;
  /** Contiguous from 0 to the end: major/minor triads ("C", "C#m") and "N" (lead-in, pickup). */
  chords: { start: number; end: number; chord: string }[];
  /** The chords as played (sevenths, inversions, borrowed chords), e.g. "G7/B", "Fmaj7", "Bb". */
  chordSymbols: { start: number; end: number; symbol: string }[];
  /** Contiguous from 0 to the end; a repeated section keeps its label. */
  sections: TimedLabel<SectionLabel>[];
  /** The parts: program, stem and the notes exactly as written to MIDI. */
  parts: { name: PartName; stem: Stem; program: number; notes: NoteEvent[] }[];
}
