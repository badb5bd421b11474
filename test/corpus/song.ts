/**
 * A song of the corpus from its spec: a form of sections (intro, verse, chorus, bridge, outro) that change
 * the instrumentation, the drums and the progression; an optional pickup and ritardando; and the ground
 * truth taken from the score (the grid before humanising), the notes as written to MIDI.
 */
import { Rng } from "../music/synth.ts";
import { keyLabel, scaleOf } from "../music/theory.ts";
import { fillHits, GM, GROOVES, type Groove, gridHits, HALF_TIME } from "./drums.ts";
import { type Chord, PROGRESSIONS, realise } from "./harmony.ts";
import { type Bar, bassBar, type CompStyle, compBar, type MelodyState, melodyBar, padBar, voicing } from "./parts.ts";
import { Timeline } from "./timeline.ts";
import {
  type CorpusTruth,
  type Meter,
  type Mode,
  type NoteEvent,
  type Part,
  type PartName,
  type SectionLabel,
  STEM_OF,
} from "./types.ts";

export interface SongSpec {
  id: string;
  seed: number;
  /** Beats per minute of the beat as counted (the dotted quarter in 6/8). */
  bpm: number;
  meter: Meter;
  groove: string;
  tonic: number;
  mode: Mode;
  ritardando: boolean;
  pickupBeats: number;
  /** GM programs to draw a part's instrument from instead of the usual ones (targeted training songs). */
  programs?: Partial<Record<"bass" | "comp" | "pad" | "lead" | "voice", readonly number[]>>;
  /** Mod wheel values (CC 1, vibrato) to draw a part's from; parts not named get none (targeted training songs). */
  modulation?: Partial<Record<PartName, readonly number[]>>;
  /** Chorus send values (CC 93) to draw a part's from; parts not named get none (targeted training songs). */
  chorus?: Partial<Record<PartName, readonly number[]>>;
}

type DrumMode = "none" | "light" | "full" | "half";

interface Section {
  label: SectionLabel;
  bars: number;
  drums: DrumMode;
  parts: Set<PartName>;
  progression: Chord[];
  energy: number;
}

const FORMS: SectionLabel[][] = [
  ["intro", "verse", "chorus", "verse", "chorus", "outro"],
  ["intro", "verse", "chorus", "bridge", "chorus", "outro"],
  ["verse", "chorus", "verse", "chorus", "bridge", "outro"],
  ["intro", "verse", "verse", "chorus", "bridge", "outro"],
];

/** Songs are cut (sections dropped before the outro) to at most this long, to keep the test time down. */
const MAX_SCORE_SECONDS = 32;
/** The last chord rings this long after the final hit, then 1 s of release and reverb. */
const RING_SECONDS = 1.8;
const TAIL_SECONDS = 1;
/** A ritardando slows the last two bars down to this share of the tempo. */
const RITARDANDO_TO = 0.72;

const COMP_STYLES: Record<string, { keys: CompStyle[]; guitar: CompStyle[] }> = {
  rock: { keys: ["pulse", "block"], guitar: ["strum"] },
  "rock-ride": { keys: ["pulse", "block"], guitar: ["strum"] },
  ballad: { keys: ["arpeggio", "block"], guitar: ["arpeggio", "strum"] },
  shuffle: { keys: ["offbeat", "pulse"], guitar: ["strum", "offbeat"] },
  "four-on-the-floor": { keys: ["offbeat", "block"], guitar: ["offbeat", "chank"] },
  funk: { keys: ["offbeat", "block"], guitar: ["chank"] },
  "two-step": { keys: ["pulse", "waltz"], guitar: ["strum"] },
  waltz: { keys: ["waltz"], guitar: ["waltz", "strum"] },
  "3/4-ballad": { keys: ["arpeggio", "block"], guitar: ["arpeggio"] },
  "6/8": { keys: ["arpeggio", "block"], guitar: ["arpeggio", "strum"] },
};

