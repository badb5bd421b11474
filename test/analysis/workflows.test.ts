import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { fMeasure, tempoVerdict } from "../helpers/mir-metrics.ts";
import { type AppInfo, assertNoneRunning, Mixdown } from "../helpers/mixdown.ts";
import { encodeWav, generateTrack, suiteSpecs, type Track, type TrackSpec } from "../music/generator.ts";
import { CHORD_VOCABULARY } from "../music/theory.ts";

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

  test("mixdown/beats-chords: bpm and key inline, beat and chord maps as JSON files", async () => {
    const result = await run("mixdown/beats-chords");
    assert.deepEqual(Object.keys(result).sort(), ["beatMap", "bpm", "chordMap", "key"]);
    assert.equal(typeof result.bpm, "number");
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
    const chordMap = (await (await fetch(result.chordMap)).json()) as { start: number; end: number; chord: string }[];
    assert.ok(chordMap.length > 1);
    for (const [i, span] of chordMap.entries()) {
      assert.ok(span.end > span.start);
      assert.ok(span.chord === "N" || CHORD_VOCABULARY.includes(span.chord), span.chord);
      if (i > 0) assert.equal(span.start, chordMap[i - 1]?.end, "contiguous");
    }
  });

  test("mixdown/tempo gives bpm and the beat map; mixdown/key gives the key with a confidence", async () => {
    const tempo = await run("mixdown/tempo");
    assert.deepEqual(Object.keys(tempo).sort(), ["beatMap", "bpm"]);
    assert.equal(tempoVerdict(track.truth.bpm, tempo.bpm), "correct");
    const key = await run("mixdown/key");
    assert.deepEqual(Object.keys(key).sort(), ["confidence", "key"]);
    assert.equal(key.key, track.truth.key);
    assert.ok(key.confidence > 0 && key.confidence <= 1, String(key.confidence));
  });
});
