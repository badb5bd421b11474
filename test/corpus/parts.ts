/**
 * The pitched parts, one bar at a time: bass lines per groove, piano/guitar/organ comping, pads, and the lead
 * and voice melodies (chord tones on strong beats, steps of the key's scale between them, two-bar motifs).
 */
import type { Rng } from "../music/synth.ts";
import { melodyScale, mod12 } from "../music/theory.ts";
import type { Chord } from "./harmony.ts";
import type { Timeline } from "./timeline.ts";
import type { Meter, Mode, NoteEvent } from "./types.ts";

export interface Bar {
  /** Score position (beats) of the downbeat. */
  pos: number;
  beatsPerBar: number;
  meter: Meter;
  /** The chord sounding at a score position. */
  chordAt: (pos: number) => Chord;
  /** 0.55 (light) .. 0.9 (full): scales velocities. */
  energy: number;
  barInSection: number;
}

/** A bass line's bar: [position, length, degree] with b = the chord's bass note, r root, 5 fifth, 8 octave,
 * 3 third, 6 sixth (flat seventh on minor chords), a = approach to the next chord's bass. */
type Step = [number, number, "b" | "r" | "3" | "5" | "6" | "8" | "a"];

const BASS: Record<string, Step[]> = {
  rock: [0, 0.5, 1, 1.5, 2, 2.5, 3].map((p): Step => [p, 0.45, "b"]).concat([[3.5, 0.45, "a"]]),
  "rock-ride": [
    [0, 1.4, "b"],
    [1.5, 0.45, "b"],
    [2, 0.9, "5"],
    [3, 0.45, "b"],
    [3.5, 0.45, "a"],
  ],
  ballad: [
    [0, 1.9, "b"],
    [2, 1.4, "5"],
    [3.5, 0.45, "a"],
  ],
  shuffle: [
    [0, 0.9, "b"],
    [1, 0.9, "3"],
    [2, 0.9, "5"],
    [3, 0.9, "6"],
  ],
  "four-on-the-floor": [
    [0.5, 0.4, "b"],
    [1.5, 0.4, "b"],
    [2.5, 0.4, "8"],
    [3.5, 0.4, "b"],
  ],
  funk: [
    [0, 0.4, "b"],
    [0.75, 0.2, "8"],
    [1.5, 0.4, "b"],
    [2.5, 0.2, "5"],
    [2.75, 0.4, "b"],
    [3.5, 0.2, "8"],
    [3.75, 0.2, "a"],
  ],
  "two-step": [
    [0, 0.8, "b"],
    [1, 0.8, "5"],
    [2, 0.8, "b"],
    [3, 0.8, "5"],
  ],
  waltz: [
    [0, 0.9, "b"],
    [2, 0.9, "5"],
  ],
  "3/4-ballad": [
    [0, 1.9, "b"],
    [2, 0.9, "5"],
  ],
  "6/8": [
    [0, 0.95, "b"],
    [1, 0.6, "5"],
    [5 / 3, 0.3, "a"],
  ],
};

/** Held notes for sections without drums. */
const HELD: Record<number, Step[]> = {
  2: [[0, 1.95, "b"]],
  3: [[0, 2.9, "b"]],
  4: [
    [0, 1.95, "b"],
    [2, 1.95, "b"],
  ],
};

/** A pitch class's note in [low, low + 12). */
const place = (pc: number, low: number) => low + mod12(pc - low);

export function bassBar(tl: Timeline, bar: Bar, groove: string, held: boolean): NoteEvent[] {
  const steps = held ? (HELD[bar.beatsPerBar] as Step[]) : (BASS[groove] as Step[]);
  return steps.map(([p, length, degree]) => {
    const pos = bar.pos + p;
    const chord = bar.chordAt(pos);
    const root = chord.triad.root;
    const minor = chord.triad.quality === "minor";
    const low = 31;
    let midi: number;
    if (degree === "a") {
      const target = place(bar.chordAt(pos + length + 0.05).bass, low);
      midi = target === place(chord.bass, low) ? place(root + 7, low) : target - 1;
    } else if (degree === "8") midi = place(chord.bass, low) + 12;
    else {
      const interval = { b: mod12(chord.bass - root), r: 0, "3": minor ? 3 : 4, "5": 7, "6": minor ? 10 : 9 }[degree];
      midi = place(root + interval, low);
    }
    const oddBar = bar.barInSection % 2 === 1;
    if (groove === "waltz" && degree === "b" && oddBar) midi = place(root + 7, low);
    return tl.note(midi, pos, length, 0.75 * bar.energy + 0.2);
  });
}

