/**
 * The speech figures of the README: word error rate of mixdown/transcribe (pocketsphinx) per voice and
 * condition, and the word-start error of mixdown/align-lyrics per voice.
 *
 *   node test/speech/wer-report.ts [--voices "espeak en-us,festival slt-hts"] [--conditions "clean,noise +10"]
 *
 * Prints Markdown tables; takes about 5 minutes on two cores.
 */
import fs from "node:fs";
import { parseArgs } from "node:util";
import { CONDITIONS, DEV_SENTENCES, HELD_OUT_SENTENCES, VOICES } from "./corpus.ts";
import { writeCorpus } from "./corpus-files.ts";
import { alignmentErrors, scratch, transcribeWer, twoAtATime } from "./evaluate.ts";

const { values } = parseArgs({
  options: { voices: { type: "string" }, conditions: { type: "string" }, "no-align": { type: "boolean" } },
});
const voiceIds = values.voices?.split(",") ?? VOICES.map((v) => v.id);
const conditionIds = values.conditions?.split(",") ?? CONDITIONS.map((c) => c.id);
const dir = scratch();
try {
  const files = await writeCorpus(dir, voiceIds, conditionIds);
  const results = await twoAtATime(files, transcribeWer);
  const conditions = CONDITIONS.filter((c) => conditionIds.includes(c.id));
  console.log(`| voice | set | ${conditions.map((c) => c.id).join(" | ")} |`);
  console.log(`|---|---|${conditions.map(() => "---:").join("|")}|`);
  for (const voice of VOICES.filter((v) => voiceIds.includes(v.id))) {
    const row = conditions.map((c) => {
      const r = results.find((x) => x.voice === voice.id && x.condition === c.id);
      return r ? r.wer.toFixed(2) : "";
    });
    console.log(`| ${voice.describe} | ${voice.split} | ${row.join(" | ")} |`);
  }
  for (const split of ["dev", "held-out"]) {
    const row = conditions.map((c) => {
      const rs = results.filter((x) => x.split === split && x.condition === c.id);
      const words = rs.reduce((s, r) => s + r.words, 0);
      return words ? (rs.reduce((s, r) => s + r.wer * r.words, 0) / words).toFixed(2) : "";
    });
    console.log(`| all ${split} voices | ${split} | ${row.join(" | ")} |`);
  }
  for (const r of results) console.error(`${r.voice} | ${r.condition} | ${r.wer.toFixed(2)} | ${r.hypothesis}`);

  if (!values["no-align"]) {
    const alignConditions = conditions.filter((c) => ["clean", "noise +10", "music +10"].includes(c.id));
    const jobs = VOICES.filter((v) => voiceIds.includes(v.id)).flatMap((voice) =>
      alignConditions.map((condition) => ({ voice, condition })),
    );
    const aligned = await twoAtATime(jobs, ({ voice, condition }) =>
      alignmentErrors(voice, (voice.split === "dev" ? DEV_SENTENCES : HELD_OUT_SENTENCES).slice(0, 4), condition),
    );
    console.log(
      `\n| voice | ${alignConditions.map((c) => `${c.id}: mean / max start error (unplaced words)`).join(" | ")} |`,
    );
    console.log(`|---|${alignConditions.map(() => "---:").join("|")}|`);
    for (const voice of VOICES.filter((v) => voiceIds.includes(v.id))) {
      const row = alignConditions.map((c) => {
        const r = aligned.find((x) => x.voice === voice.id && x.condition === c.id);
        return r
          ? `${(r.mean * 1000).toFixed(0)} / ${(r.max * 1000).toFixed(0)} ms (${r.unplaced} of ${r.errors.length})`
          : "";
      });
      console.log(`| ${voice.describe} | ${row.join(" | ")} |`);
    }
  }
} finally {
  fs.rmSync(dir, { recursive: true, force: true });
}
