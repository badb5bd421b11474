/**
 * The fixed accuracy suite: 48 specs whose properties are stratified (even spreads, exact counts) and then
 * shuffled independently with a fixed seed, so tempo, meter, key, timbre, noise, drift and jitter are not
 * correlated with one another. Deterministic: every call returns the same list.
 */
import type { Mode, TrackSpec } from "./generator.ts";
import { TIMBRES } from "./plan.ts";
import { Rng } from "./synth.ts";

const COUNT = 48;

const MAJOR_PROGRESSIONS = [
  ["I", "V", "vi", "IV"],
  ["I", "IV", "V", "I"],
  ["I", "vi", "IV", "V"],
  ["I", "vi", "ii", "V"],
  ["I", "IV", "vi", "V"],
  ["I", "iii", "IV", "V"],
];

/** Mostly with the major dominant V (raised leading tone), which tells a minor key from its relative major. */
const MINOR_PROGRESSIONS = [
  ["i", "iv", "V", "i"],
  ["i", "VI", "III", "VII"],
  ["i", "VII", "VI", "V"],
  ["i", "VI", "iv", "V"],
  ["i", "III", "iv", "V"],
  ["i", "iv", "v", "i"],
];

/** `count` values evenly spread over [low, high], rounded to `step`. */
function spread(count: number, low: number, high: number, step: number): number[] {
  return Array.from({ length: count }, (_, i) => Math.round((low + ((high - low) * i) / (count - 1)) / step) * step);
}

/** `count` items cycling through `values`. */
function cycle<T>(count: number, values: readonly T[]): T[] {
  return Array.from({ length: count }, (_, i) => values[i % values.length] as T);
}

export function suiteSpecs(): TrackSpec[] {
  const rng = new Rng(20_260_512);
  const bpms = rng.shuffle(spread(COUNT, 60, 200, 1));
  const meters = rng.shuffle(Array.from({ length: COUNT }, (_, i): 3 | 4 => (i < 16 ? 3 : 4)));
  const tonics = rng.shuffle(cycle(COUNT, [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11]));
  const modes = rng.shuffle(Array.from({ length: COUNT }, (_, i): Mode => (i < 24 ? "minor" : "major")));
  const timbres = rng.shuffle(cycle(COUNT, TIMBRES));
  const durations = rng.shuffle(spread(COUNT, 20, 40, 1));
  const noises = rng.shuffle(spread(COUNT, -40, -20, 0.5));
  const drifts = rng.shuffle([...cycle(8, [0]), ...spread(COUNT - 8, -2, 2, 0.1)]);
  const jitters = rng.shuffle(spread(COUNT, 0, 10, 0.5));
  const twoBarChords = rng.shuffle(Array.from({ length: COUNT }, (_, i) => i < 12));
  const majors = rng.shuffle(
    cycle(
      24,
      MAJOR_PROGRESSIONS.map((_, i) => i),
    ),
  );
  const minors = rng.shuffle(
    cycle(
      24,
      MINOR_PROGRESSIONS.map((_, i) => i),
    ),
  );

  return Array.from({ length: COUNT }, (_, i): TrackSpec => {
    const mode = modes[i] as Mode;
    const progression =
      mode === "major" ? MAJOR_PROGRESSIONS[majors.pop() as number] : MINOR_PROGRESSIONS[minors.pop() as number];
    return {
      seed: 1000 + i,
      bpm: bpms[i] as number,
      meter: meters[i] as 3 | 4,
      durationSeconds: durations[i] as number,
      tonic: tonics[i] as number,
      mode,
      progression: [...(progression as string[])],
      barsPerChord: twoBarChords[i] ? 2 : 1,
      jitterMs: jitters[i] as number,
      tempoDriftPercent: Number((drifts[i] as number).toFixed(1)),
      noiseDb: noises[i] as number,
      timbre: timbres[i] as TrackSpec["timbre"],
    };
  });
}
