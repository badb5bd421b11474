/**
 * The family report (issues 51 and 52): every track of tracks.ts's full plan (rendered once, cache.ts) scored by
 * scoring.ts, and tables per family with the mean over the held-out families: separation (stems-4's network and
 * classical method, stems-vocals' network and REPET-SIM: SDR, oracle SDR, their ratio), each sound alone through
 * stems-4 (its share of energy in each output, and each drum kit's elements one by one), and analysis (tempo,
 * beats, downbeats, key, chords). The figures go to docs/families.json, which docs/families.md cites.
 * Run: node test/families/report.ts [--separation] [--analysis] [--invariance] [--tracks] [--quick | --development]
 * [--no-classical] [--out FILE] (neither of the first two: both; --invariance adds whether key, chords and bpm
 * follow a transposition and a time-stretch, test/analysis/invariance.ts; --quick: the test's short tracks
 * instead of the full plan; --development: tracks.ts's development plan, the corpus' family only, to tune on).
 */
import fsp from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { summarise } from "../analysis/corpus-evaluation.ts";
import { type InvarianceRow, invarianceRow, summariseInvariance } from "../analysis/invariance.ts";
import { FOUR_STEM_NAMES, SAMPLE_RATE } from "../corpus/separation-scoring.ts";
import type { NoteEvent } from "../corpus/types.ts";
import { installCommand, missingPackages, RENDERED_PACKAGES, renderedFamilyTracks } from "./cache.ts";
import { GM_ELEMENT } from "./hydrogen-kit.ts";
import { FAMILIES } from "./registry.ts";
import {
  aloneByFamily,
  analysisByFamily,
  analysisByStyle,
  heldOutAloneMean,
  heldOutMean,
  heldOutSeparationMean,
  invarianceByFamily,
  SEPARATORS,
  type SeparationSummary,
  scoreTrack,
  separationByFamily,
  sharesAlone,
  type TrackFigures,
} from "./scoring.ts";
import { DEVELOPMENT_RENDERINGS, developmentPlan, developmentRenderingOf, fullPlan, quickPlan } from "./tracks.ts";

const args = process.argv.slice(2);
const flag = (name: string) => args.includes(name);
const both = !flag("--separation") && !flag("--analysis");
const doSeparation = both || flag("--separation");
const doAnalysis = both || flag("--analysis");
const doInvariance = flag("--invariance");
const outIndex = args.indexOf("--out");
const out = outIndex >= 0 ? (args[outIndex + 1] as string) : path.join(import.meta.dirname, "../../docs/families.json");

const missing = missingPackages(RENDERED_PACKAGES);
if (missing.length) {
  console.error(
    `the family tracks need Debian packages that are not installed; install them with:\n  ${installCommand(missing)}`,
  );
  process.exit(1);
}

const started = Date.now();
const plans = flag("--quick") ? quickPlan() : flag("--development") ? developmentPlan() : fullPlan();
const tracks = await renderedFamilyTracks(plans, (line) => console.error(line));
console.error(`${tracks.length} tracks ready in ${((Date.now() - started) / 1000).toFixed(0)} s`);

const scored: TrackFigures[] = [];
for (const track of tracks) {
  const t = Date.now();
  const figures = await scoreTrack(track, {
    separation: doSeparation,
    classical: doSeparation && !flag("--no-classical"),
    alone: doSeparation,
    analysis: doAnalysis,
  });
  scored.push(figures);
  console.error(`scored ${track.id} in ${((Date.now() - t) / 1000).toFixed(1)} s`);
}

const pct = (x: number) => `${(100 * x).toFixed(0)}%`;
const fix = (x: number, d = 2) => (Number.isFinite(x) ? x.toFixed(d) : String(x));
const pad = (cells: string[], widths: number[]) => cells.map((c, i) => c.padEnd(widths[i] ?? 8)).join(" ");

const cell = (s: SeparationSummary | undefined) =>
  s ? `${fix(s.target)}/${fix(s.oracleTarget)} ${fix(s.targetRatio)}` : "–";

/**
 * The drum elements of each drum family alone: four hits each, the share of the network's outputs in drums. Not the
 * training families' (the network trained on them; they are rendered for the analysis' development plan only).
 */
