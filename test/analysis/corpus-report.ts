/**
 * The music-analysis scores of one corpus split, per groove and in sum, for tuning:
 *   node test/analysis/corpus-report.ts tuning [--tracks]
 * Tune on "development" and "tuning"; the "held-out" split is for the final report only.
 */
import { renderedCorpus, SPLITS, type Split } from "../corpus/corpus.ts";
import { evaluate, type Row, round3, summarise } from "./corpus-evaluation.ts";

const split = (process.argv[2] ?? "tuning") as Split;
if (!(split in SPLITS)) throw new Error(`unknown split ${split}: one of ${Object.keys(SPLITS).join(", ")}`);
const rows: Row[] = [];
for (const track of await renderedCorpus(split)) rows.push(await evaluate(track));
if (process.argv.includes("--tracks"))
  for (const r of rows)
    console.log(
      JSON.stringify({
        ...r,
        beatF: round3(r.beatF),
        downbeatF: round3(r.downbeatF),
        chordOverlap: round3(r.chordOverlap),
      }),
    );
const byGroove = new Map<string, Row[]>();
for (const r of rows) byGroove.set(r.groove, [...(byGroove.get(r.groove) ?? []), r]);
for (const [groove, group] of byGroove) console.log(`groove ${groove}: ${JSON.stringify(summarise(group))}`);
console.log(`summary ${split}: ${JSON.stringify(summarise(rows))}`);
