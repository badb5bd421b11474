/**
 * The separation figures of one corpus split, scored as test/corpus/separation.test.ts scores them
 * (separation-scoring.ts), without assertions: for tuning on the development and tuning splits.
 * Run: node test/corpus/separation-report.ts <development|tuning|held-out> [step, default 10]
 */
import { SPLITS, type Split } from "./corpus.ts";
import { scoreSplit, TRACK_STEP } from "./separation-scoring.ts";

const split = (process.argv[2] ?? "tuning") as Split;
if (!(split in SPLITS)) throw new Error(`split: one of ${Object.keys(SPLITS).join(", ")}`);
const step = Number(process.argv[3] ?? TRACK_STEP);
const quiet = process.env.QUIET === "1";
const result = await scoreSplit(split, step, (line) => {
  if (!quiet) console.log(line);
});
console.log(`summary ${split}, ${result.tracks} tracks: stems-drums ${JSON.stringify(result.drums)}`);
console.log(`summary ${split}, ${result.tracks} tracks: stems-vocals-accompaniment ${JSON.stringify(result.vocals)}`);
console.log(`summary ${split}, ${result.tracks} tracks: stems-4 network ${JSON.stringify(result.stems4)}`);
console.log(`summary ${split}, ${result.tracks} tracks: stems-4 classical ${JSON.stringify(result.stems4Classical)}`);
