/**
 * How loud each stem sits in its mixture, over a directory of rendered songs (the corpus cache, or
 * render-training.ts's output): the median and 10th–90th percentiles of each stem's energy over the mixture's,
 * in dB, and of other's over the voice's. It compares the balance of the test corpus' FluidR3 with that of the
 * training soundfonts, which train.py's random gains (GAIN_DB) have to cover.
 * Usage: node tools/separation-model/stem-levels.ts <dir> [name filter, e.g. development or train17-opl3]
 */
import fs from "node:fs";
import path from "node:path";
import { STEMS } from "../../test/corpus/types.ts";
import { readWav16 } from "../../test/corpus/wav16.ts";

const root = process.argv[2];
if (!root) throw new Error("usage: stem-levels.ts <dir> [name filter]");
const filter = process.argv[3] ?? "";

const energy = (channels: Float32Array[]) =>
  channels.reduce((sum, channel) => sum + channel.reduce((s, v) => s + v * v, 0), 0);
const db = (ratio: number) => 10 * Math.log10(Math.max(ratio, 1e-12));
/** The p-quantile (0..1) of a list, by the nearest rank below. */
const quantile = (values: number[], p: number) =>
  [...values].sort((a, b) => a - b)[Math.floor((values.length - 1) * p)] as number;
const spread = (values: number[]) =>
  `${quantile(values, 0.5).toFixed(1)} (${quantile(values, 0.1).toFixed(1)}..${quantile(values, 0.9).toFixed(1)})`;

/** Per song, each stem's level over the mixture in dB, in STEMS' order. */
const levels: number[][] = [];
for (const name of fs.readdirSync(root).sort()) {
  const dir = path.join(root, name);
  if (!name.includes(filter) || !fs.existsSync(path.join(dir, "truth.json"))) continue;
  const mixture = energy(await readWav16(path.join(dir, "mixture.wav")));
  const stems = await Promise.all(STEMS.map(async (s) => energy(await readWav16(path.join(dir, `${s}.wav`)))));
  levels.push(stems.map((e) => db(e / mixture)));
}
if (levels.length === 0) throw new Error(`no rendered songs in ${root} matching "${filter}"`);
const column = (k: number) => levels.map((row) => row[k] as number);
console.log(`${levels.length} songs in ${root} matching "${filter}": median (10th..90th percentile) dB`);
STEMS.forEach((stem, k) => {
  console.log(`  ${stem.padEnd(7)} over the mixture ${spread(column(k))}`);
});
const other = column(STEMS.indexOf("other"));
const vocals = column(STEMS.indexOf("vocals"));
console.log(`  other over vocals ${spread(other.map((level, i) => level - (vocals[i] as number)))}`);
