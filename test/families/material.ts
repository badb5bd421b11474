/**
 * The material the families play: songs by the corpus generator (test/corpus/song.ts), the same generator's
 * songs rearranged into the styles issue 52 names (metal with power chords and double kick, electronic with an
 * 808 and sidechained pads, acoustic guitar and voice, an orchestral passage without drums), and excerpts of
 * music people wrote (freedoom-score.ts). Each part has a slot — the role a family plays it in — and the truth
 * is the corpus' (CorpusTruth), so the corpus' scorers take it as it is.
 */
import { composeSong, type SongSpec } from "../corpus/song.ts";
import type { CorpusTruth, NoteEvent, Part, Stem } from "../corpus/types.ts";
import { PITCH_NAMES } from "../music/theory.ts";

export type Slot =
  | "drums"
  | "bass"
  | "guitar"
  | "guitar-distorted"
  | "guitar-acoustic"
  | "keys"
  | "pads"
  | "orchestral"
  | "lead"
  | "voice";

export const STEM_OF_SLOT: Record<Slot, Stem> = {
  drums: "drums",
  bass: "bass",
  voice: "vocals",
  guitar: "other",
  "guitar-distorted": "other",
  "guitar-acoustic": "other",
  keys: "other",
  pads: "other",
  orchestral: "other",
  lead: "other",
};

export interface MaterialPart {
  slot: Slot;
  program: number;
  /** Channel volume (CC 7) and pan (CC 10), 0..127, as in the song's MIDI. */
  volume: number;
  pan: number;
  notes: NoteEvent[];
  /** Duck the part under the kick (an electronic pad's sidechain compression). */
  sidechain?: boolean;
}

export interface Material {
  id: string;
  /** "generated" (the corpus generator), "style" (its songs rearranged) or "score" (music people wrote). */
  source: "generated" | "style" | "score";
  /** The groove, style or piece, for the reports. */
  style: string;
  parts: MaterialPart[];
  truth: CorpusTruth;
}

/** The slot of a GM program in the corpus generator's comp, pad and lead parts. */
function slotOfProgram(program: number): Slot {
  if (program >= 24 && program <= 28) return "guitar";
  if (program >= 29 && program <= 31) return "guitar-distorted";
  if (program >= 32 && program <= 39) return "bass";
  if (program >= 40 && program <= 79) return "orchestral";
  if (program >= 80 && program <= 87) return "lead";
  if (program >= 88 && program <= 103) return "pads";
  return "keys";
}

function slotOfPart(part: Part): Slot {
  if (part.name === "drums" || part.name === "bass" || part.name === "voice") return part.name;
  if (part.name === "pad") return part.program >= 40 && part.program < 56 ? "orchestral" : "pads";
  return slotOfProgram(part.program);
}

const partsOf = (parts: readonly Part[]): MaterialPart[] =>
  parts.map((p) => ({ slot: slotOfPart(p), program: p.program, volume: p.volume, pan: p.pan, notes: p.notes }));

/** A corpus generator song as it is. */
export function generatedSong(spec: SongSpec): Material {
  const { parts, truth } = composeSong(spec);
  return { id: spec.id, source: "generated", style: spec.groove, parts: partsOf(parts), truth };
}

const rootOf = (label: string): number => PITCH_NAMES.indexOf(label.replace(/m$/, "") as (typeof PITCH_NAMES)[number]);

/** The chord label sounding at time t. */
const chordAt = (truth: CorpusTruth, t: number) => truth.chords.find((c) => t >= c.start && t < c.end)?.chord ?? "N";

/** Notes on every `step` of a beat over the truth's beats that satisfy `keep`, as `make` returns them. */
function onGrid(
  truth: CorpusTruth,
  step: number,
  make: (time: number, beatNum: number, sub: number, length: number) => NoteEvent[],
  keep: (time: number) => boolean,
): NoteEvent[] {
  const out: NoteEvent[] = [];
  const beats = truth.beats;
  for (let k = 0; k + 1 < beats.length; k++) {
    const start = (beats[k] as { time: number }).time;
    const length = (beats[k + 1] as { time: number }).time - start;
    for (let sub = 0; sub < 1 / step - 1e-9; sub++) {
      const time = start + sub * step * length;
      if (keep(time)) out.push(...make(time, (beats[k] as { beatNum: number }).beatNum, sub, step * length));
    }
  }
  return out;
}

