import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, test } from "node:test";
import { JobFailure } from "../../src/jobs/job-failure.ts";
import { AUDIO_FORMATS } from "../../src/media/formats.ts";
import { decodeAudio, encodePcm, type Pcm } from "../../src/media/pcm.ts";
import { encodeWav16, writeWav16, writeWavFloat } from "../../src/media/wav.ts";
import { ffmpeg, probe } from "../helpers/media.ts";

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "mixdown-wav-"));
after(() => fs.rmSync(tmp, { recursive: true, force: true }));
const file = (name: string) => path.join(tmp, name);

/** The samples of a 16-bit PCM WAV file: the bytes of its data chunk. */
function dataChunk(bytes: Buffer): Buffer {
  let offset = 12;
  while (bytes.toString("latin1", offset, offset + 4) !== "data") offset += 8 + bytes.readUInt32LE(offset + 4);
  return bytes.subarray(offset + 8, offset + 8 + bytes.readUInt32LE(offset + 4));
}

/** Stereo samples on every rounding edge: ties (k + 0.5) / 32768 both ways, ±1, past ±1, tiny, and a sine. */
function edgeCases(): Pcm {
  const values: number[] = [0, -0, 1, -1, 1.5, -1.5, 0.99999, -1.00001, 1e-9, -1e-9, 32767.5 / 32768];
  for (let k = -40; k <= 40; k++) values.push((k + 0.5) / 32768, k / 32768, (k + 0.25) / 32768);
  for (let i = 0; i < 2000; i++) values.push(Math.sin(i * 0.37) * 1.2);
  const left = Float32Array.from(values);
  return { sampleRate: 44100, channels: [left, left.map((v) => -v / 3)] };
}

/** The same planar samples through ffmpeg's pcm_s16le encoder, as Mixdown encoded WAV before. */
async function ffmpegWav(pcm: Pcm, name: string): Promise<Buffer> {
  const [left, right] = pcm.channels as [Float32Array, Float32Array];
  const raw = Buffer.alloc(left.length * 8);
  for (let i = 0; i < left.length; i++) {
    raw.writeFloatLE(left[i] as number, i * 8);
    raw.writeFloatLE(right[i] as number, i * 8 + 4);
  }
  fs.writeFileSync(file(`${name}.f32`), raw);
  const args = ["-f", "f32le", "-ar", String(pcm.sampleRate), "-ac", "2", "-i", file(`${name}.f32`)];
  await ffmpeg([...args, ...AUDIO_FORMATS.wav.args, file(`${name}.ffmpeg.wav`)]);
  return fs.readFileSync(file(`${name}.ffmpeg.wav`));
}

test("WAV written here has exactly ffmpeg's pcm_s16le samples, rounding (ties to even) and clipping included", async () => {
  const pcm = edgeCases();
  await encodePcm(pcm, file("edges.wav"), "wav");
  const ours = dataChunk(fs.readFileSync(file("edges.wav")));
  const theirs = dataChunk(await ffmpegWav(pcm, "edges"));
  assert.equal(ours.length, (pcm.channels[0]?.length ?? 0) * 4);
  assert.ok(ours.equals(theirs), "the samples differ from ffmpeg's");
});

test("a long file is written in blocks: the same bytes as in memory, and ffprobe reads its rate, channels and length", async () => {
  const frames = 65536 * 2 + 17;
  const channels = [0, 1].map((c) => Float32Array.from({ length: frames }, (_, i) => Math.sin(i * (0.01 + c * 0.02))));
  await writeWav16(channels, 22050, file("long.wav"));
  assert.ok(fs.readFileSync(file("long.wav")).equals(encodeWav16(channels, 22050)));
  const { streams, duration } = await probe(file("long.wav"));
  assert.equal(streams[0]?.codec_name, "pcm_s16le");
  assert.equal(streams[0]?.sample_rate, "22050");
  assert.equal(streams[0]?.channels, 2);
  assert.ok(Math.abs(duration - frames / 22050) < 0.001, `duration ${duration}`);
});

test("a stopped job stops writing; a result too long for WAV is the user's error, naming a format that fits", async () => {
  const channels = [new Float32Array(65536 * 4)];
  const controller = new AbortController();
  controller.abort(new Error("deleted"));
  await assert.rejects(writeWav16(channels, 44100, file("stopped.wav"), controller.signal), /deleted/);
  // Longer than 4 GiB of 16-bit stereo: only the length is read before refusing.
  const huge = { length: 2 ** 30 } as Float32Array;
  await assert.rejects(encodePcm({ sampleRate: 44100, channels: [huge, huge] }, file("huge.wav"), "wav"), (error) => {
    assert.ok(error instanceof JobFailure);
    assert.equal(error.code, "BAD_INPUT");
    assert.match(error.message, /4 GiB.*flac/);
    return true;
  });
  assert.equal(fs.existsSync(file("huge.wav")), false);
});

test("a float WAV keeps every sample exactly, those past full scale included; ffprobe and the decoder read it", async () => {
  const frames = 65536 + 5;
  const channels = [0, 1].map((c) =>
    Float32Array.from({ length: frames }, (_, i) => 1.7 * Math.sin(i * (0.013 + c * 0.02))),
  );
  await writeWavFloat(channels, 48000, file("float.wav"));
  const { streams, duration } = await probe(file("float.wav"));
  assert.equal(streams[0]?.codec_name, "pcm_f32le");
  assert.equal(streams[0]?.sample_rate, "48000");
  assert.equal(streams[0]?.channels, 2);
  assert.ok(Math.abs(duration - frames / 48000) < 0.001, `duration ${duration}`);
  const decoded = await decodeAudio(file("float.wav"));
  assert.equal(decoded.sampleRate, 48000);
  for (const [c, channel] of decoded.channels.entries()) assert.deepEqual(channel, channels[c], `channel ${c}`);
  assert.ok(Math.max(...(decoded.channels[0] as Float32Array)) > 1.69);
});
