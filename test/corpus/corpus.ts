/**
 * The rendered corpus (specs.ts, song.ts, render.ts), rendered once into a cache directory named by a hash of
 * the generator's sources and the soundfont, and reused by every test file and run. Tracks are written
 * atomically (rendered into a temporary directory, then renamed), with a lock so two test processes share
 * the work. Corpus directories of other generator versions unused for a day are deleted (2.6 GB each).
 */
import { createHash } from "node:crypto";
import fs from "node:fs";
import fsp from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { renderSong, SOUNDFONT } from "./render.ts";
import type { SongSpec } from "./song.ts";
import { corpusSpecs, type Split } from "./specs.ts";
import type { CorpusTruth, Stem } from "./types.ts";

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
  return path.join(os.tmpdir(), `${PREFIX}${hash.digest("hex").slice(0, 12)}`);
}

/** Touches `root`'s use mark and deletes the other corpus directories whose mark is a day old. */
async function markUsedAndPrune(root: string): Promise<void> {
  const now = new Date();
  await fsp.writeFile(path.join(root, ".used"), "");
  await fsp.utimes(path.join(root, ".used"), now, now);
  for (const name of await fsp.readdir(os.tmpdir())) {
    const dir = path.join(os.tmpdir(), name);
    if (!name.startsWith(PREFIX) || dir === root || name.includes(".")) continue;
    // Another process may be deleting it too: a directory that vanished meanwhile is simply skipped.
    const used =
      fs.statSync(path.join(dir, ".used"), { throwIfNoEntry: false }) ?? fs.statSync(dir, { throwIfNoEntry: false });
    if (used && now.getTime() - used.mtimeMs > STALE_CORPUS_MS) await fsp.rm(dir, { recursive: true, force: true });
  }
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
  await markUsedAndPrune(root);
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