async function drumElements(): Promise<{ family: string; status: string; shares: Record<string, number> }[]> {
  const keys = [...new Set(Object.values(GM_ELEMENT))].map(
    (element) => [element, Number(Object.entries(GM_ELEMENT).find(([, e]) => e === element)?.[0])] as const,
  );
  const rows = [];
  for (const family of FAMILIES) {
    const drumKind = family.kind.startsWith("drums") || family.kind === "gm-engine";
    if (family.render.type !== "instrument" || !drumKind || family.status === "training") continue;
    const shares: Record<string, number> = {};
    for (const [element, key] of keys) {
      const notes: NoteEvent[] = [0, 1, 2, 3].map((k) => ({
        midi: key,
        time: 0.1 + 0.6 * k,
        duration: 0.2,
        velocity: 0.85,
      }));
      const length = 3 * SAMPLE_RATE;
      const audio = await family.render.play(notes, { length, slot: "drums", program: 0, gains: [1, 1], seed: key });
      shares[element] = (await sharesAlone(audio)).drums;
    }
    rows.push({ family: family.id, status: family.status, shares });
  }
  return rows;
}

const report: Record<string, unknown> = {
  command: `node test/families/report.ts ${args.join(" ")}`.trim(),
  date: new Date().toISOString(),
  tracks: tracks.map((t) => ({
    id: t.id,
    style: t.meta.style,
    source: t.meta.source,
    seconds: t.truth.duration,
    mix: t.meta.mix,
    families: [...new Set(t.meta.parts.map((p) => `${p.slot}:${p.family}`))],
  })),
};

if (doSeparation) {
  const rows = separationByFamily(scored).sort(
    (a, b) => a.status.localeCompare(b.status) || a.kind.localeCompare(b.kind) || a.family.localeCompare(b.family),
  );
  console.log("\nSEPARATION per family and stem: SDR / oracle SDR (dB) and their ratio; tracks");
  const widths = [26, 9, 7, 4, 22, 22, 22, 22];
  console.log(pad(["family", "status", "stem", "n", ...SEPARATORS], widths));
  for (const r of rows) {
    const n = String(Math.max(...Object.values(r.bySeparator).map((s) => s.tracks)));
    console.log(pad([r.family, r.status, r.stem, n, ...SEPARATORS.map((s) => cell(r.bySeparator[s]))], widths));
  }
  const sources = heldOutSeparationMean(rows, false);
  const chains = heldOutSeparationMean(rows, true);
  console.log("\nmean over held-out sound families (each family once): SDR / oracle, ratio");
  for (const separator of SEPARATORS)
    console.log(
      `  ${separator.padEnd(24)}${FOUR_STEM_NAMES.map((stem) => {
        const m = sources[separator]?.[stem];
        return m ? `${stem} ${fix(m.sdr)}/${fix(m.oracle)} ${fix(m.ratio)} (${m.families})` : "";
      })
        .filter(Boolean)
        .join(", ")}`,
    );
  console.log("mean over held-out mixing chains:");
  for (const separator of SEPARATORS)
    console.log(
      `  ${separator.padEnd(24)}${FOUR_STEM_NAMES.map((stem) => {
        const m = chains[separator]?.[stem];
        return m ? `${stem} ${fix(m.sdr)}/${fix(m.oracle)} ${fix(m.ratio)}` : "";
      })
        .filter(Boolean)
        .join(", ")}`,
    );

  const alone = aloneByFamily(scored).sort((a, b) => a.stem.localeCompare(b.stem) || a.family.localeCompare(b.family));
  console.log("\nA SOUND ALONE through stems-4's network: share of the outputs' energy in each stem");
  const aloneWidths = [26, 9, 8, 6, 7, 7, 7, 7];
  console.log(pad(["family", "status", "belongs", "parts", ...FOUR_STEM_NAMES], aloneWidths));
  for (const r of alone)
    console.log(
      pad([r.family, r.status, r.stem, String(r.parts), ...FOUR_STEM_NAMES.map((s) => pct(r.shares[s]))], aloneWidths),
    );
  const aloneMean = heldOutAloneMean(alone);
  console.log(
    `mean over ${aloneMean.families} held-out families: ${pct(aloneMean.inOwnStem)} in the stem it belongs in; guitars ${pct(aloneMean.guitarInDrums)} in drums`,
  );

  const elements = await drumElements();
  console.log("\nDRUM ELEMENTS alone (four hits) through stems-4's network: share in drums");
  for (const r of elements)
    console.log(
      `  ${r.family.padEnd(26)}${Object.entries(r.shares)
        .map(([e, v]) => `${e} ${pct(v)}`)
        .join(", ")}`,
    );

  report.separation = {
    families: rows,
    heldOutMean: sources,
    heldOutMixChainMean: chains,
    alone,
    aloneHeldOutMean: aloneMean,
    drumElements: elements,
    ...(flag("--tracks")
      ? {
          perTrack: scored.map((s) => ({
            track: s.track.id,
            figures: s.separation.map((f) => ({ separator: f.separator, stem: f.stem, ...f.figures })),
          })),
        }
      : {}),
  };
  if (flag("--tracks"))
    for (const s of scored)
      console.log(
        `${s.track.id}: ${s.separation
          .filter((f) => f.separator === "stems-4 network")
          .map((f) => `${f.stem} ${fix(f.figures.target)}/${fix(f.figures.oracleTarget)}`)
          .join(", ")}`,
      );
}