/** The GM programs each part family draws its instrument from. */
export const PROGRAMS = {
  piano: [0, 1, 2, 4, 5],
  guitar: [24, 25, 26, 27, 29],
  organ: [16, 17, 18],
  bass: [32, 33, 34, 35, 38, 39],
  pad: [48, 49, 50, 88, 89, 61],
  lead: [73, 65, 56, 80, 81, 71, 40, 11, 66, 68, 30],
  voice: [52, 53, 54, 85],
};

const CHANNEL: Record<PartName, number> = { bass: 0, comp: 1, pad: 2, lead: 3, voice: 4, drums: 9 };

function sectionPlan(label: SectionLabel, rng: Rng, meter: Meter): Omit<Section, "bars" | "progression"> {
  const parts = new Set<PartName>(["comp"]);
  const add = (part: PartName, chance = 1) => {
    if (rng.next() < chance) parts.add(part);
  };
  let drums: DrumMode;
  switch (label) {
    case "intro": {
      const r = rng.next();
      drums = r < 0.4 ? "none" : r < 0.7 ? "light" : "full";
      add("pad", 0.5);
      add("lead", 0.6);
      add("bass", drums === "none" ? 0.5 : 1);
      return { label, drums, parts, energy: 0.6 };
    }
    case "verse":
      add("bass");
      add("voice");
      add("pad", 0.3);
      return { label, drums: "light", parts, energy: 0.65 };
    case "chorus":
      add("bass");
      add("voice");
      add("pad");
      add("lead", 0.25);
      return { label, drums: "full", parts, energy: 0.9 };
    case "bridge": {
      const r = rng.next();
      drums = r < 0.35 ? "none" : r < 0.65 && meter === "4/4" ? "half" : r < 0.8 ? "light" : "full";
      add("bass", 0.7);
      add("pad");
      add("lead");
      return { label, drums, parts, energy: 0.75 };
    }
    case "outro":
      add("bass");
      add("pad");
      parts.add(rng.next() < 0.5 ? "lead" : "voice");
      return { label, drums: rng.next() < 0.7 ? "full" : "light", parts, energy: 0.85 };
  }
}

