/**
 * Song sections (mixdown/sections, and the sections of mixdown/beats-chords): a constructed case, the evaluation
 * measures, and the rendered corpus (test/corpus/), whose songs change instrumentation and harmony from section
 * to section (intro, verse, chorus, bridge, outro). Measures as mir_eval.segment defines them:
 *   boundary F-measure within ±3 s and within ±0.5 s, the start and end of the piece not counted (trim=True);
 *   pairwise frame clustering F-measure (Levy & Sandler 2008; mir_eval.segment.pairwise), frames every 0.1 s.
 * A baseline shows what the figures are worth: boundaries every 5 s, each span its own label (the corpus' sections
 * last 2.4 to 8 s, so at ±3 s this grid scores about 0.9; at ±0.5 s about 0.14, pairwise about 0.55).
 * Goals of issue 18, asserted on the held-out split: boundary F (±3 s) ≥ 0.7, pairwise F ≥ 0.6.
 */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { ANALYSIS_SAMPLE_RATE, analyzeMusic } from "../../src/dsp/analyze-music.ts";
import { barFeatures } from "../../src/dsp/section-features.ts";
import { pickBoundaries, splitLongSegments } from "../../src/dsp/section-novelty.ts";
import { findSections, SECTION_OPTIONS } from "../../src/dsp/sections.ts";
import { decodeAudio } from "../../src/media/pcm.ts";
import { type AssertedSplit, type RenderedTrack, renderedCorpus, type Split } from "../corpus/corpus.ts";
import { boundaryF, type LabelledSpan, pairwiseF } from "../helpers/segment-metrics.ts";
import { generateTrack, suiteSpecs } from "../music/generator.ts";
import { sectionedTrack } from "./sectioned-track.ts";

const mono = (channels: [Float32Array, Float32Array]) =>
  channels[0].map((v, i) => (v + (channels[1][i] as number)) / 2);

describe("findSections on a constructed A B A C song", () => {
  const track = sectionedTrack();
  const sections = findSections(mono(track.channels), track.sampleRate, track.truth.beats);

  test("one section per part, each starting on the downbeat of its part, A B A C", () => {
    const downbeats = track.truth.beats.filter((b) => b.beatNum === 1).map((b) => b.time);
    const firstDownbeatFrom = (t: number) => downbeats.find((d) => d >= t - 1e-9) as number;
    assert.deepEqual(
      sections.map((s) => s.label),
      track.sections.map((s) => s.label),
    );
    sections.slice(1).forEach((s, i) => {
      const join = track.sections[i + 1]?.start as number;
      assert.ok(Math.abs(s.start - firstDownbeatFrom(join)) < 1e-3, `${s.start} for the join at ${join}`);
    });
  });

  test("each section clearly apart: confidence 0.7 or more", () => {
    for (const s of sections) assert.ok(s.confidence >= 0.7, JSON.stringify(s));
  });

  test("contiguous from 0 to the end", () => {
    assert.equal(sections[0]?.start, 0);
    assert.equal(sections.at(-1)?.end, track.sections.at(-1)?.end);
    for (let i = 1; i < sections.length; i++) assert.equal(sections[i]?.start, sections[i - 1]?.end);
  });
});

test("silence, a second of audio and a steady tone without beats are one section A", () => {
  const rate = 22050;
  const fadeIn = (i: number) => Math.min(1, i / (0.05 * rate));
  const tone = Float32Array.from(
    { length: 20 * rate },
    (_, i) => fadeIn(i) * 0.3 * Math.sin((2 * Math.PI * 220 * i) / rate),
  );
  for (const [signal, beats] of [
    [new Float32Array(20 * rate), []],
    [tone.subarray(0, rate), [{ time: 0.5, beatNum: 1 }]],
    [tone, []],
  ] as const) {
    assert.deepEqual(findSections(signal, rate, [...beats]), [
      { start: 0, end: signal.length / rate, label: "A", confidence: 1 },
    ]);
  }
  assert.deepEqual(findSections(new Float32Array(0), rate, []), []);
});

test("sections cut out of a steady song (the generated suite: one groove, one sound) are not sure of themselves", () => {
  const inner: number[] = [];
  for (const spec of suiteSpecs().slice(0, 8)) {
    const track = generateTrack({ ...spec, sampleRate: ANALYSIS_SAMPLE_RATE });
    const signal = mono(track.channels);
    const found = findSections(signal, ANALYSIS_SAMPLE_RATE, analyzeMusic(signal, ANALYSIS_SAMPLE_RATE).beats);
    // Sections between two cuts (the song's start and end are certain edges).
    inner.push(...found.slice(1, -1).map((s) => s.confidence));
  }
  assert.ok(inner.length >= 5, `${inner.length} inner sections`);
  for (const confidence of inner) assert.ok(confidence < 0.5, `an inner section of a steady song at ${confidence}`);
});

