/**
 * mixdown/stems-4 over HTTP: four stems with the input's rate, channels and length that add up to it, each
 * closer to its source than the mixture is. Sources: synthetic drums, harmony (chords, a bass line, a plucked
 * melody; its bass and the rest are one source here, so bass + other are checked against it together) and a
 * centred sung-like line with vibrato. The corpus figures per stem are in test/corpus/separation.test.ts.
 */
import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import { decodeFloat, probe } from "../helpers/media.ts";
import { type AppInfo, assertNoneRunning, downloadTo, Mixdown } from "../helpers/mixdown.ts";
import { sdr } from "../helpers/sdr.ts";
import { drumsAndHarmony, sum, vibratoVoice } from "./signals.ts";
import { wav16 } from "./wav.ts";

/** 16-bit output: each stem is within half a step of its exact value, so the sum of four within ~2 steps. */
const STEP = 1 / 32767;

describe("mixdown/stems-4 over HTTP", () => {
  let server: Mixdown;
  let app: AppInfo;
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "mixdown-stems4-"));

  before(async () => {
    server = await Mixdown.start();
    app = await server.createApp();
  });
  after(async () => {
    await server.dispose();
    fs.rmSync(tmp, { recursive: true, force: true });
    assertNoneRunning();
  });

  test("{vocals, drums, bass, other, method}: same rate, channels and length, adding up to the input", async () => {
    const { drums, harmony } = drumsAndHarmony(10, 44100, 31);
    const voice = vibratoVoice(drums[0].length, 44100);
    const mix = sum(drums, harmony, voice);
    const input = path.join(tmp, "song.wav");
    fs.writeFileSync(input, wav16(mix, 44100));
    const url = await server.upload(app.apiKey, fs.readFileSync(input), "audio/wav");
    const job = await server.runJob(app.apiKey, "mixdown/stems-4", { inputUrl: url }, 120_000);
    assert.deepEqual(Object.keys(job.result).sort(), ["bass", "drums", "method", "other", "vocals"]);
    assert.equal(job.result.method, "classical");

    const original = await decodeFloat(input, 2);
    const stems: Record<string, Float32Array[]> = {};
    for (const name of ["vocals", "drums", "bass", "other"]) {
      const file = await downloadTo(job.result[name], path.join(tmp, `${name}.wav`));
      const { streams } = await probe(file);
      assert.equal(streams[0]?.sample_rate, "44100", name);
      assert.equal(streams[0]?.channels, 2, name);
      const decoded = await decodeFloat(file, 2);
      assert.equal(decoded[0]?.length, original[0]?.length, `${name}: length`);
      stems[name] = decoded;
    }
    let error = 0;
    for (let c = 0; c < 2; c++)
      for (let i = 0; i < (original[c]?.length ?? 0); i++) {
        let total = 0;
        for (const stem of Object.values(stems)) total += stem[c]?.[i] as number;
        error = Math.max(error, Math.abs(total - (original[c]?.[i] as number)));
      }
    assert.ok(error <= 4.5 * STEP, `stems add up to the input within ${error / STEP} steps`);

    const { vocals, drums: drumStem, bass, other } = stems as Record<string, Float32Array[]>;
    const harmonic = (bass as Float32Array[]).map((b, c) =>
      b.map((v, i) => v + ((other as Float32Array[])[c]?.[i] as number)),
    );
    const gain = (estimate: Float32Array[], source: Float32Array[]) => sdr(estimate, source) - sdr(mix, source);
    assert.ok(gain(drumStem as Float32Array[], drums) > 6, `drums SDR ${sdr(drumStem as Float32Array[], drums)}`);
    assert.ok(gain(vocals as Float32Array[], voice) > 6, `vocals SDR ${sdr(vocals as Float32Array[], voice)}`);
    assert.ok(gain(harmonic, harmony) > 3, `bass + other SDR ${sdr(harmonic, harmony)}`);
  });
});
