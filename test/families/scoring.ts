/**
 * The family figures, shared by families.test.ts and report.ts. Nothing is scored anew here: separation is
 * test/corpus/separation-scoring.ts's (each separator's SDR against the true stem and the oracle ideal ratio
 * mask's on the same STFT), analysis is test/analysis/corpus-evaluation.ts's (tempo within 4 %, beat and downbeat
 * F, key, chord overlap). What this file adds is the attribution: a track's figure for a stem counts for each
 * family that played a part in that stem (and for the track's mixing chain); a track's analysis counts for every
 * family on it. And the measure of a sound alone: each part's own file through stems-4's network, and the share
 * of its energy in each of the four outputs.
 */
import { fourStemsNetwork } from "../../src/modules/stems-4/index.ts";
import { evaluate, type Row, summarise } from "../analysis/corpus-evaluation.ts";
import { type InvarianceRow, summariseInvariance } from "../analysis/invariance.ts";
import {
  type Figures,
  FOUR_STEM_NAMES,
  type FourStem,
  round2,
  SAMPLE_RATE,
  separateByNetwork,
  separateClassically,
  summary,
} from "../corpus/separation-scoring.ts";
import { readWav16 } from "../corpus/wav16.ts";
import type { FamilyTrack } from "./cache.ts";
import { STEM_OF_SLOT } from "./material.ts";
import { type Family, familyById } from "./registry.ts";

/** The separators scored: stems-4 (its network, its classical method) and stems-vocals (network, REPET-SIM). */
export type Separator = "stems-4 network" | "stems-4 classical" | "stems-vocals network" | "stems-vocals repet-sim";
/** Every separator, in the order the report's and the docs' tables give them. */
export const SEPARATORS: readonly Separator[] = [
  "stems-4 network",
  "stems-4 classical",
  "stems-vocals network",
  "stems-vocals repet-sim",
];

export interface StemFigure {
  track: string;
  separator: Separator;
  /** The true stem scored; for stems-vocals "vocals" (the rest is the accompaniment). */
  stem: FourStem;
  figures: Figures;
}

export interface TrackFigures {
  track: FamilyTrack;
  separation: StemFigure[];
  /** Each part alone through stems-4's network: its family, slot's stem and share of energy per output. */
  alone: { family: string; stem: FourStem; shares: Record<FourStem, number> }[];
  analysis?: Row;
}

/** The families that played each true stem of a track (from its parts), and its mixing chain's. */
export function familiesOf(track: FamilyTrack): { byStem: Record<FourStem, string[]>; mix: string } {
  const byStem: Record<FourStem, string[]> = { drums: [], bass: [], vocals: [], other: [] };
  for (const part of track.meta.parts) {
    const list = byStem[STEM_OF_SLOT[part.slot]];
    if (!list.includes(part.family)) list.push(part.family);
  }
  return { byStem, mix: track.meta.mix };
}

const energy = (channels: readonly Float32Array[]) =>
  channels.reduce((a, channel) => channel.reduce((b, v) => b + v * v, a), 0);

/** A sound alone through stems-4's network: the share of the outputs' energy in each (they add up to 1). */
export async function sharesAlone(channels: Float32Array[]): Promise<Record<FourStem, number>> {
  const four = await fourStemsNetwork({ sampleRate: SAMPLE_RATE, channels });
  const energies = FOUR_STEM_NAMES.map((stem) => energy(four[stem]));
  const total = energies.reduce((a, e) => a + e, 0);
  return Object.fromEntries(
    FOUR_STEM_NAMES.map((stem, k) => [stem, total > 0 ? (energies[k] as number) / total : 0]),
  ) as Record<FourStem, number>;
}

export interface Measures {
  separation: boolean;
  /** The classical separators too (stems-4 classical, REPET-SIM): about as long again as the network. */
  classical: boolean;
  alone: boolean;
  analysis: boolean;
}

