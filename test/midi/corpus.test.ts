/**
 * mixdown/midi's audio-to-midi module on the rendered corpus (test/corpus, issue 18 part 5): each song's comping
 * part (piano, guitar or organ) and lead line rendered alone (test/corpus/solo-parts.ts), and the full mixture.
 * Note F-measure as mir_eval.transcription computes it without offsets (test/midi/note-metrics.ts): pitch exact,
 * onset within ±50 ms, one-to-one maximum matching. Solo parts are scored against that part's notes; the mixture
 * against every pitched part (bass, comping, pad, lead, voice), with the recall of the comping and lead notes.
 * Figures are means over tracks (MIREX style) with pooled precision and recall. Every CORPUS_MIDI_STEP-th track
 * (4: a transcription costs ~3 s of CPU, three a track) of the held-out split; CORPUS_MIDI_SPLITS picks others
 * (development, tuning, held-out, comma-separated). Asserted on the development and held-out splits; the decoder
 * was tuned on the development and tuning splits, never on held-out.
 */
import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, test } from "node:test";
import type { ModuleContext } from "../../src/engine/types.ts";
import { audioToMidiModule } from "../../src/modules/audio-to-midi/index.ts";
import { type AssertedSplit, corpusDir, corpusSpecs, renderedCorpus, type Split } from "../corpus/corpus.ts";
import { compFamily, renderSoloPart } from "../corpus/solo-parts.ts";
import { composeSong } from "../corpus/song.ts";
import { noteScores, type TimedNote } from "./note-metrics.ts";

const STEP = Number(process.env.CORPUS_MIDI_STEP ?? 4);
const SPLITS = (process.env.CORPUS_MIDI_SPLITS ?? "held-out").split(",") as Split[];
const PITCHED = ["bass", "comp", "pad", "lead", "voice"] as const;

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "mixdown-midi-corpus-"));
after(() => fs.rmSync(tmp, { recursive: true, force: true }));

async function transcribe(file: string): Promise<TimedNote[]> {
  const outputDir = fs.mkdtempSync(path.join(tmp, "job-"));
  const properties = audioToMidiModule.params.properties as Record<string, { default?: unknown }>;
  const params = Object.fromEntries(
    Object.entries(properties).flatMap(([k, s]) => ("default" in s ? [[k, s.default]] : [])),
  );
  const ctx: ModuleContext = {
    params,
    inputs: { audio: file },
    outputDir,
    modelsDir: tmp,
    signal: new AbortController().signal,
    fetchInput: () => Promise.reject(new Error("no fetching here")),
  };
  const outputs = await audioToMidiModule.run(ctx);
  return JSON.parse(fs.readFileSync(String(outputs.notes), "utf8")) as TimedNote[];
}

interface Tally {
  /** Per track: F-measure, or recall for a part within the mixture. */
  f: number[];
  recallOnly: boolean;
  matched: number;
  reference: number;
  estimated: number;
}

class Report {
  readonly groups = new Map<string, Tally>();
  add(group: string, reference: TimedNote[], estimated: TimedNote[], recallOnly = false): void {
    const s = noteScores(reference, estimated);
    const t = this.groups.get(group) ?? { f: [], recallOnly, matched: 0, reference: 0, estimated: 0 };
    t.f.push(recallOnly ? s.recall : s.f);
    t.matched += s.matched;
    t.reference += reference.length;
    t.estimated += estimated.length;
    this.groups.set(group, t);
  }
  mean(group: string): number {
    const f = this.groups.get(group)?.f ?? [];
    return f.reduce((a, b) => a + b, 0) / f.length;
  }
  lines(): string[] {
    return [...this.groups].map(
      ([group, t]) =>
        `${group}: ${this.mean(group).toFixed(3)} over ${t.f.length} tracks (pooled ${
          t.recallOnly ? "" : `P ${(t.matched / t.estimated).toFixed(3)}, `
        }R ${(t.matched / t.reference).toFixed(3)})`,
    );
  }
}

async function measure(split: Split): Promise<Report> {
  const report = new Report();
  for (const spec of corpusSpecs(split).filter((_, i) => i % STEP === 0)) {
    const { truth } = composeSong(spec);
    const notesOf = (name: string): TimedNote[] =>
      truth.parts.find((p) => p.name === name)?.notes.map((n) => ({ pitch: n.midi, start: n.time })) ?? [];
    const family = { comp: compFamily(truth.parts.find((p) => p.name === "comp")?.program ?? 0), lead: "lead" };
    for (const name of ["comp", "lead"] as const) {
      const solo = await renderSoloPart(spec, name, tmp);
      if (!solo) continue;
      const estimated = await transcribe(solo.file);
      report.add(`solo ${family[name]}`, notesOf(name), estimated);
      report.add("solo, every part", notesOf(name), estimated);
      fs.rmSync(solo.file);
    }
    const mixture = await transcribe(path.join(corpusDir(), spec.id, "mixture.wav"));
    report.add("mixture, every pitched note", PITCHED.flatMap(notesOf), mixture);
    for (const name of ["comp", "lead"] as const)
      if (notesOf(name).length > 0) report.add(`mixture, ${family[name]} recall`, notesOf(name), mixture, true);
  }
  return report;
}

/**
 * Issue 18's goal is note F >= 0.8 on solo parts. Measured on these tracks (development / tuning / held-out): every
 * solo part 0.862 / 0.846 / 0.812 (piano 0.903 / 0.942 / 0.929, lead 0.979 / 0.867 / 0.867, guitar 0.744 / 0.800 /
 * 0.691, organ 0.513 / 0.554 / 0.546), the mixture 0.328 / 0.396 / 0.309. Asserted at those figures less about two
 * tracks' worth (0.03 for the 20–28 solo parts, 0.04–0.06 for groups of 2–13 tracks).
 */
const FLOORS: Record<AssertedSplit, Record<string, number>> = {
  development: {
    "solo, every part": 0.83,
    "solo piano": 0.86,
    "solo lead": 0.95,
    "solo guitar": 0.7,
    "solo organ": 0.46,
    "mixture, every pitched note": 0.3,
  },
  "held-out": {
    "solo, every part": 0.78,
    "solo piano": 0.88,
    "solo lead": 0.82,
    "solo guitar": 0.63,
    "solo organ": 0.49,
    "mixture, every pitched note": 0.28,
  },
};

for (const split of SPLITS) {
  test(`MIDI transcription on the corpus, ${split} split (every ${STEP}th track)`, {
    timeout: 1_800_000,
  }, async (t) => {
    // The mixtures: rendered (or found in the cache) by the corpus for the tracks measured.
    const ids = new Set(
      corpusSpecs(split)
        .filter((_, i) => i % STEP === 0)
        .map((s) => s.id),
    );
    await renderedCorpus(split, (s) => ids.has(s.id));
    const report = await measure(split);
    for (const line of report.lines()) t.diagnostic(line);
    if (split === "tuning") return;
    const floors = FLOORS[split];
    for (const [group, floor] of Object.entries(floors)) {
      if (!report.groups.has(group)) continue;
      assert.ok(report.mean(group) >= floor, `${group}: note F ${report.mean(group).toFixed(3)} < ${floor}`);
    }
  });
}
