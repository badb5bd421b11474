/**
 * Which instruments hold a stem's figure down: stems-4's network on every track of the splits named, and for each
 * part (comp, pad, lead, voice, bass) and GM program it plays, the mean gap between the oracle's SDR and the
 * network's for one stem, worst first. No assertions: a report for choosing what a next training should hear.
 * Run: node test/corpus/separation-by-program.ts <drums|bass|vocals|other> <split> [split…]
 */
import { renderedCorpus, SPLITS, type Split } from "./corpus.ts";
import { FOUR_STEM_NAMES, type FourStem, separateByNetwork } from "./separation-scoring.ts";
import type { PartName } from "./types.ts";

const [stem, ...splits] = process.argv.slice(2) as [FourStem, ...Split[]];
if (!FOUR_STEM_NAMES.includes(stem) || splits.length === 0 || splits.some((s) => !(s in SPLITS))) {
  throw new Error(`usage: separation-by-program.ts <${FOUR_STEM_NAMES.join("|")}> <${Object.keys(SPLITS).join("|")}>…`);
}
const PARTS: readonly PartName[] = ["comp", "pad", "lead", "voice", "bass"];

/** Per part, per program: the gaps (oracle − network, dB) of the tracks where the part plays that program. */
const gaps = new Map<PartName, Map<number, number[]>>(PARTS.map((part) => [part, new Map()]));
const all: number[] = [];
for (const split of splits) {
  for (const track of await renderedCorpus(split)) {
    const figures = (await separateByNetwork(track))[stem];
    const gap = figures.oracleTarget - figures.target;
    all.push(gap);
    for (const part of track.truth.parts) {
      const byProgram = gaps.get(part.name);
      if (!byProgram || part.notes.length === 0) continue;
      byProgram.set(part.program, [...(byProgram.get(part.program) ?? []), gap]);
    }
  }
}
const mean = (values: number[]) => values.reduce((a, b) => a + b, 0) / values.length;
console.log(
  `${stem}: oracle − network SDR, mean over ${all.length} tracks of ${splits.join(", ")}: ${mean(all).toFixed(2)} dB`,
);
for (const [part, byProgram] of gaps) {
  const rows = [...byProgram].map(([program, list]) => ({ program, gap: mean(list), tracks: list.length }));
  rows.sort((a, b) => b.gap - a.gap);
  console.log(`  ${part.padEnd(5)} ${rows.map((r) => `GM ${r.program} ${r.gap.toFixed(1)} (${r.tracks})`).join(", ")}`);
}