/** One track's figures: its present stems by each separator, its parts alone, its analysis. */
export async function scoreTrack(track: FamilyTrack, measures: Measures): Promise<TrackFigures> {
  const present = track.meta.stemsPresent;
  const separation: StemFigure[] = [];
  if (measures.separation) {
    const network = await separateByNetwork(track);
    for (const stem of present)
      separation.push({ track: track.id, separator: "stems-4 network", stem, figures: network[stem] });
    if (present.includes("vocals"))
      separation.push({ track: track.id, separator: "stems-vocals network", stem: "vocals", figures: network.vocals });
    if (measures.classical) {
      const classical = await separateClassically(track);
      for (const stem of present)
        separation.push({ track: track.id, separator: "stems-4 classical", stem, figures: classical.stems4[stem] });
      if (present.includes("vocals"))
        separation.push({
          track: track.id,
          separator: "stems-vocals repet-sim",
          stem: "vocals",
          figures: classical.vocals,
        });
    }
  }
  const alone: TrackFigures["alone"] = [];
  if (measures.alone)
    for (const part of track.meta.parts) {
      const channels = await readWav16(`${track.dir}/${part.file}`);
      alone.push({ family: part.family, stem: STEM_OF_SLOT[part.slot], shares: await sharesAlone(channels) });
    }
  return {
    track,
    separation,
    alone,
    ...(measures.analysis ? { analysis: await evaluate(track) } : {}),
  };
}

export type SeparationSummary = ReturnType<typeof summary> & { tracks: number };

export interface FamilySeparation {
  family: string;
  status: Family["status"];
  kind: Family["kind"];
  /** The stem its figures are of (a mixing chain: every stem, one row each). */
  stem: FourStem;
  bySeparator: Partial<Record<Separator, SeparationSummary>>;
}

/** A row a family and stem it played (a mixing chain: a row a stem): mean figures over its tracks, per separator. */
export function separationByFamily(scored: readonly TrackFigures[]): FamilySeparation[] {
  const lists = new Map<string, Map<Separator, Figures[]>>();
  const add = (family: string, stem: FourStem, figure: StemFigure) => {
    const key = `${family}\t${stem}`;
    const bySeparator = lists.get(key) ?? new Map<Separator, Figures[]>();
    bySeparator.set(figure.separator, [...(bySeparator.get(figure.separator) ?? []), figure.figures]);
    lists.set(key, bySeparator);
  };
  for (const { track, separation } of scored) {
    const { byStem, mix } = familiesOf(track);
    for (const figure of separation) {
      for (const family of byStem[figure.stem]) add(family, figure.stem, figure);
      add(mix, figure.stem, figure);
    }
  }
  return [...lists].map(([key, bySeparator]) => {
    const [family, stem] = key.split("\t") as [string, FourStem];
    const { status, kind } = familyById(family);
    return {
      family,
      status,
      kind,
      stem,
      bySeparator: Object.fromEntries(
        [...bySeparator].map(([separator, list]) => [separator, { ...summary(list), tracks: list.length }]),
      ),
    };
  });
}

export interface HeldOutMean {
  families: number;
  sdr: number;
  oracle: number;
  /** Mean SDR ÷ mean oracle SDR over the families (as the corpus' ratio is over tracks). */
  ratio: number;
}

/** Per separator and stem, the mean over the held-out families (each family once) of their mean figures. */
export function heldOutSeparationMean(
  rows: readonly FamilySeparation[],
  mixChains: boolean,
): Partial<Record<Separator, Partial<Record<FourStem, HeldOutMean>>>> {
  const out: Partial<Record<Separator, Partial<Record<FourStem, HeldOutMean>>>> = {};
  for (const row of rows) {
    if (row.status !== "held-out" || (row.kind === "mix-chain") !== mixChains) continue;
    for (const [separator, s] of Object.entries(row.bySeparator) as [Separator, SeparationSummary][]) {
      const byStem = out[separator] ?? {};
      out[separator] = byStem;
      const m = byStem[row.stem] ?? { families: 0, sdr: 0, oracle: 0, ratio: 0 };
      byStem[row.stem] = {
        families: m.families + 1,
        sdr: m.sdr + s.target,
        oracle: m.oracle + s.oracleTarget,
        ratio: 0,
      };
    }
  }
  for (const byStem of Object.values(out))
    for (const [stem, m] of Object.entries(byStem) as [FourStem, HeldOutMean][])
      byStem[stem] = {
        families: m.families,
        sdr: round2(m.sdr / m.families),
        oracle: round2(m.oracle / m.families),
        ratio: round2(m.sdr / m.oracle),
      };
  return out;
}

export interface FamilyAlone {
  family: string;
  status: Family["status"];
  kind: Family["kind"];
  /** The stem its parts belong in. */
  stem: FourStem;
  parts: number;
  /** Mean share of the outputs' energy in each stem. */
  shares: Record<FourStem, number>;
}

