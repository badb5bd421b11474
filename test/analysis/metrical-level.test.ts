/**
 * Which pulse is the beat (src/dsp/metrical-level.ts), on onset envelopes made to order: a dense mix's eighths,
 * whose beats lead their off-beats by little, and one onset as loud as the first chord after silence.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { findMetricalLevel } from "../../src/dsp/metrical-level.ts";
import type { OnsetEnvelope } from "../../src/dsp/onsets.ts";
import { Rng } from "../music/synth.ts";

const FRAME_RATE = 22050 / 512;

/**
 * `seconds` of eighths at `bpm`, as a distorted guitar and a kick on every eighth make them: every eighth an onset
 * in each band, the beats' 10 % louder than the off-beats', the backbeat's (beats 2 and 4) mid band 20 % louder,
 * each varied by ±30 %. `first` multiplies the first onset.
 */
function denseEighths(bpm: number, seconds: number, first: number, seed: number): OnsetEnvelope {
  const rng = new Rng(seed);
  const frames = Math.round(seconds * FRAME_RATE);
  const band = () => new Float32Array(frames);
  const strength = band();
  const low = band();
  const mid = band();
  const high = band();
  const start = 0.5;
  for (let k = 0; start + (k * 30) / bpm < seconds - 0.1; k++) {
    const frame = Math.round((start + (k * 30) / bpm) * FRAME_RATE);
    const beat = k % 2 === 0 ? 1.1 : 1;
    const backbeat = k % 4 === 2 ? 1.2 : 1;
    const level = (k === 0 ? first : 1) * beat;
    const vary = () => rng.uniform(0.7, 1.3);
    low[frame] = level * vary();
    mid[frame] = level * backbeat * vary();
    high[frame] = level * vary();
    strength[frame] = level * backbeat * vary() * 3;
  }
  const silent = new Float32Array(frames);
  return {
    strength,
    low,
    mid,
    high,
    renewal: silent,
    loudness: silent,
    lowLevelDb: silent,
    frameRate: FRAME_RATE,
  };
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
