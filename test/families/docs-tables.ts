/**
 * The tables of docs/families.md, written from the figures report.ts saved (docs/families.json by default), so that
 * the page is pasted from the measurement rather than copied by hand:
 *   node test/families/docs-tables.ts [FILE] [--write]
 * Prints the Markdown tables the file has figures for: separation per family and stem, its held-out means, a sound
 * alone and the drum elements alone; the analysis per family with the held-out mean, per style, per track, and key,
 * chords and bpm under transposition and stretch. With --write, each replaces the table of docs/families.md that has
 * the same header row instead; the prose around them is left to be written.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { FOUR_STEM_NAMES, type FourStem } from "../corpus/separation-scoring.ts";
import { type FamilyAlone, type FamilySeparation, type HeldOutMean, SEPARATORS, type Separator } from "./scoring.ts";

type Summary = Record<string, number>;
interface FamilyRow {
  family: string;
  status: string;
  summary: Summary;
}
interface Figures {
  separation?: {
    families: FamilySeparation[];
    heldOutMean: Partial<Record<Separator, Partial<Record<FourStem, HeldOutMean>>>>;
    heldOutMixChainMean: Partial<Record<Separator, Partial<Record<FourStem, HeldOutMean>>>>;
    alone: FamilyAlone[];
    drumElements: { family: string; status: string; shares: Record<string, number> }[];
  };
  analysis?: {
    families: FamilyRow[];
    heldOutMean: Summary;
    styles: { style: string; summary: Summary }[];
    perTrack: Record<string, string | number | null>[];
  };
  invariance?: { families: FamilyRow[]; heldOutMean: Summary; allTracks: Summary };
}

const percent = (x: number | null | undefined) => (x === undefined || x === null ? "–" : `${Math.round(x * 100)} %`);
const decimal = (x: number | null | undefined) => (x === undefined || x === null ? "–" : x.toFixed(2));
const line = (cells: (string | number)[]) => `|${cells.map((c) => (c === "" ? " " : ` ${c} `)).join("|")}|`;
const rule = (left: number, right: number) => `|${"---|".repeat(left)}${"---:|".repeat(right)}`;

/** The analysis columns, in the page's order. */
const analysisCells = (s: Summary) => [
  percent(s.tempoWithin4Percent),
  percent(s.octaveErrors),
  decimal(s.beatF),
  decimal(s.downbeatF),
  percent(s.keyExact),
  decimal(s.chordOverlap),
  decimal(s.sectionBoundaryF),
  decimal(s.sectionPairwiseF),
  percent(s.sectionLabelsEnough),
];
const ANALYSIS_HEAD =
  "tempo ±4 % | octave errors | beat F | downbeat F | key exact | chord overlap | section boundary F | section pairwise F | enough labels";