if (doAnalysis) {
  const rows = analysisByFamily(scored).sort(
    (a, b) => a.status.localeCompare(b.status) || a.kind.localeCompare(b.kind) || a.family.localeCompare(b.family),
  );
  const head = [
    "tracks",
    "tempo±4%",
    "octave",
    "beatF",
    "downbeatF",
    "keyExact",
    "chords",
    "sectB",
    "sectPair",
    "labels",
  ];
  const maybe = (x: number | null, show: (x: number) => string) => (x === null ? "–" : show(x));
  const values = (s: (typeof rows)[number]["summary"]) => [
    String(s.tracks),
    pct(s.tempoWithin4Percent),
    pct(s.octaveErrors),
    fix(s.beatF),
    fix(s.downbeatF),
    pct(s.keyExact),
    fix(s.chordOverlap),
    maybe(s.sectionBoundaryF, fix),
    maybe(s.sectionPairwiseF, fix),
    maybe(s.sectionLabelsEnough, pct),
  ];
  const widths = [26, 9, 7, 9, 7, 6, 10, 9, 7, 7, 9, 7];
  console.log("\nANALYSIS per family (the tracks it played on)");
  console.log(pad(["family", "status", ...head], widths));
  for (const r of rows) console.log(pad([r.family, r.status, ...values(r.summary)], widths));
  const mean = heldOutMean(rows);
  console.log(`mean over ${mean.families} held-out families: ${JSON.stringify(mean)}`);
  const styles = analysisByStyle(scored);
  console.log("\nANALYSIS per style");
  for (const r of styles) console.log(pad([r.style, "", ...values(r.summary)], widths));
  const perTrack = scored.flatMap((s) => (s.analysis ? [s.analysis] : []));
  if (flag("--development")) {
    console.log("\nANALYSIS per rendering");
    for (const rendering of ["fluidr3", ...DEVELOPMENT_RENDERINGS]) {
      const group = perTrack.filter((t) => developmentRenderingOf(t.id) === rendering);
      if (group.length > 0) console.log(pad([rendering, "", ...values(summarise(group))], widths));
    }
  }
  const allTracks = summarise(perTrack);
  console.log(pad(["all tracks", "", ...values(allTracks)], widths));
  report.analysis = { families: rows, heldOutMean: mean, styles, allTracks, perTrack };
  if (flag("--tracks"))
    for (const s of scored) if (s.analysis) console.log(`${s.track.id}: ${JSON.stringify(s.analysis)}`);
}

if (doInvariance) {
  const dir = await fsp.mkdtemp(path.join(os.tmpdir(), "mixdown-family-invariance-"));
  try {
    const rows: { track: (typeof tracks)[number]; row: InvarianceRow }[] = [];
    for (const [i, track] of tracks.entries())
      rows.push({ track, row: await invarianceRow(track.id, track.mixture, i, dir) });
    const families = invarianceByFamily(rows).sort(
      (a, b) => a.status.localeCompare(b.status) || a.family.localeCompare(b.family),
    );
    console.log("\nINVARIANCE per family: key and chord roots follow a transposition, bpm a time-stretch");
    const widths = [26, 9, 7, 12, 14, 12];
    console.log(pad(["family", "status", "tracks", "keyFollows", "chordsFollow", "bpmFollows"], widths));
    for (const r of families)
      console.log(
        pad(
          [
            r.family,
            r.status,
            String(r.summary.tracks),
            pct(r.summary.keyFollows),
            fix(r.summary.chordsFollowMean),
            pct(r.summary.tempoFollows),
          ],
          widths,
        ),
      );
    const mean = heldOutMean(families);
    const allTracks = summariseInvariance(rows.map((r) => r.row));
    console.log(`mean over ${mean.families} held-out families: ${JSON.stringify(mean)}`);
    console.log(`all ${rows.length} tracks: ${JSON.stringify(allTracks)}`);
    if (flag("--tracks")) for (const { row } of rows) console.log(`${row.id}: ${JSON.stringify(row)}`);
    report.invariance = { families, heldOutMean: mean, allTracks, perTrack: rows.map((r) => r.row) };
  } finally {
    await fsp.rm(dir, { recursive: true, force: true });
  }
}

report.seconds = Math.round((Date.now() - started) / 1000);
await fsp.writeFile(out, `${JSON.stringify(report, null, 1)}\n`);
console.error(`figures written to ${out} (${report.seconds} s)`);