export function composeSong(spec: SongSpec): { parts: Part[]; truth: CorpusTruth } {
  const rng = new Rng(spec.seed);
  const groove = GROOVES.find((g) => g.name === spec.groove) as Groove;
  if (!groove || groove.meter !== spec.meter)
    throw new RangeError(`${spec.id}: groove ${spec.groove} in ${spec.meter}`);
  const bpb = spec.meter === "4/4" ? 4 : spec.meter === "3/4" ? 3 : 2;
  const barSeconds = (bpb * 60) / spec.bpm;
  const sectionBars = Math.max(2, Math.min(8, 2 * Math.round(6 / barSeconds / 2)));
  const barsOf = (label: SectionLabel) =>
    label === "intro" || label === "outro" ? Math.max(1, sectionBars / 2) : sectionBars;
  const form = [...rng.pick(FORMS)];
  while (form.length > 3 && form.reduce((a, l) => a + barsOf(l), 0) * barSeconds > MAX_SCORE_SECONDS)
    form.splice(form.length - 2, 1);

  const library = PROGRESSIONS[spec.mode];
  const chordsOf = (tokens: string[]) => tokens.map((t) => realise(t, spec.tonic, spec.mode));
  const verse = chordsOf(rng.pick(library.verse));
  const chorus = chordsOf(rng.pick(library.chorus));
  const progressions: Record<SectionLabel, Chord[]> = {
    intro: rng.next() < 0.5 ? verse : chorus,
    verse,
    chorus,
    bridge: chordsOf(rng.pick(library.bridge)),
    outro: chorus,
  };
  const plans = new Map<SectionLabel, Omit<Section, "bars" | "progression">>();
  const sections: Section[] = form.map((label) => {
    if (!plans.has(label)) plans.set(label, sectionPlan(label, rng, spec.meter));
    const plan = plans.get(label) as Omit<Section, "bars" | "progression">;
    return { ...plan, parts: new Set(plan.parts), bars: barsOf(label), progression: progressions[label] };
  });
  const beatsPerChord = barSeconds >= 3.2 && bpb === 4 ? 2 : barSeconds < 1.5 ? 2 * bpb : bpb;

  // The grid: beat 0 is the first pickup beat (or the first downbeat); the final hit is one more downbeat.
  const pickup = spec.pickupBeats;
  const totalBars = sections.reduce((a, s) => a + s.bars, 0);
  const finalBeat = pickup + totalBars * bpb;
  const ritardandoFrom = spec.ritardando ? finalBeat - 2 * bpb : Number.POSITIVE_INFINITY;
  const bpmOfBeat = (k: number) =>
    k < ritardandoFrom
      ? spec.bpm
      : spec.bpm * (1 - ((1 - RITARDANDO_TO) * Math.min(k - ritardandoFrom + 1, 2 * bpb)) / (2 * bpb));
  const leadIn = rng.uniform(0.3, 0.8);
  const tl = new Timeline(leadIn, finalBeat + 2, bpmOfBeat, groove.swing === true, spec.seed + 1);

  const finalChord = realise(spec.mode === "major" ? "I" : "i", spec.tonic, spec.mode);
  const slots: { start: number; end: number; chord: Chord }[] = [];
  const sectionStarts: number[] = [];
  let at = pickup;
  for (const section of sections) {
    sectionStarts.push(at);
    const end = at + section.bars * bpb;
    for (let i = 0; at + i * beatsPerChord < end; i++) {
      const chord = section.progression[i % section.progression.length] as Chord;
      slots.push({ start: at + i * beatsPerChord, end: Math.min(end, at + (i + 1) * beatsPerChord), chord });
    }
    at = end;
  }
  const chordAt = (pos: number): Chord => {
    if (pos >= finalBeat) return finalChord;
    return (slots.find((s) => pos >= s.start - 1e-9 && pos < s.end - 1e-9) ?? slots[0])?.chord as Chord;
  };

  // Instruments.
  const r = rng.next();
  const compFamily =
    spec.groove === "funk" ? (r < 0.6 ? "guitar" : "piano") : r < 0.45 ? "piano" : r < 0.85 ? "guitar" : "organ";
  const styles = COMP_STYLES[spec.groove] as { keys: CompStyle[]; guitar: CompStyle[] };
  const compStyle: CompStyle =
    compFamily === "organ" ? "block" : rng.pick(compFamily === "guitar" ? styles.guitar : styles.keys);
  const programs: Record<PartName, number> = {
    drums: rng.pick(groove.kits),
    bass: rng.pick(spec.programs?.bass ?? PROGRAMS.bass),
    comp: rng.pick(spec.programs?.comp ?? PROGRAMS[compFamily]),
    pad: rng.pick(spec.programs?.pad ?? PROGRAMS.pad),
    lead: rng.pick(spec.programs?.lead ?? PROGRAMS.lead),
    voice: rng.pick(spec.programs?.voice ?? PROGRAMS.voice),
  };
  const compPan = rng.next() < 0.5 ? 40 : 88;
  // Channel volumes (CC 7, whose gain is about (value / 127)²) for a pop balance: voice and drums in front.
  const mix: Record<PartName, { volume: number; pan: number }> = {
    drums: { volume: 118 + rng.int(10), pan: 64 },
    bass: { volume: 100 + rng.int(16), pan: 64 },
    comp: { volume: 62 + rng.int(16), pan: compPan },
    pad: { volume: 46 + rng.int(16), pan: 64 },
    lead: { volume: 70 + rng.int(16), pan: 128 - compPan },
    voice: { volume: 112 + rng.int(16), pan: 64 },
  };
  const notes: Record<PartName, NoteEvent[]> = { drums: [], bass: [], comp: [], pad: [], lead: [], voice: [] };
  const key = { tonic: spec.tonic, mode: spec.mode };
  const fast = spec.bpm > 140;
  const leadState: MelodyState = { pitch: 76, motif: [] };
  const voiceState: MelodyState = { pitch: 67, motif: [] };
  const drumHits = (hits: { pos: number; key: number; velocity: number }[], base: number, energy: number) => {
    for (const h of hits) notes.drums.push(tl.note(h.key, base + h.pos, 0.25, h.velocity * (0.7 + 0.3 * energy)));
  };

  if (pickup > 0) {
    const scale = scaleOf(spec.tonic, spec.mode);
    const degrees = pickup === 1 ? [4] : [2, 4];
    degrees.forEach((d, j) => {
      notes.lead.push(tl.note(72 + (((scale[d] as number) - 72 + 120) % 12), j, 0.9, 0.7));
    });
    const first = sections[0] as Section;
    if (first.drums !== "none") drumHits(fillHits(pickup, pickup, groove.steps), 0, 0.6);
  }

  sections.forEach((section, si) => {
    const next = sections[si + 1];
    for (let b = 0; b < section.bars; b++) {
      const pos = (sectionStarts[si] as number) + b * bpb;
      const bar: Bar = { pos, beatsPerBar: bpb, meter: spec.meter, chordAt, energy: section.energy, barInSection: b };
      const lastBar = b === section.bars - 1;
      const fillNext = lastBar && next !== undefined && next.drums !== "none" && rng.next() < 0.6;
      if (section.drums !== "none") {
        const grid = section.drums === "half" ? HALF_TIME : section.drums === "full" ? groove.full : groove.light;
        let hits = gridHits(grid, section.drums === "half" ? 4 : groove.steps);
        if (fillNext) {
          const beats = bpb === 2 || rng.next() < 0.5 ? 1 : 2;
          hits = hits.filter((h) => h.pos < bpb - beats - 1e-9).concat(fillHits(bpb, beats, groove.steps));
        }
        if (b === 0 && section.drums !== "light") {
          hits = hits.filter((h) => h.pos > 0 || (h.key !== GM.closedHat && h.key !== GM.ride));
          hits.push({ pos: 0, key: si % 2 ? GM.crash : GM.crash2, velocity: 0.85 });
        }
        drumHits(hits, pos, section.energy);
      } else if (fillNext) drumHits(fillHits(bpb, 1, groove.steps), pos, 0.7);
      if (section.parts.has("bass")) notes.bass.push(...bassBar(tl, bar, groove.name, section.drums === "none"));
      notes.comp.push(...compBar(tl, bar, compStyle, compFamily === "guitar"));
      if (section.parts.has("pad")) notes.pad.push(...padBar(tl, bar));
      if (section.parts.has("lead")) notes.lead.push(...melodyBar(tl, rng, bar, key, leadState, "lead", fast));
      if (section.parts.has("voice")) notes.voice.push(...melodyBar(tl, rng, bar, key, voiceState, "voice", fast));
    }
  });

  // The final hit: every part of the outro on the tonic chord, ringing.
  const outro = sections[sections.length - 1] as Section;
  const hold = (RING_SECONDS * bpmOfBeat(finalBeat)) / 60;
  if (outro.drums !== "none")
    drumHits(
      [
        { pos: 0, key: GM.kick, velocity: 0.9 },
        { pos: 0, key: GM.crash, velocity: 0.9 },
      ],
      finalBeat,
      1,
    );
  for (const midi of voicing(finalChord, compFamily === "guitar" ? 40 : 53, compFamily === "guitar" ? 6 : 4))
    notes.comp.push(tl.note(midi, finalBeat, hold, 0.75));
  if (outro.parts.has("bass")) notes.bass.push(tl.note(31 + ((spec.tonic - 31 + 120) % 12), finalBeat, hold, 0.8));
  if (outro.parts.has("pad"))
    for (const midi of voicing(finalChord, 55, 4)) notes.pad.push(tl.note(midi, finalBeat, hold, 0.6));
  for (const melody of ["lead", "voice"] as const)
    if (outro.parts.has(melody))
      notes[melody].push(tl.note((melody === "voice" ? 60 : 72) + spec.tonic, finalBeat, hold, 0.7));

  const end = tl.time(finalBeat) + RING_SECONDS + TAIL_SECONDS;
  const duration = Math.round(end * 100) / 100;
  const parts: Part[] = (Object.keys(notes) as PartName[])
    .filter((name) => notes[name].length > 0)
    .map((name) => ({
      name,
      program: programs[name],
      channel: CHANNEL[name],
      ...mix[name],
      ...(spec.modulation?.[name] && { modulation: rng.pick(spec.modulation[name]) }),
      ...(spec.chorus?.[name] && { chorus: rng.pick(spec.chorus[name]) }),
      notes: notes[name].sort((a, b) => a.time - b.time || a.midi - b.midi),
    }));
  const truth: CorpusTruth = {
    ...truthOf(spec, { tl, bpb, pickup, finalBeat, duration, slots, finalChord, sections, sectionStarts, groove }),
    parts: parts.map((p) => ({ name: p.name, stem: STEM_OF[p.name], program: p.program, notes: p.notes })),
  };
  return { parts, truth };
}