const args = process.argv.slice(2);
const file = args.find((a) => !a.startsWith("--")) ?? "docs/families.json";
const figures = JSON.parse(readFileSync(file, "utf8")) as Figures;
const out: string[] = [];
if (figures.separation) {
  const sep = figures.separation;
  const sdr = (x: { target: number; oracleTarget: number; targetRatio: number } | undefined) =>
    x ? `${decimal(x.target)} / ${decimal(x.oracleTarget)} (${decimal(x.targetRatio)})` : "–";
  out.push(
    "| family | status | stem | tracks | stems-4 network | stems-4 classical | stems-vocals network | stems-vocals REPET-SIM |",
    "|---|---|---|---:|---|---|---|---|",
  );
  for (const f of sep.families) {
    const tracks = Math.max(...Object.values(f.bySeparator).map((m) => m.tracks));
    out.push(line([`\`${f.family}\``, f.status, f.stem, tracks, ...SEPARATORS.map((k) => sdr(f.bySeparator[k]))]));
  }
  const mean = (m: HeldOutMean | undefined) =>
    m ? `${decimal(m.sdr)} / ${decimal(m.oracle)} (${decimal(m.ratio)}), ${m.families}` : "–";
  out.push("", "| mean over | separator | drums | bass | vocals | other |", "|---|---|---|---|---|---|");
  for (const [over, means] of [
    ["held-out sound families", sep.heldOutMean],
    ["held-out mixing chains", sep.heldOutMixChainMean],
  ] as const)
    for (const k of SEPARATORS) out.push(line([over, k, ...FOUR_STEM_NAMES.map((stem) => mean(means[k]?.[stem]))]));
  out.push(
    "",
    "| family | status | belongs in | parts | drums | bass | vocals | other |",
    "|---|---|---|---:|---:|---:|---:|---:|",
  );
  for (const a of sep.alone)
    out.push(
      line([`\`${a.family}\``, a.status, a.stem, a.parts, ...FOUR_STEM_NAMES.map((stem) => percent(a.shares[stem]))]),
    );
  const elements = Object.keys(sep.drumElements[0]?.shares ?? {});
  out.push("", `| kit | status | ${elements.join(" | ")} |`, rule(2, elements.length));
  for (const k of sep.drumElements)
    out.push(line([`\`${k.family}\``, k.status, ...elements.map((e) => Math.round(100 * (k.shares[e] ?? 0)))]));
  out.push("");
}
if (figures.analysis) {
  const a = figures.analysis;
  out.push(`| family | status | tracks | ${ANALYSIS_HEAD} |`, rule(2, 10));
  for (const f of a.families)
    out.push(line([`\`${f.family}\``, f.status, f.summary.tracks ?? 0, ...analysisCells(f.summary)]));
  out.push(
    line([`**mean over ${a.heldOutMean.families} held-out families**`, "", "", ...analysisCells(a.heldOutMean)]),
  );
  out.push("", `| style | tracks | ${ANALYSIS_HEAD} |`, rule(1, 10));
  for (const s of a.styles) out.push(line([s.style, s.summary.tracks ?? 0, ...analysisCells(s.summary)]));
  out.push(
    "",
    "| track | truth BPM | found | tempo | beat F | downbeat F | key (truth→found) | chord overlap | section boundary F | section pairwise F |",
    "|---|---:|---:|---|---:|---:|---|---:|---:|---:|",
  );
  for (const t of a.perTrack)
    out.push(
      line([
        String(t.id),
        String(t.truthBpm),
        t.bpm === null ? "–" : String(t.bpm),
        String(t.tempo),
        decimal(t.beatF as number),
        decimal(t.downbeatF as number),
        String(t.key),
        decimal(t.chordOverlap as number),
        decimal(t.sectionBoundaryF as number | null),
        decimal(t.sectionPairwiseF as number | null),
      ]),
    );
}
if (figures.invariance) {
  const v = figures.invariance;
  const cells = (s: Summary) => [percent(s.keyFollows), decimal(s.chordsFollowMean), percent(s.tempoFollows)];
  out.push("", "| family | status | tracks | key follows | chord roots follow | bpm follows |", rule(2, 4));
  for (const f of v.families) out.push(line([`\`${f.family}\``, f.status, f.summary.tracks ?? 0, ...cells(f.summary)]));
  out.push(line([`**mean over ${v.heldOutMean.families} held-out families**`, "", "", ...cells(v.heldOutMean)]));
  out.push(line([`all ${v.allTracks.tracks} tracks`, "", "", ...cells(v.allTracks)]));
}

/** `page` with each of `tables` (blank-line separated) put in place of the page's table with the same header row. */
function replaceTables(page: string, tables: string): string {
  const lines = page.split("\n");
  for (const table of tables.split("\n\n")) {
    const rows = table.split("\n");
    const start = lines.indexOf(rows[0] as string);
    if (start < 0) throw new Error(`docs/families.md has no table headed ${rows[0]}`);
    let end = start;
    while (lines[end]?.startsWith("|")) end++;
    lines.splice(start, end - start, ...rows);
  }
  return lines.join("\n");
}

const tables = out.join("\n").trim();
if (args.includes("--write"))
  writeFileSync("docs/families.md", replaceTables(readFileSync("docs/families.md", "utf8"), tables));
else console.log(tables);
