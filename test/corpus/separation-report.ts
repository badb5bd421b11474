/**
 * The separation figures of one corpus split, scored as test/corpus/separation.test.ts scores them
 * (separation-scoring.ts: the network on every track, the classical separators on every 10th), without
 * assertions: for tuning on the development and tuning splits. A step, when given, applies to both.
 * Run: node test/corpus/separation-report.ts <development|tuning|held-out> [step]
 */
import { SPLITS, type Split } from "./corpus.ts";
import { scoreClassical, scoreNetwork, TRACK_STEP } from "./separation-scoring.ts";

const split = (process.argv[2] ?? "tuning") as Split;
if (!(split in SPLITS)) throw new Error(`split: one of ${Object.keys(SPLITS).join(", ")}`);
const step = process.argv[3] === undefined ? undefined : Number(process.argv[3]);
if (step !== undefined && !(Number.isInteger(step) && step >= 1)) throw new Error("step: a whole number from 1");
const log = (line: string) => {
  if (process.env.QUIET !== "1") console.log(line);
};
const network = await scoreNetwork(split, step ?? 1, log);
const classical = await scoreClassical(split, step ?? TRACK_STEP, log);
console.log(`summary ${split}, ${network.tracks} tracks: stems-4 network ${JSON.stringify(network.stems4)}`);
const tracks = `summary ${split}, ${classical.tracks} tracks:`;
console.log(`${tracks} stems-drums ${JSON.stringify(classical.drums)}`);
console.log(`${tracks} stems-vocals-accompaniment ${JSON.stringify(classical.vocals)}`);
console.log(`${tracks} stems-4 classical ${JSON.stringify(classical.stems4)}`);
