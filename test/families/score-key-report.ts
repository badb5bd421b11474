/**
 * How firm the scores' key truth is. score-truth.ts names an excerpt's key by Krumhansl & Kessler's profiles on its
 * notes; Temperley's profiles (src/dsp/key.ts, the analysis' own, without its chord cues) on the same weighted notes
 * name a key too. Where two standard key finders disagree on the notes themselves, a key read from the audio that
 * misses the truth says less about the audio than the table's "key exact" suggests (families.md, "Scores").
 * Run: node test/families/score-key-report.ts
 */
import { estimateKey } from "../../src/dsp/key.ts";
import { PITCH_NAMES } from "../../src/dsp/pitch.ts";
import { freedoomExcerpt } from "./freedoom-score.ts";
import { pitchClasses, scoreKey } from "./score-truth.ts";
import { DEVELOPMENT_SCORES, SCORES } from "./tracks.ts";

const SECONDS = 30;
const relations = new Map<string, number>();
let agree = 0;
const plans = [
  ...SCORES.map((s) => ["held-out", ...s] as const),
  ...DEVELOPMENT_SCORES.map((s) => ["development", ...s] as const),
];
for (const [plan, lump, from] of plans) {
  const material = freedoomExcerpt(lump, lump, SECONDS, from);
  const parts = material.parts.map((p) => ({ program: p.program, drums: p.slot === "drums", notes: p.notes }));
  const truth = scoreKey(parts, 0, SECONDS);
  const temperley = estimateKey(pitchClasses(parts, 0, SECONDS)).name;
  const relation = relationOf(truth, temperley);
  relations.set(relation, (relations.get(relation) ?? 0) + 1);
  if (truth === temperley) agree++;
  console.log(`${plan.padEnd(12)} ${lump.padEnd(9)} Krumhansl-Kessler ${truth.padEnd(9)} Temperley ${temperley}`);
}
console.log(`\nthe two agree on ${agree} of ${plans.length} excerpts; Temperley's key against the truth's:`);
for (const [relation, count] of [...relations].sort((a, b) => b[1] - a[1])) console.log(`  ${relation}: ${count}`);

/** "same", or the other key's mode and its tonic's distance in semitones above the first's ("minor → major +8"). */
function relationOf(a: string, b: string): string {
  if (a === b) return "same";
  const [tonicA, modeA] = a.split(" ") as [(typeof PITCH_NAMES)[number], string];
  const [tonicB, modeB] = b.split(" ") as [(typeof PITCH_NAMES)[number], string];
  return `${modeA} → ${modeB} +${(PITCH_NAMES.indexOf(tonicB) - PITCH_NAMES.indexOf(tonicA) + 12) % 12}`;
}
