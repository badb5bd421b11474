/**
 * Renders (or finds in the corpus cache) every 10th track of the corpus' tuning split and links them into one
 * directory, the validation set train.py reads. Usage: node tools/separation-model/link-validation.ts <dir>
 */
import fs from "node:fs";
import path from "node:path";
import { renderedCorpus } from "../../test/corpus/corpus.ts";

const out = process.argv[2];
if (!out) throw new Error("usage: link-validation.ts <dir>");
fs.mkdirSync(out, { recursive: true });
const tracks = await renderedCorpus("tuning", (spec) => Number(spec.id.match(/\d+$/)?.[0]) % 10 === 1);
for (const track of tracks) {
  const link = path.join(out, track.id);
  if (!fs.existsSync(link)) fs.symlinkSync(track.dir, link);
}
console.log(`${tracks.length} validation tracks in ${out}`);