const labelAt = (truth: CorpusTruth, t: number) => truth.sections.find((s) => t >= s.start && t < s.end)?.label;
/** Whether the original drum part plays within 0.6 s of t (the sections that have drums). */
const drumsAround = (parts: readonly Part[]) => {
  const times = parts.find((p) => p.name === "drums")?.notes.map((n) => n.time) ?? [];
  return (t: number) => times.some((x) => Math.abs(x - t) < 0.6);
};

/**
 * Metal: distorted power chords (root, fifth, octave) chugging in eighths on the song's chords, a double-kick
 * groove (kick on every eighth, snare on 2 and 4) in verses and a blast beat (kick and snare alternating eighths,
 * crash on every downbeat) in choruses, bass on the roots; the pad dropped. Chords are relabelled as the
 * power chords' roots' majors (issue 52's convention).
 */
export function metalSong(spec: SongSpec): Material {
  const { parts, truth } = composeSong({ ...spec, programs: { comp: [30], lead: [30, 81], voice: [52] } });
  const playing = drumsAround(parts);
  const last = (truth.beats.at(-1) as { time: number }).time;
  const drums = onGrid(
    truth,
    0.5,
    (time, beatNum, sub) => {
      const chorus = labelAt(truth, time) === "chorus";
      const hits: NoteEvent[] = [{ midi: 36, time, duration: 0.1, velocity: sub === 0 ? 0.95 : 0.8 }];
      if (chorus ? sub === 1 : sub === 0 && beatNum % 2 === 0)
        hits.push({ midi: 38, time, duration: 0.1, velocity: 0.9 });
      if (chorus && sub === 0 && beatNum === 1) hits.push({ midi: 49, time, duration: 0.1, velocity: 0.9 });
      else if (sub === 0) hits.push({ midi: chorus ? 51 : 42, time, duration: 0.1, velocity: 0.7 });
      return hits;
    },
    (t) => playing(t) && t < last,
  );
  const guitar = onGrid(
    truth,
    0.5,
    (time, _beat, _sub, length) => {
      const root = rootOf(chordAt(truth, time));
      if (root < 0) return [];
      const low = 40 + ((root - 4 + 12) % 12);
      return [0, 7, 12].map((i) => ({ midi: low + i, time, duration: 0.8 * length, velocity: 0.85 }));
    },
    (t) => t < last,
  );
  const kept = partsOf(parts.filter((p) => p.name === "bass" || p.name === "voice" || p.name === "lead"));
  const relabelled = (label: string) => (label === "N" ? "N" : label.replace(/m$/, ""));
  return {
    id: spec.id,
    source: "style",
    style: "metal",
    parts: [
      { slot: "drums", program: 0, volume: 120, pan: 64, notes: drums },
      { slot: "guitar-distorted", program: 30, volume: 110, pan: 64, notes: guitar },
      ...kept,
    ],
    truth: {
      ...truth,
      groove: "metal",
      chords: truth.chords.map((c) => ({ ...c, chord: relabelled(c.chord) })),
      chordSymbols: truth.chordSymbols.map((c) => ({ ...c, symbol: `${relabelled(c.symbol.split("/")[0] ?? "N")}5` })),
    },
  };
}

/**
 * Electronic: an 808 pattern (kick every beat, clap on 2 and 4, closed hats on the off-eighths, an open hat on
 * the last), pads holding the chords and ducked under the kick, a synth bass on the off-beats; the song's comp
 * dropped, its lead and voice kept.
 */
