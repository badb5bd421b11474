/**
 * The corpus' splits of song specs: "development" (60, the methods may be tuned on it), "tuning" (100, another
 * seed: more material to tune on, so that tuning does not fit the 60 development songs; rendered only by the
 * tuning scripts, never by the test suite) and "held-out" (40, a third seed, never tuned on). Stratified (even spreads, exact counts, shuffled) so meter, groove, tempo,
 * key and mode are not correlated with one another.
 */
import { Rng } from "../music/synth.ts";
import { GROOVES } from "./drums.ts";
import type { SongSpec } from "./song.ts";
import type { Meter, Mode } from "./types.ts";

export type Split = "development" | "tuning" | "held-out";
/** The splits the test suite renders and asserts on. */
export type AssertedSplit = Exclude<Split, "tuning">;

export const SPLITS: Record<Split, { count: number; seed: number }> = {
  development: { count: 60, seed: 18_001 },
  tuning: { count: 100, seed: 18_003 },
  "held-out": { count: 40, seed: 18_002 },
};

/** `count` items cycling through `values`. */
const cycle = <T>(count: number, values: readonly T[]) =>
  Array.from({ length: count }, (_, i) => values[i % values.length] as T);

export function corpusSpecs(split: Split): SongSpec[] {
  const { count, seed } = SPLITS[split];
  return songSpecs(split, count, seed);
}

/** `count` stratified song specs from `seed`, named `<prefix>-001`…; the splits' and the separation model's training songs. */
export function songSpecs(prefix: string, count: number, seed: number): SongSpec[] {
  const rng = new Rng(seed);
  const threes = Math.round(count * 0.25);
  const sixes = Math.round(count * 0.15);
  const meters = rng.shuffle(
    Array.from({ length: count }, (_, i): Meter => (i < threes ? "3/4" : i < threes + sixes ? "6/8" : "4/4")),
  );
  const groovesOf = (meter: Meter) => rng.shuffle(GROOVES.filter((g) => g.meter === meter).map((g) => g.name));
  const pools = new Map<Meter, string[]>();
  const tonics = rng.shuffle(cycle(count, [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11]));
  const modes = rng.shuffle(Array.from({ length: count }, (_, i): Mode => (i % 2 ? "minor" : "major")));
  const tempoPlaces = rng.shuffle(Array.from({ length: count }, (_, i) => (i + 0.5) / count));
  const ritardandos = rng.shuffle(Array.from({ length: count }, (_, i) => i < Math.round(count * 0.25)));
  const pickups = rng.shuffle(Array.from({ length: count }, (_, i) => i < Math.round(count * 0.3)));
  return meters.map((meter, i) => {
    const pool = pools.get(meter) ?? [];
    if (pool.length === 0) pool.push(...groovesOf(meter));
    pools.set(meter, pool);
    const name = pool.pop();
    const groove = GROOVES.find((g) => g.name === name) as (typeof GROOVES)[number];
    const [low, high] = groove.bpm;
    const beatsPerBar = meter === "4/4" ? 4 : meter === "3/4" ? 3 : 2;
    return {
      id: `${prefix}-${String(i + 1).padStart(3, "0")}`,
      seed: seed * 1000 + i,
      bpm: Math.round(low + (high - low) * (tempoPlaces[i] as number)),
      meter,
      groove: groove.name,
      tonic: tonics[i] as number,
      mode: modes[i] as Mode,
      ritardando: ritardandos[i] as boolean,
      pickupBeats: pickups[i] ? 1 + ((i * 7) % Math.min(2, beatsPerBar - 1)) : 0,
    };
  });
}
