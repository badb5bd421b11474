/**
 * Music people wrote: the MIDI scores of Freedoom (Debian freedoom, BSD-licensed), its levels' music lumps
 * (D_*) in the game's WAD files, read by @tonejs/midi. Many are rock and metal at 90-186 BPM with distorted
 * guitars (GM 29, 30), bass and drums. An excerpt starts at a bar line where drums, bass and another part play,
 * and its truth comes from the score (score-truth.ts): beats and downbeats from the tempo map and time
 * signatures, chords (a half bar at a time) and key estimated from the notes. Instruments are slotted by GM program; sound effects
 * (GM 112-127) are left out.
 */
import fs from "node:fs";
import tonejs from "@tonejs/midi";
import type { CorpusTruth, NoteEvent } from "../corpus/types.ts";
import { type Material, type MaterialPart, slotOfProgram } from "./material.ts";
import { scoreChord, scoreGrid, scoreKey } from "./score-truth.ts";

export const FREEDOOM_WADS = ["/usr/share/games/doom/freedoom1.wad", "/usr/share/games/doom/freedoom2.wad"];

/** A music lump of a WAD (a Standard MIDI File), by name. */
export function wadLump(name: string): Buffer {
  for (const file of FREEDOOM_WADS) {
    const wad = fs.readFileSync(file);
    const count = wad.readInt32LE(4);
    const directory = wad.readInt32LE(8);
    for (let i = 0; i < count; i++) {
      const at = directory + 16 * i;
      const lump = wad.toString("latin1", at + 8, at + 16).replace(/\0.*$/s, "");
      if (lump === name) return wad.subarray(wad.readInt32LE(at), wad.readInt32LE(at) + wad.readInt32LE(at + 4));
    }
  }
  throw new Error(`no lump ${name} in ${FREEDOOM_WADS.join(", ")}`);
}

/** Slot of a score's track: channel 10 is drums; else by GM program; undefined for sound effects. */
function slotOf(channel: number, program: number): MaterialPart["slot"] | undefined {
  if (channel === 9) return "drums";
  if (program >= 112) return undefined;
  return slotOfProgram(program);
}

/**
 * `seconds` of the lump `name` from the first bar at or after `fromShare` of the piece where drums, bass and a
 * third part all play; ids `id`.
 */
export function freedoomExcerpt(id: string, name: string, seconds: number, fromShare: number): Material {
  const midi = new tonejs.Midi(wadLump(name));
  const ppq = midi.header.ppq;
  const toSeconds = (ticks: number) => midi.header.ticksToSeconds(ticks);
  const tracks = midi.tracks
    .filter((t) => t.notes.length > 0)
    .map((t) => {
      const cc = (n: number) => t.controlChanges[n]?.[0]?.value;
      return {
        slot: slotOf(t.channel, t.instrument.number),
        program: t.channel === 9 ? 0 : t.instrument.number,
        volume: Math.round(127 * (cc(7) ?? 100 / 127)),
        pan: Math.round(127 * (cc(10) ?? 0.5)),
        notes: t.notes.map((n) => ({ midi: n.midi, time: n.time, duration: n.duration, velocity: n.velocity })),
      };
    })
    .filter((t): t is typeof t & { slot: MaterialPart["slot"] } => t.slot !== undefined);
  const endTick = Math.max(...midi.tracks.flatMap((t) => t.notes.map((n) => n.ticks + n.durationTicks)));
  const signatures = midi.header.timeSignatures.map((s) => ({
    ticks: s.ticks,
    numerator: s.timeSignature[0] as number,
    denominator: s.timeSignature[1] as number,
  }));
  const grid = scoreGrid(ppq, signatures, endTick, toSeconds);
  const end = toSeconds(endTick);
  const sounding = (slot: string, from: number, to: number) =>
    tracks.some((t) => t.slot === slot && t.notes.some((n) => n.time >= from && n.time < to));
  const downbeats = grid.beats.filter((b) => b.beatNum === 1).map((b) => b.time);
  const start = downbeats.find(
    (t) =>
      t >= fromShare * end &&
      t + seconds <= end &&
      sounding("drums", t, t + 4) &&
      sounding("bass", t, t + 4) &&
      tracks.some((p) => p.slot !== "drums" && p.slot !== "bass" && p.notes.some((n) => n.time >= t && n.time < t + 4)),
  );
  if (start === undefined) throw new Error(`${name}: no bar with drums, bass and a third part after ${fromShare}`);
  const cut = (notes: NoteEvent[]): NoteEvent[] =>
    notes
      .filter((n) => n.time >= start - 1e-6 && n.time < start + seconds - 0.05)
      .map((n) => ({ ...n, time: n.time - start, duration: Math.min(n.duration, start + seconds - n.time) }));
  const parts: MaterialPart[] = tracks.map((t) => ({ ...t, notes: cut(t.notes) })).filter((t) => t.notes.length > 0);
  const scored = parts.map((p) => ({ program: p.program, drums: p.slot === "drums", notes: p.notes }));
  const beats = grid.beats
    .filter((b) => b.time >= start - 1e-6 && b.time < start + seconds - 0.05)
    .map((b) => ({ time: b.time - start, beatNum: b.beatNum }));
  // One chord a half bar (4/4: beats 1 and 3; else a bar): a beat's notes alone are too few (a passing tone, a
  // bare fifth flips a triad's quality from beat to beat).
  const starts = beats.filter((b, k) => k === 0 || b.beatNum === 1 || (grid.beatsPerBar === 4 && b.beatNum === 3));
  const chords: CorpusTruth["chords"] = [];
  starts.forEach((b, k) => {
    const to = starts[k + 1]?.time ?? seconds;
    const chord = scoreChord(scored, b.time, to);
    const last = chords.at(-1);
    if (last && last.chord === chord) last.end = to;
    else chords.push({ start: k === 0 ? 0 : b.time, end: to, chord });
  });
  const intervals = beats.slice(1).map((b, k) => b.time - (beats[k] as { time: number }).time);
  const median = [...intervals].sort((a, b) => a - b)[Math.floor(intervals.length / 2)] as number;
  const truth: CorpusTruth = {
    id,
    seed: 0,
    duration: seconds,
    meter: grid.meter,
    beatsPerBar: grid.beatsPerBar as 2 | 3 | 4,
    bpm: Math.round(600 / median) / 10,
    tempoCurve: null,
    groove: `freedoom ${name}`,
    swing: false,
    pickupBeats: 0,
    beats,
    key: scoreKey(scored, 0, seconds),
    chords,
    chordSymbols: chords.map((c) => ({ start: c.start, end: c.end, symbol: c.chord })),
    sections: [],
    parts: [],
  };
  return { id, source: "score", style: `freedoom ${name}`, parts, truth };
}
