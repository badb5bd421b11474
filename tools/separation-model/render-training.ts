/**
 * Renders the separation model's training songs: the corpus generator's arrangements on their own seeds,
 * played by soundfonts other than the FluidR3 one the test corpus uses, so the model is scored on instruments
 * it never heard. Usage: node tools/separation-model/render-training.ts <out dir> [songs, default 340]
 */
import fs from "node:fs";
import path from "node:path";
import { renderSong } from "../../test/corpus/render.ts";
import { songSpecs } from "../../test/corpus/specs.ts";
import { TRAINING_SOUNDFONTS } from "./training-soundfonts.ts";

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
