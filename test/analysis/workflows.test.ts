import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { fMeasure, tempoVerdict } from "../helpers/mir-metrics.ts";
import { type AppInfo, assertNoneRunning, Mixdown } from "../helpers/mixdown.ts";
import { encodeWav, generateTrack, suiteSpecs, type Track, type TrackSpec } from "../music/generator.ts";
import { CHORD_VOCABULARY } from "../music/theory.ts";
import { sectionedTrack } from "./sectioned-track.ts";

/** Contiguous spans from 0 to the end of the audio (within a frame), labelled A, B, … in order of first appearance. */
function assertValidSections(
  sections: { start: number; end: number; label: string; confidence: number }[],
  duration: number,
): void {
  assert.ok(sections.length >= 1);
  assert.equal(sections[0]?.start, 0);
  assert.ok(Math.abs((sections.at(-1)?.end as number) - duration) < 0.01, `ends at ${sections.at(-1)?.end}`);
  const seen: string[] = [];
  for (const [i, s] of sections.entries()) {
    assert.ok(s.end > s.start);
    assert.ok(s.confidence >= 0 && s.confidence <= 1, `section confidence ${s.confidence}`);
    if (i > 0) assert.equal(s.start, sections[i - 1]?.end, "contiguous");
    if (!seen.includes(s.label)) {
      assert.equal(s.label, String.fromCharCode(65 + seen.length), "letters in order of first appearance");
      seen.push(s.label);
    }
  }
}

describe("analysis workflows over HTTP", () => {
  let server: Mixdown;
  let app: AppInfo;
  let track: Track;
  let inputUrl: string;

  before(async () => {
    server = await Mixdown.start();
    app = await server.createApp();
    track = generateTrack(suiteSpecs()[5] as TrackSpec);
    inputUrl = await server.upload(app.apiKey, encodeWav(track), "audio/wav");
  });
  after(async () => {
    await server.dispose();
    assertNoneRunning();
  });

  const run = async (workflow: string) => (await server.runJob(app.apiKey, workflow, { inputUrl })).result;

  test("mixdown/beats-chords: bpm and key inline, beat and chord maps and sections as JSON files", async () => {
    const result = await run("mixdown/beats-chords");
    assert.deepEqual(Object.keys(result).sort(), [
      "beatMap",
      "bpm",
      "bpmConfidence",
      "chordMap",
      "key",
      "keyConfidence",
      "sections",
    ]);
    assert.equal(typeof result.bpm, "number");
    assert.ok(result.bpmConfidence >= 0.5 && result.bpmConfidence <= 1, `bpm confidence ${result.bpmConfidence}`);
    assert.ok(result.keyConfidence >= 0.5 && result.keyConfidence <= 1, `key confidence ${result.keyConfidence}`);
    assert.equal(tempoVerdict(track.truth.bpm, result.bpm), "correct");
    assert.equal(result.key, track.truth.key);
    const beatMap = (await (await fetch(result.beatMap)).json()) as { time: number; beatNum: number }[];
    assert.ok(
      beatMap.every(
        (b) =>
          typeof b.time === "number" && Number.isInteger(b.beatNum) && b.beatNum >= 1 && b.beatNum <= track.truth.meter,
      ),
    );
    assert.ok(
      fMeasure(
        track.truth.beats.map((b) => b.time),
        beatMap.map((b) => b.time),
      ) >= 0.9,
    );
    const chordMap = (await (await fetch(result.chordMap)).json()) as {
      start: number;
      end: number;
      chord: string;
      confidence: number;
    }[];
    assert.ok(chordMap.length > 1);
    for (const [i, span] of chordMap.entries()) {
      assert.ok(span.end > span.start);
      assert.ok(span.confidence >= 0 && span.confidence <= 1, `chord confidence ${span.confidence}`);
      assert.ok(span.chord === "N" || CHORD_VOCABULARY.includes(span.chord), span.chord);
      if (i > 0) assert.equal(span.start, chordMap[i - 1]?.end, "contiguous");
    }
    const sections = (await (await fetch(result.sections)).json()) as Parameters<typeof assertValidSections>[0];
    const downbeats = new Set(beatMap.filter((b) => b.beatNum === 1).map((b) => b.time));
    assertValidSections(sections, chordMap.at(-1)?.end as number);
    for (const s of sections.slice(1)) assert.ok(downbeats.has(s.start), `section start ${s.start} on a downbeat`);
  });

  test("mixdown/sections: the sections of a constructed A B A C song as a JSON file; listed and described", async () => {
    const song = sectionedTrack();
    const songUrl = await server.upload(app.apiKey, encodeWav(song), "audio/wav");
    const result = (await server.runJob(app.apiKey, "mixdown/sections", { inputUrl: songUrl })).result;
    assert.deepEqual(Object.keys(result), ["sections"]);
    const sections = (await (await fetch(result.sections)).json()) as Parameters<typeof assertValidSections>[0];
    assertValidSections(sections, song.sections.at(-1)?.end as number);
    assert.deepEqual(
      sections.map((s) => s.label),
      ["A", "B", "A", "C"],
    );
    sections.slice(1).forEach((s, i) => {
      const join = song.sections[i + 1]?.start as number;
      assert.ok(Math.abs(s.start - join) < 0.5, `boundary ${s.start} for the join at ${join}`);
    });

    const listed = await server.api("GET", "/v1/workflow?size=100", { key: app.apiKey });
    assert.ok(listed.body.workflows.some((wf: { slug: string }) => wf.slug === "mixdown/sections"));
    const described = await server.api("GET", "/v1/workflow/mixdown/sections", { key: app.apiKey });
    assert.equal(described.status, 200);
    assert.equal(described.body.runnable, true);
    assert.equal(described.body.outputs.sections.kind, "file URL");
    assert.match(described.body.outputs.sections.description, /"start".*"end".*"label".*"confidence"/);
    const tempo = await server.api("GET", "/v1/workflow/mixdown/tempo", { key: app.apiKey });
    assert.equal(tempo.body.outputs.bpm.nullable, true, "bpm may be null");
    assert.match(tempo.body.outputs.bpm.description, /null when there is no steady beat/);
    assert.equal(tempo.body.outputs.confidence.nullable, undefined, "a confidence is always a number");
  });

  test("mixdown/tempo gives bpm with a confidence and the beat map; mixdown/key the key with a confidence", async () => {
    const tempo = await run("mixdown/tempo");
    assert.deepEqual(Object.keys(tempo).sort(), ["beatMap", "bpm", "confidence"]);
    assert.equal(tempoVerdict(track.truth.bpm, tempo.bpm), "correct");
    assert.ok(tempo.confidence >= 0.5 && tempo.confidence <= 1, String(tempo.confidence));
    const key = await run("mixdown/key");
    assert.deepEqual(Object.keys(key).sort(), ["confidence", "key"]);
    assert.equal(key.key, track.truth.key);
    assert.ok(key.confidence > 0 && key.confidence <= 1, String(key.confidence));
  });
});
