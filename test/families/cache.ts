/**
 * The family tracks (tracks.ts), rendered once into a cache directory named by a hash of the renderers' sources,
 * the corpus generator's and the installed versions of the families' Debian packages, and reused by the test and
 * the report — as test/corpus/corpus.ts caches the corpus: each track rendered into a temporary directory and
 * renamed, under a lock so that two processes share the work; other versions' directories unused for a day are
 * deleted. Tracks are rendered one at a time (the renderers run ffmpeg, sox, lv2file and Festival themselves).
 */
import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import fs from "node:fs";
import fsp from "node:fs/promises";
import path from "node:path";
import { type RenderedTrack, renderedTrackIn } from "../corpus/corpus.ts";
import { cacheDirOf, markUsedAndPrune, renderOnce } from "../helpers/render-cache.ts";
import { FAMILIES } from "./registry.ts";
import { renderTrack, type TrackMeta, type TrackPlan } from "./render-track.ts";

export interface FamilyTrack extends RenderedTrack {
  meta: TrackMeta;
}

/** What the rendered audio depends on, besides the packages: these sources (relative to this folder). */
const SOURCES = [
  "amp.ts",
  "audio.ts",
  "f0.ts",
  "freedoom-score.ts",
  "hydrogen-kit.ts",
  "material.ts",
  "mix-chains.ts",
  "pluck.ts",
  "registry.ts",
  "render-track.ts",
  "sampler.ts",
  "score-truth.ts",
  "synth.ts",
  "tracks.ts",
  "voices.ts",
  "../corpus/drums.ts",
  "../corpus/harmony.ts",
  "../corpus/parts.ts",
  "../corpus/render.ts",
  "../corpus/song.ts",
  "../corpus/specs.ts",
  "../corpus/timeline.ts",
  "../corpus/types.ts",
  "../music/synth.ts",
  "../music/theory.ts",
];

const PREFIX = "mixdown-families-";
const STALE_MS = 24 * 3600_000;
const STALE_LOCK_MS = 300_000;

/** Every Debian package the tracks need: the rendered families' and the scores' (Freedoom's music). */
export const RENDERED_PACKAGES: readonly string[] = [
  ...new Set([...FAMILIES.filter((f) => f.render.type !== "none").flatMap((f) => f.packages), "freedoom"]),
].sort();

/** Installed version of each package, "" when it is not installed (or there is no dpkg). */
export function installedVersions(packages: readonly string[]): Map<string, string> {
  const versions = new Map<string, string>(packages.map((p) => [p, ""]));
  let listing = "";
  try {
    const format = ["Package", "Status", "Version"].map((field) => `\${${field}}`).join(" ");
    listing = execFileSync("dpkg-query", ["-W", "-f", `${format}\\n`, ...packages], {
      encoding: "utf8",
      stdio: ["ignore", "pipe", "ignore"],
    });
  } catch (error) {
    // dpkg-query exits 1 when some package is unknown, still listing the others.
    listing = String((error as { stdout?: string }).stdout ?? "");
  }
  for (const line of listing.split("\n")) {
    const [name, , , status, version] = line.split(" ");
    if (name && status === "installed" && versions.has(name)) versions.set(name, version ?? "");
  }
  return versions;
}

/** The packages of `packages` that are not installed. */
export const missingPackages = (packages: readonly string[]): string[] =>
  [...installedVersions(packages)].filter(([, version]) => version === "").map(([name]) => name);

/** How to install what is missing, for a failing test's message. */
export const installCommand = (missing: readonly string[]): string =>
  `sudo apt-get install -y --no-install-recommends ${missing.join(" ")}`;

export function familiesCacheDir(): string {
  const hash = createHash("sha256");
  for (const file of SOURCES) hash.update(fs.readFileSync(path.join(import.meta.dirname, file)));
  for (const [name, version] of installedVersions(RENDERED_PACKAGES)) hash.update(`${name}=${version};`);
  return cacheDirOf(PREFIX, hash.digest("hex"));
}

async function ensureRendered(plan: TrackPlan, dir: string, log: (line: string) => void): Promise<void> {
  const render = async (scratch: string) => {
    const started = Date.now();
    await renderTrack(plan, scratch);
    log(`rendered ${plan.id} in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  };
  await renderOnce(dir, render, { staleLockMs: STALE_LOCK_MS, pollMs: 500 });
}

/** The plans' tracks, rendered (or found in the cache), in the plans' order. */
export async function renderedFamilyTracks(
  plans: readonly TrackPlan[],
  log: (line: string) => void = () => {},
): Promise<FamilyTrack[]> {
  const root = familiesCacheDir();
  await fsp.mkdir(root, { recursive: true });
  await markUsedAndPrune(root, PREFIX, STALE_MS);
  for (const plan of plans) await ensureRendered(plan, path.join(root, plan.id), log);
  return Promise.all(
    plans.map(async (plan): Promise<FamilyTrack> => {
      const dir = path.join(root, plan.id);
      const meta = JSON.parse(await fsp.readFile(path.join(dir, "meta.json"), "utf8")) as TrackMeta;
      return { ...(await renderedTrackIn(dir, plan.id)), meta };
    }),
  );
}
