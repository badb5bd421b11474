/**
 * Renders the separation model's training songs: the corpus generator's arrangements on their own seeds,
 * played by soundfonts other than the FluidR3 one the test corpus uses, so the model is scored on instruments
 * it never heard. Usage: node tools/separation-model/render-training.ts <out dir> [songs, default 340]
 */
import fs from "node:fs";
import path from "node:path";
import { renderSong } from "../../test/corpus/render.ts";
import { songSpecs } from "../../test/corpus/specs.ts";

/** Debian's GM soundfonts other than FluidR3 (packages timgm6mb-soundfont, musescore-general-soundfont, csound-soundfont, opl3-soundfont), with the share of the songs each plays. */
export const TRAINING_SOUNDFONTS = [
  { name: "timgm6mb", file: "/usr/share/sounds/sf2/TimGM6mb.sf2", seed: 18_004, share: 0.35 },
  { name: "musescore", file: "/usr/share/sounds/sf3/MuseScore_General.sf3", seed: 18_005, share: 0.2 },
  { name: "csound", file: "/usr/share/sounds/sf2/sf_GMbank.sf2", seed: 18_006, share: 0.25 },
  { name: "opl3", file: "/usr/share/sounds/sf2/OPL-3_FM_128M.sf2", seed: 18_007, share: 0.2 },
] as const;

const out = process.argv[2];
if (!out) throw new Error("usage: render-training.ts <out dir> [songs]");
const songs = Number(process.argv[3] ?? 340);
const jobs = TRAINING_SOUNDFONTS.flatMap((font) =>
  songSpecs(`train-${font.name}`, Math.round(songs * font.share), font.seed).map((spec) => ({ spec, font })),
);
const worker = async () => {
  for (let job = jobs.shift(); job; job = jobs.shift()) {
    const dir = path.join(out, job.spec.id);
    if (fs.existsSync(path.join(dir, "truth.json"))) continue;
    await renderSong(job.spec, dir, job.font.file);
    console.log(job.spec.id);
  }
};
await Promise.all([worker(), worker()]);
