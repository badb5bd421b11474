/**
 * Where each true stem goes in stems-4's network output, per frequency band (stem-shares.ts): the confusion
 * behind the SDR figures. No assertions: a report for diagnosis.
 * Run: node test/corpus/separation-leakage.ts <development|tuning|held-out> [step, default 10] [track numbers…]
 */
import { fourStemsNetwork } from "../../src/modules/stems-4/index.ts";
import { renderedCorpus, SPLITS, type Split } from "./corpus.ts";
import { FOUR_STEM_NAMES, isScored, SAMPLE_RATE, type Stereo, TRACK_STEP } from "./separation-scoring.ts";
import { BANDS, bandSums, shares } from "./stem-shares.ts";
import { readWav16 } from "./wav16.ts";

const N = FOUR_STEM_NAMES.length;
const percent = (x: number) => (Number.isNaN(x) ? "     –" : `${(100 * x).toFixed(0).padStart(5)}%`);

const split = (process.argv[2] ?? "development") as Split;
if (!(split in SPLITS)) throw new Error(`split: one of ${Object.keys(SPLITS).join(", ")}`);
const step = Number(process.argv[3] ?? TRACK_STEP);
const only = new Set(process.argv.slice(4).map(Number));
const tracks = await renderedCorpus(split, (spec) =>
  only.size ? only.has(Number(spec.id.slice(-3))) : isScored(spec.id, step),
);
/** Per band and true stem: its shares summed over the tracks where it is present, and how many those are. */
interface Tally {
  sum: number[];
  count: number;
}
const total: Tally[][] = BANDS.map(() => FOUR_STEM_NAMES.map(() => ({ sum: new Array<number>(N).fill(0), count: 0 })));
const header = `${"true stem → estimate".padEnd(22)}${FOUR_STEM_NAMES.map((s) => s.padStart(7)).join("")}`;
const table = (rows: number[][], bandName: string) => {
  console.log(`  ${bandName}\n  ${header}`);
  FOUR_STEM_NAMES.forEach((name, k) => {
    console.log(`  ${name.padEnd(22)}${(rows[k] as number[]).map((v) => ` ${percent(v)}`).join("")}`);
  });
};
for (const track of tracks) {
  const [mix, ...truth] = (await Promise.all(
    [track.mixture, ...FOUR_STEM_NAMES.map((s) => track.stems[s])].map((f) => readWav16(f)),
  )) as Stereo[];
  const four = await fourStemsNetwork({ sampleRate: SAMPLE_RATE, channels: mix as Stereo });
  const sums = bandSums(
    truth,
    FOUR_STEM_NAMES.map((s) => four[s]),
  );
  console.log(track.id);
  sums.forEach((bandSum, b) => {
    const rows = shares(bandSum);
    table(rows, (BANDS[b] as (typeof BANDS)[number]).name);
    rows.forEach((row, k) => {
      if (Number.isNaN(row[0])) return;
      const t = total[b]?.[k] as Tally;
      row.forEach((v, j) => {
        t.sum[j] = (t.sum[j] as number) + v;
      });
      t.count++;
    });
  });
}
console.log(`mean over ${tracks.length} ${split} tracks (a stem counted where present)`);
BANDS.forEach((band, b) => {
  table(
    (total[b] as Tally[]).map(({ sum, count }) => sum.map((v) => (count ? v / count : Number.NaN))),
    band.name,
  );
});
