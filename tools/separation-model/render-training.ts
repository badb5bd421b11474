/**
 * Renders the separation model's training songs: the corpus generator's arrangements on their own seeds,
 * played by soundfonts other than the FluidR3 one the test corpus uses, so the model is scored on instruments
 * it never heard. Usage: node tools/separation-model/render-training.ts <out dir> [songs, default 340] [set, default 0]
 * Each set is other songs: set n draws them from each soundfont's seed + 1000 n (the first eight trainings had set 0).
 */
import fs from "node:fs";
import path from "node:path";
import { renderSong } from "../../test/corpus/render.ts";
import { songSpecs } from "../../test/corpus/specs.ts";
import { TRAINING_SOUNDFONTS } from "./training-soundfonts.ts";

const out = process.argv[2];
if (!out) throw new Error("usage: render-training.ts <out dir> [songs] [set]");
const songs = Number(process.argv[3] ?? 340);
const set = Number(process.argv[4] ?? 0);
if (!Number.isInteger(songs) || songs < 1 || !Number.isInteger(set) || set < 0) {
  throw new Error("songs must be a positive integer and set a non-negative integer");
}
const prefix = set === 0 ? "train" : `train${set}`;
const jobs = TRAINING_SOUNDFONTS.flatMap((font) =>
  songSpecs(`${prefix}-${font.name}`, Math.round(songs * font.share), font.seed + 1000 * set).map((spec) => ({
    spec,
    font,
  })),
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