export function electronicSong(spec: SongSpec): Material {
  const { parts, truth } = composeSong({ ...spec, programs: { pad: [90], lead: [81], voice: [53] } });
  const playing = drumsAround(parts);
  const last = (truth.beats.at(-1) as { time: number }).time;
  const drums = onGrid(
    truth,
    0.5,
    (time, beatNum, sub) =>
      sub === 0
        ? [
            { midi: 36, time, duration: 0.2, velocity: 0.95 },
            ...(beatNum % 2 === 0 ? [{ midi: 39, time, duration: 0.1, velocity: 0.85 }] : []),
          ]
        : [{ midi: beatNum === 4 ? 46 : 42, time, duration: 0.1, velocity: 0.7 }],
    (t) => playing(t) && t < last,
  );
  const pads = truth.chords
    .filter((c) => c.chord !== "N")
    .flatMap((c) => {
      const root = rootOf(c.chord);
      const third = c.chord.endsWith("m") ? 3 : 4;
      return [0, third, 7, 12].map((i) => ({
        midi: 55 + ((root - 7 + 12) % 12) + i,
        time: c.start,
        duration: Math.max(0.1, c.end - c.start - 0.02),
        velocity: 0.7,
      }));
    });
  const bass = onGrid(
    truth,
    0.5,
    (time, _b, sub, length) => {
      const root = rootOf(chordAt(truth, time));
      return sub === 1 && root >= 0 ? [{ midi: 36 + root, time, duration: 0.9 * length, velocity: 0.85 }] : [];
    },
    (t) => t < last,
  );
  const kept = partsOf(parts.filter((p) => p.name === "lead" || p.name === "voice"));
  return {
    id: spec.id,
    source: "style",
    style: "electronic",
    parts: [
      { slot: "drums", program: 25, volume: 120, pan: 64, notes: drums },
      { slot: "pads", program: 90, volume: 90, pan: 64, notes: pads, sidechain: true },
      { slot: "bass", program: 38, volume: 110, pan: 64, notes: bass },
      ...kept,
    ],
    truth: { ...truth, groove: "electronic" },
  };
}

/** Acoustic guitar and voice: the song's comp on a steel-string guitar and its voice line, nothing else. */
export function acousticSong(spec: SongSpec): Material {
  const { parts, truth } = composeSong({ ...spec, programs: { comp: [25], voice: [52] } });
  const comp = parts
    .filter((p) => p.name === "comp")
    .map((p) => ({ ...partsOf([p])[0], slot: "guitar-acoustic" as const }));
  const voice = partsOf(parts.filter((p) => p.name === "voice"));
  return {
    id: spec.id,
    source: "style",
    style: "acoustic",
    parts: [...(comp as MaterialPart[]), ...voice],
    truth: { ...truth, groove: `acoustic ${truth.groove}` },
  };
}

/** An orchestral passage: strings comping and holding the pad, a cello bass line, a flute or trumpet lead; no drums, no voice. */
export function orchestralSong(spec: SongSpec): Material {
  const { parts, truth } = composeSong({ ...spec, programs: { comp: [48], pad: [49], bass: [42], lead: [73, 56] } });
  const kept = parts.filter((p) => p.name !== "drums" && p.name !== "voice");
  return {
    id: spec.id,
    source: "style",
    style: "orchestral",
    parts: kept.map((p) => ({ ...(partsOf([p])[0] as MaterialPart), slot: p.name === "bass" ? "bass" : "orchestral" })),
    truth: { ...truth, groove: `orchestral ${truth.groove}` },
  };
}

/**
 * A material's start up to its first bar line at or after `seconds`, with `tail` seconds more for the notes to
 * ring: notes starting later are dropped, longer ones cut, the truth's beats, chords, symbols and sections cut
 * to the excerpt. For the test's short tracks.
 */
export function excerpt(material: Material, seconds: number, tail = 1): Material {
  const { truth } = material;
  const end = truth.beats.find((b) => b.beatNum === 1 && b.time >= seconds)?.time ?? truth.duration;
  const duration = Math.min(truth.duration, Math.round((end + tail) * 100) / 100);
  const cutNotes = (notes: readonly NoteEvent[]) =>
    notes.filter((n) => n.time < end).map((n) => ({ ...n, duration: Math.min(n.duration, duration - n.time) }));
  const cutSpans = <T extends { start: number; end: number }>(spans: readonly T[]): T[] =>
    spans.filter((s) => s.start < duration).map((s) => ({ ...s, end: Math.min(s.end, duration) }));
  return {
    ...material,
    parts: material.parts.map((p) => ({ ...p, notes: cutNotes(p.notes) })).filter((p) => p.notes.length > 0),
    truth: {
      ...truth,
      duration,
      tempoCurve: truth.tempoCurve?.filter((c) => c.time < end) ?? null,
      beats: truth.beats.filter((b) => b.time < end),
      chords: cutSpans(truth.chords),
      chordSymbols: cutSpans(truth.chordSymbols),
      sections: cutSpans(truth.sections),
      parts: truth.parts.map((p) => ({ ...p, notes: cutNotes(p.notes) })),
    },
  };
}

export { slotOfProgram };