/** Close position from the chord's bass note upward, starting in [low, low + 12). */
export function voicing(chord: Chord, low: number, size: number): number[] {
  const start = chord.pitchClasses.indexOf(chord.bass);
  const order = chord.pitchClasses.map((_, i) => chord.pitchClasses[(start + i) % chord.pitchClasses.length] as number);
  const notes: number[] = [];
  for (let i = 0; notes.length < size; i++) {
    const pc = order[i % order.length] as number;
    const previous = notes[notes.length - 1];
    notes.push(previous === undefined ? place(pc, low) : previous + mod12(pc - previous - 1) + 1);
  }
  return notes;
}

export type CompStyle = "block" | "pulse" | "offbeat" | "arpeggio" | "strum" | "chank" | "waltz";

/** [position, length] of each chord stroke in a bar, per style and meter. */
function strokes(style: CompStyle, bar: Bar): [number, number][] {
  const n = bar.beatsPerBar;
  const beats = Array.from({ length: n }, (_, i) => i);
  switch (style) {
    case "block":
      return n === 4
        ? [
            [0, 1.95],
            [2, 1.95],
          ]
        : [[0, n - 0.05]];
    case "pulse":
      return beats.flatMap((b): [number, number][] => [
        [b, 0.4],
        [b + 0.5, 0.4],
      ]);
    case "offbeat":
      return beats.map((b): [number, number] => [b + 0.5, 0.3]);
    case "waltz":
      return n === 3
        ? [
            [1, 0.6],
            [2, 0.6],
          ]
        : beats.map((b): [number, number] => [b, 0.8]);
    case "strum":
      return bar.meter === "6/8"
        ? [0, 1, 4 / 3, 5 / 3].map((p): [number, number] => [p, p === 0 ? 0.95 : 0.3])
        : beats.flatMap((b): [number, number][] =>
            b % 2 === 0
              ? [[b, 0.95]]
              : [
                  [b, 0.45],
                  [b + 0.5, 0.45],
                ],
          );
    case "chank":
      return beats.flatMap((b): [number, number][] => [
        [b + 0.25, 0.12],
        [b + 0.75, 0.12],
      ]);
    case "arpeggio":
      return [];
  }
}

export function compBar(tl: Timeline, bar: Bar, style: CompStyle, guitar: boolean): NoteEvent[] {
  const notes: NoteEvent[] = [];
  const velocity = 0.55 * bar.energy + 0.25;
  if (style === "arpeggio") {
    const step = bar.meter === "6/8" ? 1 / 3 : 0.5;
    for (let p = 0; p < bar.beatsPerBar - 1e-9; p += step) {
      const chord = bar.chordAt(bar.pos + p);
      const tones = voicing(chord, guitar ? 45 : 48, 5);
      const index = Math.round(p / step);
      const order = [0, 2, 3, 4, 1, 3, 2, 4];
      notes.push(tl.note(tones[order[index % order.length] as number] as number, bar.pos + p, step * 2, velocity));
    }
    return notes;
  }
  for (const [p, length] of strokes(style, bar)) {
    const chord = bar.chordAt(bar.pos + p);
    const tones = guitar ? voicing(chord, 40, 6) : voicing(chord, 53, 4);
    tones.forEach((midi, i) => {
      // A strum sweeps the strings (a 50th of a beat each: 10 ms at 120 BPM); a pianist's hand is together.
      const spread = guitar ? i * 0.02 : 0;
      notes.push(tl.note(midi, bar.pos + p + spread, length, velocity * (i === tones.length - 1 ? 1 : 0.9)));
    });
    if (!guitar && style === "block") notes.push(tl.note(place(chord.bass, 36), bar.pos + p, length, velocity));
  }
  return notes;
}

/** Sustained chords, re-struck where the chord changes (checked every beat) and at each downbeat. */
export function padBar(tl: Timeline, bar: Bar): NoteEvent[] {
  const notes: NoteEvent[] = [];
  let start = 0;
  for (let b = 1; b <= bar.beatsPerBar; b++) {
    const changes = b === bar.beatsPerBar || bar.chordAt(bar.pos + b).symbol !== bar.chordAt(bar.pos + start).symbol;
    if (!changes) continue;
    const chord = bar.chordAt(bar.pos + start);
    for (const midi of voicing({ ...chord, bass: chord.triad.root }, 55, 4))
      notes.push(tl.note(midi, bar.pos + start, b - start - 0.02, 0.45 * bar.energy + 0.25));
    start = b;
  }
  return notes;
}

