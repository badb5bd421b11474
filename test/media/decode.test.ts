import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, before, test } from "node:test";
import { JobFailure } from "../../src/jobs/job-failure.ts";
import { decodeAudio } from "../../src/media/pcm.ts";
import { NO_AUDIO_MESSAGE, NOT_MEDIA_MESSAGE } from "../../src/media/probe.ts";
import { ffmpeg } from "../helpers/media.ts";

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "mixdown-decode-"));
after(() => fs.rmSync(tmp, { recursive: true, force: true }));
const file = (name: string) => path.join(tmp, name);

before(async () => {
  // Left: a 0.5-amplitude 1 kHz sine; right: silence. One second at 16 kHz.
  await ffmpeg(["-f", "lavfi", "-i", "aevalsrc=exprs=0.5*sin(2*PI*1000*t)|0:d=1:s=16000", file("stereo.wav")]);
  await ffmpeg(["-f", "lavfi", "-i", "testsrc=duration=1:size=64x64:rate=10", file("silent-video.mp4")]);
  fs.writeFileSync(file("junk.bin"), "this is not audio\n".repeat(100));
});

const peak = (samples: Float32Array) => samples.reduce((max, x) => Math.max(max, Math.abs(x)), 0);

test("a file decodes at its own rate and channels, as separate planes", async () => {
  const pcm = await decodeAudio(file("stereo.wav"));
  assert.equal(pcm.sampleRate, 16000);
  assert.equal(pcm.channels.length, 2);
  const [left, right] = pcm.channels as [Float32Array, Float32Array];
  assert.equal(left.length, 16000);
  assert.ok(Math.abs(peak(left) - 0.5) < 0.01, `left peak ${peak(left)}`);
  assert.equal(peak(right), 0);
});

test("a file decodes at a requested rate and channel count (mono is ffmpeg's downmix, (L + R) / √2)", async () => {
  const pcm = await decodeAudio(file("stereo.wav"), { sampleRate: 8000, channels: 1 });
  assert.equal(pcm.sampleRate, 8000);
  assert.equal(pcm.channels.length, 1);
  const mono = pcm.channels[0] as Float32Array;
  assert.ok(Math.abs(mono.length - 8000) <= 16, `length ${mono.length}`);
  assert.ok(Math.abs(peak(mono) - 0.5 / Math.SQRT2) < 0.02, `mono peak ${peak(mono)}`);
});

for (const options of [{}, { sampleRate: 22050, channels: 1 }]) {
  const asked = Object.keys(options).length ? "at a requested rate" : "at its own rate";
  test(`decoding ${asked}: a file that is not media, or has no sound, fails as bad input with a plain reason`, async () => {
    for (const [name, message] of [
      ["junk.bin", NOT_MEDIA_MESSAGE],
      ["silent-video.mp4", NO_AUDIO_MESSAGE],
    ] as const) {
      await assert.rejects(decodeAudio(file(name), options), (error: unknown) => {
        assert.ok(error instanceof JobFailure, `${name}: ${String(error)}`);
        assert.equal(error.code, "BAD_INPUT");
        assert.equal(error.message, message);
        return true;
      });
    }
  });
}
