/**
 * Which pulse is the beat (src/dsp/metrical-level.ts), on onset envelopes made to order: a dense mix's eighths,
 * whose beats lead their off-beats by little, and one onset as loud as the first chord after silence; a dance
 * groove's eighths, whose off-beats are as accented as the beats.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { findMetricalLevel } from "../../src/dsp/metrical-level.ts";
import type { OnsetEnvelope } from "../../src/dsp/onsets.ts";
import { Rng } from "../music/synth.ts";

const FRAME_RATE = 22050 / 512;

/** Onsets per band of one eighth: kick band, snare band, above it, and all bands together. */
interface EighthOnsets {
  low: number;
  mid: number;
  high: number;
  strength: number;
}

/** `seconds` of eighths at `bpm` from 0.5 s on, the k-th eighth's onsets given by `eighth(k)` (k from 0). */
function eighths(bpm: number, seconds: number, eighth: (k: number) => EighthOnsets): OnsetEnvelope {
  const frames = Math.round(seconds * FRAME_RATE);
  const band = () => new Float32Array(frames);
  const [strength, low, mid, high] = [band(), band(), band(), band()];
  const start = 0.5;
  for (let k = 0; start + (k * 30) / bpm < seconds - 0.1; k++) {
    const frame = Math.round((start + (k * 30) / bpm) * FRAME_RATE);
    const onsets = eighth(k);
    low[frame] = onsets.low;
    mid[frame] = onsets.mid;
    high[frame] = onsets.high;
    strength[frame] = onsets.strength;
  }
  const silent = band();
  return { strength, low, mid, high, renewal: silent, loudness: silent, lowLevelDb: silent, frameRate: FRAME_RATE };
}

/**
 * `seconds` of eighths at `bpm`, as a distorted guitar and a kick on every eighth make them: every eighth an onset
 * in each band, the beats' 10 % louder than the off-beats', the backbeat's (beats 2 and 4) mid band 20 % louder,
 * each varied by ±30 %. `first` multiplies the first onset.
 */
function denseEighths(bpm: number, seconds: number, first: number, seed: number): OnsetEnvelope {
  const rng = new Rng(seed);
  const vary = () => rng.uniform(0.7, 1.3);
  return eighths(bpm, seconds, (k) => {
    const beat = k % 2 === 0 ? 1.1 : 1;
    const backbeat = k % 4 === 2 ? 1.2 : 1;
    const level = (k === 0 ? first : 1) * beat;
    return {
      low: level * vary(),
      mid: level * backbeat * vary(),
      high: level * vary(),
      strength: level * backbeat * vary() * 3,
    };
  });
}

test("one onset 30 times a loud hit (the first chord after silence) does not decide the meter of a song's eighths", () => {
  for (let seed = 1; seed <= 16; seed++) {
    const plain = findMetricalLevel(denseEighths(184, 60, 1, seed)).bpm;
    const opened = findMetricalLevel(denseEighths(184, 60, 30, seed)).bpm;
    assert.ok(
      Math.abs(opened / plain - 1) < 0.02,
      `seed ${seed}: ${plain.toFixed(1)} BPM, opened by one loud onset ${opened.toFixed(1)}`,
    );
  }
});

/**
 * `seconds` of a dance groove's eighths at `bpm`: a kick on every beat, a clap with it on beats 2 and 4, and on every
 * off-beat a bass note and an open hi-hat, as loud in the snare band as the clap and in the kick band nearly as the
 * kick; each onset varied by ±15 %.
 */
function danceEighths(bpm: number, seconds: number, seed: number): OnsetEnvelope {
  const rng = new Rng(seed);
  const vary = () => rng.uniform(0.85, 1.15);
  return eighths(bpm, seconds, (k) => {
    const offBeat = k % 2 === 1;
    const clap = k % 4 === 2;
    return {
      low: (offBeat ? 0.8 : 1) * vary(),
      mid: (offBeat || clap ? 1 : 0.4) * vary(),
      high: (offBeat ? 1 : clap ? 0.8 : 0.5) * vary(),
      strength: (offBeat ? 0.7 : clap ? 1.4 : 1) * vary(),
    };
  });
}

test("a dance groove's eighths at 118 BPM, off-beats as accented as the beats, read at 118, not 236; metal's at 216 stay", () => {
  for (let seed = 1; seed <= 8; seed++) {
    const bpm = findMetricalLevel(danceEighths(118, 30, seed)).bpm;
    assert.ok(Math.abs(bpm / 118 - 1) < 0.04, `seed ${seed}: ${bpm.toFixed(1)} BPM`);
    const metal = findMetricalLevel(denseEighths(216, 30, 1, seed)).bpm;
    assert.ok(Math.abs(metal / 216 - 1) < 0.04, `seed ${seed}: metal at 216 read ${metal.toFixed(1)} BPM`);
  }
});
