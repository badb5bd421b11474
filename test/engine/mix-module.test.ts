import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, test } from "node:test";
import { FULL_SCALE } from "../../src/media/headroom.ts";
import { decodeAudio } from "../../src/media/pcm.ts";
import { encodeWav16 } from "../../src/media/wav.ts";
import { mixModule } from "../../src/modules/mix/index.ts";
import { sineWav } from "../helpers/audio.ts";
import { peakOf } from "../music/synth.ts";
import { maxDifference } from "../separation/signals.ts";

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "mixdown-mix-"));
after(() => fs.rmSync(tmp, { recursive: true, force: true }));

const STEP = 1 / 32768;

function file(name: string, wav: Buffer): string {
  const target = path.join(tmp, name);
  fs.writeFileSync(target, wav);
  return target;
}

async function mix(a: string, b: string, params: Record<string, unknown>) {
  const outputDir = fs.mkdtempSync(path.join(tmp, "out-"));
  return mixModule.run({
    params: { format: "wav", gainA: 1, gainB: 1, ...params },
    inputs: { a, b },
    outputDir,
    modelsDir: tmp,
    signal: new AbortController().signal,
    fetchInput: () => Promise.reject(new Error("no fetching here")),
  });
}

/** The largest difference between two signals of the same channels and length. */
const largestDifference = (x: readonly Float32Array[], y: readonly Float32Array[]): number =>
  Math.max(...x.map((channel, c) => maxDifference(channel, y[c] as Float32Array)));

test("mix: a short mono file and a longer stereo one sum at the higher rate and channel count, each with its gain", async () => {
  const a = file("a.wav", sineWav(1, { rate: 22050, channels: 1, frequency: 330 }));
  // b's channels differ, so a channel mix-up would show.
  const rate = 44100;
  const left = Float32Array.from({ length: 2 * rate }, (_, i) => 0.4 * Math.sin((2 * Math.PI * 220 * i) / rate));
  const right = Float32Array.from({ length: 2 * rate }, (_, i) => 0.3 * Math.sin((2 * Math.PI * 550 * i) / rate));
  const b = file("b.wav", encodeWav16([left, right], rate));
  const outputs = await mix(a, b, { gainA: 0.5, gainB: 1 });
  assert.equal(outputs.scale, 1, "nothing near full scale");
  const out = await decodeAudio(String(outputs.audio));
  assert.equal(out.sampleRate, 44100);
  assert.equal(out.channels.length, 2);
  // What the sum should be: a as ffmpeg brings it to 44.1 kHz stereo, times 0.5, plus b.
  const [aUp, bIn] = await Promise.all([decodeAudio(a, { sampleRate: 44100, channels: 2 }), decodeAudio(b)]);
  const expected = bIn.channels.map((channel, c) =>
    channel.map((v, i) => v + 0.5 * ((aUp.channels[c] as Float32Array)[i] ?? 0)),
  );
  assert.equal(out.channels[0]?.length, 2 * rate, "as long as the longer file");
  assert.ok(largestDifference(out.channels, expected) <= 1.01 * STEP, "within the 16-bit output's rounding");
});

for (const format of ["wav", "flac"] as const) {
  test(`mix (${format}): a sum past full scale is scaled down to it by the reported factor, never clipped`, async () => {
    const a = file(`loud-${format}.wav`, sineWav(1, { rate: 44100, channels: 2 }));
    const outputs = await mix(a, a, { format, gainA: 4, gainB: 4 });
    const input = await decodeAudio(a);
    const rawPeak = 8 * peakOf(input.channels);
    assert.ok(rawPeak > 3.9, `the sum would peak at ${rawPeak}`);
    assert.equal(outputs.scale, Math.floor((FULL_SCALE / rawPeak) * 1e6) / 1e6);
    const out = await decodeAudio(String(outputs.audio));
    const peak = peakOf(out.channels);
    assert.ok(peak <= FULL_SCALE && peak >= FULL_SCALE - 2 * STEP, `peak ${peak * 32768} steps`);
    // Clipping would flatten the sine's tops: every sample must be the input times 8 × scale, to a rounding.
    const expected = input.channels.map((channel) => channel.map((v) => v * 8 * (outputs.scale as number)));
    assert.ok(largestDifference(out.channels, expected) <= 1.01 * STEP);
  });
}