test("a bar's band levels leave out the next bar's downbeat, even where it is found a little late", () => {
  // Two bars of a quiet 440 Hz tone, then bars that open with a loud 60 Hz kick (0.1 s). The bar before the
  // kick must read like the first bar: a frame straddling the bar line would put the kick into it.
  const rate = 22050;
  const bar = 2;
  const signal = Float32Array.from({ length: 4 * bar * rate }, (_, i) => {
    const t = i / rate;
    const sinceBar = t % bar;
    const kick = t >= 2 * bar && sinceBar < 0.1 ? Math.sin(2 * Math.PI * 60 * t) * (1 - sinceBar / 0.1) : 0;
    return 0.05 * Math.sin(2 * Math.PI * 440 * t) + kick;
  });
  for (const lateBy of [0, 0.02]) {
    const beats = [0, 1, 2, 3].map((b) => ({ time: b * bar + lateBy, beatNum: 1 }));
    const { timbre } = barFeatures(signal, rate, beats);
    const lowest = timbre.map((row) => row[0] as number);
    assert.ok(Math.abs((lowest[1] as number) - (lowest[0] as number)) < 3, `late by ${lateBy}: ${lowest}`);
    assert.ok((lowest[2] as number) - (lowest[1] as number) > 20, `the kick's bar stands out: ${lowest}`);
  }
});

test("a segment twice the typical length is split at the novelty peak near one typical length in", () => {
  const novelty = Float64Array.from({ length: 19 }, (_, b) => (b === 7 ? 0.4 : b === 6 ? 0.3 : 0.1));
  assert.deepEqual(splitLongSegments([0, 2, 10, 14, 18], novelty, 1.8), [0, 2, 7, 10, 14, 18]);
  assert.deepEqual(splitLongSegments([0, 2, 8, 14, 18], novelty, 1.8), [0, 2, 8, 14, 18], "no segment is long");
});

test("the edges of a lone first or last bar hide no section start next to them, and are kept where they peak", () => {
  // Twenty bars of 1.4 s, the last one (the final chord) 4 s long: its edge's one-sided novelty is the song's
  // highest, the outro starts one bar before it, and a chorus two bars before that. The first bar's edge, 1.4 s
  // in (too early for a boundary), peaks above the intro's end one bar later.
  const edges = [...Array.from({ length: 20 }, (_, i) => i * 1.4), 19 * 1.4 + 4];
  const novelty = new Float64Array(21);
  for (const [bar, value] of [
    [1, 0.5],
    [2, 0.3],
    [6, 0.7],
    [10, 0.8],
    [14, 0.85],
    [18, 0.37],
    [19, 1.3],
  ] as const)
    novelty[bar] = value;
  const found = pickBoundaries(novelty, edges, SECTION_OPTIONS).map((b) => edges[b]);
  assert.deepEqual(
    found,
    [2, 6, 10, 14, 18, 19].map((b) => edges[b]),
  );
});

test("a clip of three bars is not cut into sections shorter than the minimum by its lone bars' edges", () => {
  const edges = [0, 3, 6, 9];
  const novelty = Float64Array.from([0, 0.6, 0.9, 0]);
  const found = pickBoundaries(novelty, edges, SECTION_OPTIONS).map((b) => edges[b]);
  assert.deepEqual(found, [6]);
});

describe("segment measures", () => {
  const reference: LabelledSpan[] = [
    { start: 0, end: 10, label: "verse" },
    { start: 10, end: 20, label: "chorus" },
    { start: 20, end: 30, label: "verse" },
  ];

  test("boundary F counts inner boundaries, each matched once within the window", () => {
    assert.equal(boundaryF(reference, reference), 1);
    const shifted = reference.map((s, i) => ({ ...s, start: i === 0 ? 0 : s.start + 2, end: s.end + 2 }));
    assert.equal(boundaryF(reference, shifted, 3), 1);
    assert.equal(boundaryF(reference, shifted, 0.5), 0);
    // Two estimates near one reference boundary: one is a hit, the other a false alarm. P 2/3, R 2/2.
    const [verse, chorus, again] = reference as [LabelledSpan, LabelledSpan, LabelledSpan];
    const doubled = [verse, { start: 10, end: 11, label: "x" }, { ...chorus, start: 11 }, again];
    assert.ok(Math.abs(boundaryF(reference, doubled, 3) - 0.8) < 1e-9);
  });

  test("pairwise F is indifferent to label names and penalises merges and splits", () => {
    const renamed = reference.map((s) => ({ ...s, label: s.label === "verse" ? "A" : "B" }));
    assert.equal(pairwiseF(reference, renamed), 1);
    // 300 frames, 100 a span. One label for all: recall 1, precision (C(200,2) + C(100,2)) / C(300,2) ≈ 0.554.
    const merged = pairwiseF(reference, [{ start: 0, end: 30, label: "A" }]);
    assert.ok(Math.abs(merged - 0.713) < 0.005, String(merged));
    // Each span its own label: precision 1, recall 3·C(100,2) / (C(200,2) + C(100,2)) ≈ 0.598.
    const split = pairwiseF(
      reference,
      reference.map((s, i) => ({ ...s, label: String(i) })),
    );
    assert.ok(Math.abs(split - 0.748) < 0.005, String(split));
  });
});