/** Per family and the stem its parts belong in, the mean shares of its parts alone. */
export function aloneByFamily(scored: readonly TrackFigures[]): FamilyAlone[] {
  const lists = new Map<string, Record<FourStem, number>[]>();
  for (const { alone } of scored)
    for (const part of alone) {
      const key = `${part.family}\t${part.stem}`;
      lists.set(key, [...(lists.get(key) ?? []), part.shares]);
    }
  return [...lists].map(([key, list]) => {
    const [family, stem] = key.split("\t") as [string, FourStem];
    const { status, kind } = familyById(family);
    const shares = Object.fromEntries(
      FOUR_STEM_NAMES.map((s) => [s, Math.round((1000 * list.reduce((a, x) => a + x[s], 0)) / list.length) / 1000]),
    ) as Record<FourStem, number>;
    return { family, status, kind, stem, parts: list.length, shares };
  });
}

/** The mean over held-out families of the share kept in the stem each belongs in, and (guitars) in drums. */
export function heldOutAloneMean(rows: readonly FamilyAlone[]): {
  families: number;
  inOwnStem: number;
  guitarInDrums: number;
} {
  const held = rows.filter((r) => r.status === "held-out");
  const guitars = held.filter((r) => r.kind.startsWith("guitar"));
  const mean = (list: number[]) =>
    Math.round((1000 * list.reduce((a, v) => a + v, 0)) / Math.max(1, list.length)) / 1000;
  return {
    families: held.length,
    inOwnStem: mean(held.map((r) => r.shares[r.stem])),
    guitarInDrums: mean(guitars.map((r) => r.shares.drums)),
  };
}

export type AnalysisSummary = ReturnType<typeof summarise>;

export interface FamilyAnalysis {
  family: string;
  status: Family["status"];
  kind: Family["kind"];
  summary: AnalysisSummary;
}

/** Each family's rows: a track's row counts for every family that played on it and for its mixing chain. */
function rowsByFamily<T>(tracks: readonly { track: FamilyTrack; row: T }[]): Map<string, T[]> {
  const rows = new Map<string, T[]>();
  for (const { track, row } of tracks) {
    const { byStem, mix } = familiesOf(track);
    for (const family of new Set([...Object.values(byStem).flat(), mix]))
      rows.set(family, [...(rows.get(family) ?? []), row]);
  }
  return rows;
}

/** Per family, the analysis summary of the tracks it played on (every family of a track shares its row). */
export function analysisByFamily(scored: readonly TrackFigures[]): FamilyAnalysis[] {
  const rows = rowsByFamily(scored.flatMap(({ track, analysis }) => (analysis ? [{ track, row: analysis }] : [])));
  return [...rows].map(([family, list]) => {
    const { status, kind } = familyById(family);
    return { family, status, kind, summary: summarise(list) };
  });
}

/** Per style (metal, electronic, ballad, …, a score), the analysis summary of its tracks. */
export function analysisByStyle(scored: readonly TrackFigures[]): { style: string; summary: AnalysisSummary }[] {
  const rows = new Map<string, Row[]>();
  for (const { track, analysis } of scored) {
    if (!analysis) continue;
    const style = track.meta.source === "score" ? "score (Freedoom)" : track.meta.style;
    rows.set(style, [...(rows.get(style) ?? []), analysis]);
  }
  return [...rows].map(([style, list]) => ({ style, summary: summarise(list) }));
}

/** The mean over held-out families of each figure of their summaries (analysis or invariance). */
export function heldOutMean(rows: readonly { status: Family["status"]; summary: object }[]): Record<string, number> {
  const held = rows.filter((r) => r.status === "held-out");
  const out: Record<string, number> = { families: held.length };
  for (const key of Object.keys(held[0]?.summary ?? {})) {
    if (key === "tracks") continue;
    // A figure a family's tracks do not define (sections of score excerpts) is null there and left out.
    const values = held
      .map((r) => (r.summary as unknown as Record<string, number | null>)[key])
      .filter((v): v is number => typeof v === "number" && Number.isFinite(v));
    out[key] =
      values.length > 0 ? Math.round((1000 * values.reduce((a, v) => a + v, 0)) / values.length) / 1000 : Number.NaN;
  }
  return out;
}

/** Per family, the invariance summary (test/analysis/invariance.ts) of the tracks it played on. */
export function invarianceByFamily(
  rows: readonly { track: FamilyTrack; row: InvarianceRow }[],
): { family: string; status: Family["status"]; summary: ReturnType<typeof summariseInvariance> }[] {
  return [...rowsByFamily(rows)].map(([family, list]) => ({
    family,
    status: familyById(family).status,
    summary: summariseInvariance(list),
  }));
}
