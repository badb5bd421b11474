/**
 * The rendered corpus: two splits of songs, "development" (60, the methods may be tuned on it) and "held-out"
 * (40, another seed, never tuned on). Specs are stratified (even spreads, exact counts, shuffled) so meter,
 * groove, tempo, key and mode are not correlated. Rendered once into a cache directory named by a hash of this
 * generator's source and the soundfont, reused by every test file and run; tracks are written atomically
 * (rendered into a temporary directory, then renamed), with a lock so two test processes share the work.
 */
import { createHash } from "node:crypto";
import fs from "node:fs";
import fsp from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { Rng } from "../music/synth.ts";
import { GROOVES } from "./drums.ts";
import { renderSong, SOUNDFONT } from "./render.ts";
import type { SongSpec } from "./song.ts";
import type { CorpusTruth, Meter, Mode, Stem } from "./types.ts";

export type Split = "development" | "held-out";

export const SPLITS: Record<Split, { count: number; seed: number }> = {
  development: { count: 60, seed: 18_001 },
  "held-out": { count: 40, seed: 18_002 },
};

/** `count` items cycling through `values`. */
const cycle = <T>(count: number, values: readonly T[]) =>
  Array.from({ length: count }, (_, i) => values[i % values.length] as T);

export function corpusSpecs(split: Split): SongSpec[] {
  const { count, seed } = SPLITS[split];
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
      id: `${split}-${String(i + 1).padStart(3, "0")}`,
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

export interface RenderedTrack {
  id: string;
  dir: string;
  mixture: string;
  stems: Record<Stem, string>;
  truth: CorpusTruth;
}

/** What the rendered audio and truth depend on: this generator's sources and the soundfont. */
const GENERATOR_SOURCES = [
  "corpus.ts",
  "drums.ts",
  "harmony.ts",
  "midi.ts",
  "parts.ts",
  "render.ts",
  "song.ts",
  "timeline.ts",
  "types.ts",
  "../music/synth.ts",
  "../music/theory.ts",
];

/** The cache directory of this generator version. */
export function corpusDir(): string {
  const hash = createHash("sha256");
  const here = path.dirname(new URL(import.meta.url).pathname);
  for (const file of GENERATOR_SOURCES) hash.update(fs.readFileSync(path.join(here, file)));
  hash.update(String(fs.statSync(SOUNDFONT).size));
  return path.join(os.tmpdir(), `mixdown-corpus-${hash.digest("hex").slice(0, 12)}`);
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
/** A lock older than this was left by a killed process. */
const STALE_LOCK_MS = 120_000;

async function ensureRendered(spec: SongSpec, dir: string): Promise<void> {
  const lock = `${dir}.lock`;
  while (!fs.existsSync(dir)) {
    try {
      await fsp.mkdir(lock);
    } catch {
      const age = Date.now() - (fs.statSync(lock, { throwIfNoEntry: false })?.mtimeMs ?? Date.now());
      if (age > STALE_LOCK_MS) await fsp.rm(lock, { recursive: true, force: true });
      else await sleep(250);
      continue;
    }
    try {
      if (fs.existsSync(dir)) break;
      const scratch = `${dir}.tmp-${process.pid}`;
      await fsp.rm(scratch, { recursive: true, force: true });
      await renderSong(spec, scratch);
      await fsp.rename(scratch, dir);
    } finally {
      await fsp.rm(lock, { recursive: true, force: true });
    }
  }
}

/** Every track of a split, rendered (or found in the cache), two at a time. */
export async function renderedCorpus(split: Split, only?: (spec: SongSpec) => boolean): Promise<RenderedTrack[]> {
  const root = corpusDir();
  await fsp.mkdir(root, { recursive: true });
  const specs = corpusSpecs(split).filter((s) => !only || only(s));
  const queue = [...specs];
  const worker = async () => {
    for (let spec = queue.shift(); spec; spec = queue.shift()) await ensureRendered(spec, path.join(root, spec.id));
  };
  await Promise.all([worker(), worker()]);
  return Promise.all(
    specs.map(async (spec): Promise<RenderedTrack> => {
      const dir = path.join(root, spec.id);
      const truth = JSON.parse(await fsp.readFile(path.join(dir, "truth.json"), "utf8")) as CorpusTruth;
      const stems = Object.fromEntries(
        (["drums", "bass", "vocals", "other"] as const).map((s) => [s, path.join(dir, `${s}.wav`)]),
      ) as Record<Stem, string>;
      return { id: spec.id, dir, mixture: path.join(dir, "mixture.wav"), stems, truth };
    }),
  );
}