interface Row {
  id: string;
  boundaryF3: number;
  boundaryF05: number;
  pairwiseF: number;
  gridF3: number;
  gridF05: number;
  gridPairwiseF: number;
}

/** Boundaries every `step` seconds, each span its own label: the baseline. */
function grid(duration: number, step: number): LabelledSpan[] {
  const spans: LabelledSpan[] = [];
  for (let start = 0; start < duration - step / 2; start += step)
    spans.push({ start, end: Math.min(duration, start + step), label: String(spans.length) });
  (spans.at(-1) as LabelledSpan).end = duration;
  return spans;
}

async function evaluate(track: RenderedTrack): Promise<Row> {
  const pcm = await decodeAudio(track.mixture, { sampleRate: ANALYSIS_SAMPLE_RATE, channels: 1 });
  const signal = pcm.channels[0] as Float32Array;
  const sections = findSections(signal, pcm.sampleRate, analyzeMusic(signal, pcm.sampleRate).beats);
  const truth = track.truth.sections;
  const baseline = grid(track.truth.duration, 5);
  return {
    id: track.id,
    boundaryF3: boundaryF(truth, sections, 3),
    boundaryF05: boundaryF(truth, sections, 0.5),
    pairwiseF: pairwiseF(truth, sections),
    gridF3: boundaryF(truth, baseline, 3),
    gridF05: boundaryF(truth, baseline, 0.5),
    gridPairwiseF: pairwiseF(truth, baseline),
  };
}

const round3 = (x: number) => Math.round(x * 1000) / 1000;
const mean = (rows: Row[], pick: (r: Row) => number) => round3(rows.reduce((a, r) => a + pick(r), 0) / rows.length);

/**
 * Held-out: the goals of issue 18. Development: the figures measured less a margin. Measured last (2026-12-05,
 * letters joined within 2.5 dB): development boundary F ±3 s 0.930, ±0.5 s 0.875, pairwise F 0.854; held-out
 * 0.936, 0.800, 0.846 (at 3 dB that day: pairwise 0.875 and 0.849; on 2026-11-24: 0.902, 0.804, 0.848 and 0.866,
 * 0.606, 0.784); on 2026-12-06, with the bars' features clear of the next downbeat: 0.928, 0.869, 0.857 and
 * 0.941, 0.806, 0.849; on 2026-12-07, with a lone first or last bar's edge weighed apart: 0.920, 0.869, 0.862 and
 * 0.948, 0.811, 0.848. The
 * boundaries sit on the analysis' downbeats, which another change was improving meanwhile; over its versions
 * ±0.5 s moved most (held-out 0.54–0.60), so it is asserted only against the grid. With the true beats the
 * development split gives 0.959, 0.903 and 0.890.
 */
const FLOORS: Record<AssertedSplit, { boundaryF3: number; pairwiseF: number }> = {
  development: { boundaryF3: 0.85, pairwiseF: 0.8 },
  "held-out": { boundaryF3: 0.7, pairwiseF: 0.6 },
};

for (const split of ["development", "held-out"] as const) {
  test(`song sections on the rendered corpus, ${split} split`, async (t) => {
    const rows: Row[] = [];
    for (const track of await renderedCorpus(split)) rows.push(await evaluate(track));
    for (const r of rows)
      t.diagnostic(
        `track ${r.id}: boundary F ±3 s ${round3(r.boundaryF3)}, ±0.5 s ${round3(r.boundaryF05)}, pairwise F ${round3(r.pairwiseF)}`,
      );
    const summary = {
      tracks: rows.length,
      boundaryF3: mean(rows, (r) => r.boundaryF3),
      boundaryF05: mean(rows, (r) => r.boundaryF05),
      pairwiseF: mean(rows, (r) => r.pairwiseF),
      baselineGrid5sF3: mean(rows, (r) => r.gridF3),
      baselineGrid5sF05: mean(rows, (r) => r.gridF05),
      baselineGrid5sPairwiseF: mean(rows, (r) => r.gridPairwiseF),
    };
    t.diagnostic(`summary ${split}: ${JSON.stringify(summary)}`);
    const floor = FLOORS[split];
    assert.ok(summary.boundaryF3 >= floor.boundaryF3, `boundary F ±3 s ${summary.boundaryF3}`);
    assert.ok(summary.pairwiseF >= floor.pairwiseF, `pairwise F ${summary.pairwiseF}`);
    // Far better than the grid where the window is tight, and in grouping (the grid labels every span apart).
    assert.ok(summary.boundaryF05 >= 2 * summary.baselineGrid5sF05, "±0.5 s against the 5 s grid");
    assert.ok(summary.pairwiseF >= summary.baselineGrid5sPairwiseF + 0.1, "pairwise F against the 5 s grid");
  });
}