function merged<T extends { start: number; end: number }>(items: T[], same: (a: T, b: T) => boolean): T[] {
  const out: T[] = [];
  for (const item of items) {
    const last = out[out.length - 1];
    if (last && same(last, item)) last.end = item.end;
    else out.push({ ...item });
  }
  return out;
}

function truthOf(
  spec: SongSpec,
  s: {
    tl: Timeline;
    bpb: number;
    pickup: number;
    finalBeat: number;
    duration: number;
    slots: { start: number; end: number; chord: Chord }[];
    finalChord: Chord;
    sections: Section[];
    sectionStarts: number[];
    groove: Groove;
  },
): Omit<CorpusTruth, "parts"> {
  const { tl, bpb, pickup, finalBeat, duration } = s;
  const t = (pos: number) => tl.time(pos);
  const beats = Array.from({ length: finalBeat + 1 }, (_, k) => ({
    time: t(k),
    beatNum: ((((k - pickup) % bpb) + bpb) % bpb) + 1,
  }));
  const spans = [
    { start: 0, end: t(pickup), chord: null as Chord | null },
    ...s.slots.map((slot) => ({ start: t(slot.start), end: t(slot.end), chord: slot.chord as Chord | null })),
    { start: t(finalBeat), end: duration, chord: s.finalChord as Chord | null },
  ];
  const chords = merged(
    spans.map((x) => ({ start: x.start, end: x.end, chord: x.chord?.triad.label ?? "N" })),
    (a, b) => a.chord === b.chord,
  );
  const chordSymbols = merged(
    spans.map((x) => ({ start: x.start, end: x.end, symbol: x.chord?.symbol ?? "N" })),
    (a, b) => a.symbol === b.symbol,
  );
  const sections = s.sections.map((section, i) => ({
    start: i === 0 ? 0 : t(s.sectionStarts[i] as number),
    end: i === s.sections.length - 1 ? duration : t(s.sectionStarts[i + 1] as number),
    label: section.label,
  }));
  const slows = spec.ritardando;
  return {
    id: spec.id,
    seed: spec.seed,
    duration,
    meter: spec.meter,
    beatsPerBar: bpb as 2 | 3 | 4,
    bpm: spec.bpm,
    tempoCurve: slows
      ? beats.slice(0, -1).map((b, k) => ({ time: b.time, bpm: 60 / ((beats[k + 1]?.time as number) - b.time) }))
      : null,
    groove: s.groove.name,
    swing: s.groove.swing === true,
    pickupBeats: pickup,
    beats,
    key: keyLabel(spec.tonic, spec.mode),
    chords,
    chordSymbols,
    sections,
  };
}
