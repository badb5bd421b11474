/**
 * GM drum grooves as step grids, one line per instrument: "X" accent, "x" normal, "o" soft, "g" ghost, "." rest.
 * A grid has `steps` steps per beat (4 = sixteenths, 3 = triplets, or eighths of a 6/8 dotted-quarter beat).
 */
import type { Meter } from "./types.ts";

/** GM percussion keys. */
export const GM = {
  kick: 36,
  kick2: 35,
  sideStick: 37,
  snare: 38,
  clap: 39,
  snare2: 40,
  closedHat: 42,
  pedalHat: 44,
  openHat: 46,
  crash: 49,
  ride: 51,
  rideBell: 53,
  tambourine: 54,
  crash2: 57,
  tomHigh: 50,
  tomHighMid: 48,
  tomLowMid: 47,
  tomLow: 45,
  tomFloor: 43,
  tomFloorLow: 41,
} as const;

export interface Groove {
  name: string;
  meter: Meter;
  /** Steps per beat. */
  steps: number;
  /** Tempo range (beats per minute) where the groove is idiomatic. */
  bpm: [number, number];
  swing?: boolean;
  /** Played in lighter sections (verses, intros with drums). */
  light: Record<number, string>;
  /** Played in choruses and outros. */
  full: Record<number, string>;
  /** Drum kit presets (bank 128) that suit it. */
  kits: number[];
}

const { kick, snare, closedHat, openHat, ride, sideStick, clap, pedalHat, tambourine } = GM;

export const GROOVES: Groove[] = [
  {
    name: "rock",
    meter: "4/4",
    steps: 4,
    bpm: [76, 176],
    light: { [kick]: "x.......x.x.....", [sideStick]: "....x.......x...", [closedHat]: "x.o.x.o.x.o.x.o." },
    full: { [kick]: "X.......x.x.....", [snare]: "....X.......X...", [closedHat]: "x.x.x.x.x.x.x.x." },
    kits: [0, 8, 16],
  },
  {
    name: "rock-ride",
    meter: "4/4",
    steps: 4,
    bpm: [90, 170],
    light: { [kick]: "x.....x.x.......", [snare]: "....x.......x...", [closedHat]: "x.x.x.x.x.x.x.x." },
    full: {
      [kick]: "X.....x.x.......",
      [snare]: "....X.......X...",
      [ride]: "x.x.x.x.x.x.x.x.",
      [pedalHat]: "..x...x...x...x.",
    },
    kits: [0, 8, 16],
  },
  {
    name: "ballad",
    meter: "4/4",
    steps: 4,
    bpm: [60, 90],
    light: { [kick]: "x.......x.......", [sideStick]: "....x.......x...", [closedHat]: "x.o.x.o.x.o.x.o." },
    full: { [kick]: "x.....o.x.......", [snare]: "....X.......X...", [closedHat]: "xoxoxoxoxoxoxoxo" },
    kits: [0, 8, 32],
  },
  {
    name: "shuffle",
    meter: "4/4",
    steps: 3,
    bpm: [64, 150],
    swing: true,
    light: { [kick]: "x.....x.....", [sideStick]: "...x.....x..", [ride]: "x.xx.xx.xx.x" },
    full: { [kick]: "x....ox.....", [snare]: "...X.....X..", [closedHat]: "x.xx.xx.xx.x" },
    kits: [0, 32, 40],
  },
  {
    name: "four-on-the-floor",
    meter: "4/4",
    steps: 4,
    bpm: [100, 150],
    light: { [kick]: "x...x...x...x...", [closedHat]: "..x...x...x...x." },
    full: {
      [kick]: "X...x...X...x...",
      [clap]: "....x.......x...",
      [closedHat]: "o.o.o.o.o.o.o.o.",
      [openHat]: "..x...x...x...x.",
    },
    kits: [24, 25, 0],
  },
  {
    name: "funk",
    meter: "4/4",
    steps: 4,
    bpm: [80, 120],
    light: { [kick]: "x.....x...x.....", [snare]: "....x..g.g..x...", [closedHat]: "xoxoxoxoxoxoxoxo" },
    full: { [kick]: "x.....x.x.....x.", [snare]: "....X..g.g..X..g", [closedHat]: "xoxoxoxoxoxoXoxo" },
    kits: [0, 8, 24],
  },
  {
    name: "two-step",
    meter: "4/4",
    steps: 4,
    bpm: [150, 200],
    light: { [kick]: "x.......x.......", [snare]: "....x.......x...", [closedHat]: "x...x...x...x..." },
    full: { [kick]: "X.......x.......", [snare]: "....X.......X...", [ride]: "x.x.x.x.x.x.x.x." },
    kits: [0, 16, 8],
  },
  {
    name: "waltz",
    meter: "3/4",
    steps: 4,
    bpm: [84, 200],
    light: { [kick]: "x...........", [sideStick]: "....o...o...", [closedHat]: "x...x...x..." },
    full: { [kick]: "X...........", [snare]: "....x...x...", [ride]: "x...x.x.x...", [pedalHat]: "....x...x..." },
    kits: [0, 32, 40],
  },
  {
    name: "3/4-ballad",
    meter: "3/4",
    steps: 4,
    bpm: [60, 110],
    light: { [kick]: "x...........", [sideStick]: "........x...", [closedHat]: "x.o.x.o.x.o." },
    full: {
      [kick]: "x.....o.....",
      [snare]: "........X...",
      [closedHat]: "x.x.x.x.x.x.",
      [tambourine]: "....o.......",
    },
    kits: [0, 8, 40],
  },
  {
    name: "6/8",
    meter: "6/8",
    steps: 3,
    bpm: [44, 96],
    light: { [kick]: "x.....", [sideStick]: "...x..", [closedHat]: "xoxxox" },
    full: { [kick]: "X....o", [snare]: "...X..", [closedHat]: "xoxxox" },
    kits: [0, 8, 32],
  },
];

/** The second half of a 4/4 bridge can switch to half time: snare on 3 only. */
export const HALF_TIME: Record<number, string> = {
  [kick]: "x.........x.....",
  [snare]: "........X.......",
  [closedHat]: "x.x.x.x.x.x.x.x.",
};

export const VELOCITY: Record<string, number> = { X: 1, x: 0.8, o: 0.55, g: 0.3 };

/** Hits of one bar of a grid: position in beats within the bar, GM key, velocity 0..1. */
export function gridHits(
  grid: Record<number, string>,
  steps: number,
): { pos: number; key: number; velocity: number }[] {
  const hits: { pos: number; key: number; velocity: number }[] = [];
  for (const [key, line] of Object.entries(grid)) {
    [...line].forEach((symbol, step) => {
      const velocity = VELOCITY[symbol];
      if (velocity !== undefined) hits.push({ pos: step / steps, key: Number(key), velocity });
    });
  }
  return hits;
}

/** A fill over the last `beats` beats of a bar: toms falling from high to floor, the snare leading in. */
export function fillHits(
  beatsPerBar: number,
  beats: number,
  steps: number,
): { pos: number; key: number; velocity: number }[] {
  const toms = [GM.snare, GM.tomHigh, GM.tomHighMid, GM.tomLow, GM.tomFloor];
  const count = beats * (steps === 3 ? 3 : 4);
  const start = beatsPerBar - beats;
  const per = steps === 3 ? 3 : 4;
  return Array.from({ length: count }, (_, i) => ({
    pos: start + i / per,
    key: toms[Math.min(toms.length - 1, Math.floor((i * toms.length) / count))] as number,
    velocity: 0.65 + (0.3 * i) / count,
  }));
}
