/**
 * The rendered corpus (specs.ts, song.ts, render.ts), rendered once into a cache directory named by a hash of
 * the generator's sources and the soundfont, and reused by every test file and run. Tracks are written
 * atomically (rendered into a temporary directory, then renamed), with a lock so two test processes share
 * the work. Corpus directories of other generator versions unused for a day are deleted (2.6 GB each).
 */
import { createHash } from "node:crypto";
import fs from "node:fs";
import fsp from "node:fs/promises";
import path from "node:path";
import { cacheDirOf, markUsedAndPrune, renderOnce } from "../helpers/render-cache.ts";
import { renderSong, SOUNDFONT } from "./render.ts";
import type { SongSpec } from "./song.ts";
import { corpusSpecs, type Split } from "./specs.ts";
import { type CorpusTruth, STEMS, type Stem } from "./types.ts";

export { type AssertedSplit, corpusSpecs, SPLITS, type Split } from "./specs.ts";

export interface RenderedTrack {
  id: string;
  dir: string;
  mixture: string;
  stems: Record<Stem, string>;
  truth: CorpusTruth;
}

/** What the rendered audio and truth depend on: this generator's sources and the soundfont. */
const GENERATOR_SOURCES = [
  "drums.ts",
  "harmony.ts",
  "midi.ts",
  "parts.ts",
  "render.ts",
  "song.ts",
  "specs.ts",
  "timeline.ts",
  "types.ts",
  "../music/synth.ts",
  "../music/theory.ts",
];

/** The cache directory of this generator version. */
const PREFIX = "mixdown-corpus-";
/** Other versions' corpus directories are deleted when unused for this long. */
const STALE_CORPUS_MS = 24 * 3600_000;

export function corpusDir(): string {
  const hash = createHash("sha256");
  const here = path.dirname(new URL(import.meta.url).pathname);
  for (const file of GENERATOR_SOURCES) hash.update(fs.readFileSync(path.join(here, file)));
  hash.update(String(fs.statSync(SOUNDFONT).size));
  return cacheDirOf(PREFIX, hash.digest("hex"));
}

/** A lock older than this was left by a killed process. */
const STALE_LOCK_MS = 120_000;

function ensureRendered(spec: SongSpec, dir: string): Promise<void> {
  return renderOnce(dir, (scratch) => renderSong(spec, scratch), { staleLockMs: STALE_LOCK_MS, pollMs: 250 });
}

/** Every track of a split, rendered (or found in the cache), two at a time. */
export async function renderedCorpus(split: Split, only?: (spec: SongSpec) => boolean): Promise<RenderedTrack[]> {
  const root = corpusDir();
  await fsp.mkdir(root, { recursive: true });
  await markUsedAndPrune(root, PREFIX, STALE_CORPUS_MS);
  const specs = corpusSpecs(split).filter((s) => !only || only(s));
  const queue = [...specs];
  const worker = async () => {
    for (let spec = queue.shift(); spec; spec = queue.shift()) await ensureRendered(spec, path.join(root, spec.id));
  };
  await Promise.all([worker(), worker()]);
  return Promise.all(specs.map((spec) => renderedTrackIn(path.join(root, spec.id), spec.id)));
}

/** A rendered track's files in `dir` (its stems, mixture.wav and truth.json), as the corpus writes them. */
export async function renderedTrackIn(dir: string, id: string): Promise<RenderedTrack> {
  const truth = JSON.parse(await fsp.readFile(path.join(dir, "truth.json"), "utf8")) as CorpusTruth;
  const stems = Object.fromEntries(STEMS.map((s) => [s, path.join(dir, `${s}.wav`)])) as Record<Stem, string>;
  return { id, dir, mixture: path.join(dir, "mixture.wav"), stems, truth };
}