/** Rhythms of one melody bar: [position, length] in beats. */
const VOICE_RHYTHMS: Record<Meter, [number, number][][]> = {
  "4/4": [
    [
      [0, 1],
      [1, 1],
      [2, 2],
    ],
    [
      [0, 1.5],
      [1.5, 0.5],
      [2, 1],
      [3, 1],
    ],
    [
      [0.5, 0.5],
      [1, 1],
      [2, 1.5],
      [3.5, 0.5],
    ],
    [
      [0, 2],
      [2, 1],
      [3, 1],
    ],
    [
      [0, 1],
      [1, 0.5],
      [1.5, 0.5],
      [2, 2],
    ],
  ],
  "3/4": [
    [
      [0, 1],
      [1, 1],
      [2, 1],
    ],
    [
      [0, 2],
      [2, 1],
    ],
    [
      [0, 1.5],
      [1.5, 0.5],
      [2, 1],
    ],
  ],
  "6/8": [
    [
      [0, 2 / 3],
      [2 / 3, 1 / 3],
      [1, 1],
    ],
    [
      [0, 1],
      [1, 2 / 3],
      [5 / 3, 1 / 3],
    ],
    [
      [0, 1 / 3],
      [1 / 3, 1 / 3],
      [2 / 3, 1 / 3],
      [1, 1],
    ],
  ],
};

const LEAD_RHYTHMS: Record<Meter, [number, number][][]> = {
  "4/4": [
    [0, 0.5, 1, 2, 2.5, 3].map((p, i, all): [number, number] => [p, (all[i + 1] ?? 4) - p]),
    [0, 0.75, 1, 1.5, 2].map((p, i, all): [number, number] => [p, (all[i + 1] ?? 4) - p]),
    [0, 0.25, 0.5, 1, 1.5, 2, 2.5, 3].map((p, i, all): [number, number] => [p, (all[i + 1] ?? 4) - p]),
    [0, 1.5, 2, 2.5].map((p, i, all): [number, number] => [p, (all[i + 1] ?? 4) - p]),
  ],
  "3/4": [
    [0, 0.5, 1, 2].map((p, i, all): [number, number] => [p, (all[i + 1] ?? 3) - p]),
    [0, 1, 1.5, 2, 2.5].map((p, i, all): [number, number] => [p, (all[i + 1] ?? 3) - p]),
    [0, 2, 2.5].map((p, i, all): [number, number] => [p, (all[i + 1] ?? 3) - p]),
  ],
  "6/8": [[0, 1, 2, 3, 4, 5].map((e): [number, number] => [e / 3, 1 / 3]), ...VOICE_RHYTHMS["6/8"]],
};

export interface MelodyState {
  pitch: number;
  /** This section's two-bar rhythm motif, chosen at its first bar. */
  motif: [number, number][][];
}

/**
 * One bar of a melody. Strong beats (and long notes) take the chord tone nearest the last pitch; the others
 * step through the key's scale as it sounds over the chord. A voice breathes at the end of every second bar.
 */
export function melodyBar(
  tl: Timeline,
  rng: Rng,
  bar: Bar,
  key: { tonic: number; mode: Mode },
  state: MelodyState,
  kind: "lead" | "voice",
  fast: boolean,
): NoteEvent[] {
  const [low, high] = kind === "voice" ? [60, 76] : [67, 88];
  if (bar.barInSection === 0 || state.motif.length === 0) {
    const pool = kind === "voice" || fast ? VOICE_RHYTHMS[bar.meter] : LEAD_RHYTHMS[bar.meter];
    state.motif = [rng.pick(pool), rng.pick(pool)];
  }
  const rhythm = state.motif[bar.barInSection % 2] as [number, number][];
  const breathe = kind === "voice" && bar.barInSection % 2 === 1;
  const notes: NoteEvent[] = [];
  rhythm.forEach(([p, length], i) => {
    const pos = bar.pos + p;
    const chord = bar.chordAt(pos);
    const strong = Number.isInteger(p) && (p === 0 || length >= 1 || (bar.beatsPerBar === 4 && p === 2));
    let pitch: number;
    if (strong) {
      const candidates: number[] = [];
      for (let m = low; m <= high; m++) if (chord.triad.pitchClasses.includes(mod12(m))) candidates.push(m);
      candidates.sort((a, b) => Math.abs(a - state.pitch) - Math.abs(b - state.pitch));
      pitch = (rng.next() < 0.35 ? candidates[1] : candidates[0]) as number;
    } else {
      const scale = melodyScale(key.tonic, key.mode, chord.triad);
      const inScale: number[] = [];
      for (let m = low; m <= high; m++) if (scale.includes(mod12(m))) inScale.push(m);
      let index = inScale.findIndex((m) => m >= state.pitch);
      if (index < 0) index = inScale.length - 1;
      const towardCentre = state.pitch > (low + high) / 2 ? -1 : 1;
      const move = (rng.next() < 0.65 ? towardCentre : -towardCentre) * (rng.next() < 0.75 ? 1 : 2);
      pitch = inScale[Math.max(0, Math.min(inScale.length - 1, index + move))] as number;
    }
    state.pitch = pitch;
    const last = i === rhythm.length - 1;
    const sung = breathe && last ? Math.max(0.3, length - 0.5) : length * (kind === "voice" ? 0.97 : 0.85);
    notes.push(tl.note(pitch, pos, sung, (kind === "voice" ? 0.55 : 0.6) * bar.energy + 0.3));
  });
  return notes;
}
