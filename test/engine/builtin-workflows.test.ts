import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import { decodeFloat, ffmpeg, ffmpegLoudness, sox } from "../helpers/media.ts";
import { type AppInfo, assertNoneRunning, downloadTo, Mixdown } from "../helpers/mixdown.ts";
import { readPng } from "../helpers/png.ts";

describe("built-in workflows: loudness, waveform, spectrogram, probe", () => {
  let server: Mixdown;
  let app: AppInfo;
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "mixdown-builtin-"));
  const music = path.join(tmp, "music.wav");
  let musicUrl: string;

  before(async () => {
    server = await Mixdown.start();
    app = await server.createApp();
    // 12 s with a quiet and a loud part: pink noise, then a tone over noise.
    const quiet = path.join(tmp, "quiet.wav");
    const loud = path.join(tmp, "loud.wav");
    await sox(["-n", "-r", "44100", "-c", "2", quiet, "synth", "6", "pinknoise", "vol", "0.05"]);
    await sox([
      "-n",
      "-r",
      "44100",
      "-c",
      "2",
      loud,
      "synth",
      "6",
      "pinknoise",
      "vol",
      "0.15",
      "synth",
      "6",
      "sine",
      "mix",
      "660",
    ]);
    await sox([quiet, loud, music]);
    musicUrl = await server.upload(app.apiKey, fs.readFileSync(music), "audio/wav");
  });
  after(async () => {
    await server.dispose();
    fs.rmSync(tmp, { recursive: true, force: true });
    assertNoneRunning();
  });

  const run = (workflow: string, params: Record<string, unknown>) => server.runJob(app.apiKey, workflow, params);
  const download = (url: string, name: string) => downloadTo(url, path.join(tmp, name));

  test("mixdown/loudness agrees with ffmpeg's ebur128 (0.5 LU integrated, 0.5 dB true peak, 1 LU range)", async () => {
    const job = await run("mixdown/loudness", { inputUrl: musicUrl });
    const reference = await ffmpegLoudness(music);
    assert.ok(
      Math.abs(job.result.integratedLoudness - reference.integrated) <= 0.5,
      `${job.result.integratedLoudness} vs ${reference.integrated}`,
    );
    assert.ok(
      Math.abs(job.result.truePeak - reference.truePeak) <= 0.5,
      `${job.result.truePeak} vs ${reference.truePeak}`,
    );
    assert.ok(
      Math.abs(job.result.loudnessRange - reference.range) <= 1,
      `${job.result.loudnessRange} vs ${reference.range}`,
    );
  });

  test("mixdown/loudness-normalize reaches the target loudness, as ffmpeg measures the output", async () => {
    const job = await run("mixdown/loudness-normalize", { inputUrl: musicUrl, targetLoudness: -23, format: "flac" });
    assert.deepEqual(Object.keys(job.result).sort(), ["integratedLoudness", "loudnessRange", "output", "truePeak"]);
    const output = await download(job.result.output, "normalized.flac");
    const measured = await ffmpegLoudness(output);
    assert.ok(Math.abs(measured.integrated - -23) <= 0.5, `output at ${measured.integrated} LUFS`);
    assert.ok(Math.abs(job.result.integratedLoudness - measured.integrated) <= 0.5);
    assert.ok(Math.abs(job.result.truePeak - measured.truePeak) <= 0.5);
  });

  test("mixdown/loudness-normalize: the true-peak ceiling wins over the target", async () => {
    // The loud part peaks near -2 dBTP: reaching -5 LUFS would put the peak well above an -8 dBTP ceiling.
    const job = await run("mixdown/loudness-normalize", { inputUrl: musicUrl, targetLoudness: -5, truePeakLimit: -8 });
    const measured = await ffmpegLoudness(await download(job.result.output, "limited.wav"));
    assert.ok(measured.truePeak <= -7.5, `true peak ${measured.truePeak}`);
    assert.ok(job.result.truePeak <= -7.95, `reported true peak ${job.result.truePeak}`);
    assert.ok(
      measured.integrated < -5.5,
      `output at ${measured.integrated} LUFS, true peak ${measured.truePeak}: the target was reached`,
    );
  });

  test("mixdown/waveform: peaks are the min/max of the decoded samples; the image has the asked size", async () => {
    const job = await run("mixdown/waveform", { inputUrl: musicUrl, pointsPerSecond: 20, width: 400, height: 100 });
    const peaks = await (await fetch(job.result.peaks)).json();
    assert.equal(peaks.sampleRate, 44100);
    assert.equal(peaks.channels, 2);
    assert.equal(peaks.samplesPerPeak, 2205);
    const channels = await decodeFloat(music, 2);
    const frames = channels[0]?.length ?? 0;
    assert.equal(peaks.length, Math.ceil(frames / 2205));
    assert.equal(peaks.data.length, peaks.length * 2);
    for (let b = 0; b < peaks.length; b++) {
      let lo = Infinity;
      let hi = -Infinity;
      for (const channel of channels) {
        for (let i = b * 2205; i < Math.min(frames, (b + 1) * 2205); i++) {
          lo = Math.min(lo, channel[i] as number);
          hi = Math.max(hi, channel[i] as number);
        }
      }
      assert.ok(
        Math.abs(peaks.data[2 * b] - lo) <= 1e-4 && Math.abs(peaks.data[2 * b + 1] - hi) <= 1e-4,
        `bucket ${b}`,
      );
    }
    const image = readPng(Buffer.from(await (await fetch(job.result.image)).arrayBuffer()));
    assert.deepEqual([image.width, image.height], [400, 100]);
    // The quiet first half draws shorter bars than the loud second half.
    const barHeight = (x: number) =>
      Array.from({ length: 100 }, (_, y) => image.pixel(x, y)[3]).filter((a) => a === 255).length;
    assert.ok(barHeight(300) > barHeight(100) * 1.5, `${barHeight(300)} vs ${barHeight(100)}`);
  });

  test("mixdown/spectrogram: a 1 kHz tone is brightest on the 1 kHz row of the log-frequency axis", async () => {
    const tone = path.join(tmp, "tone.wav");
    await sox(["-n", "-r", "44100", "-c", "1", tone, "synth", "2", "sine", "1000", "vol", "0.5"]);
    const url = await server.upload(app.apiKey, fs.readFileSync(tone), "audio/wav");
    const job = await run("mixdown/spectrogram", { inputUrl: url, width: 64, height: 256 });
    const image = readPng(Buffer.from(await (await fetch(job.result.image)).arrayBuffer()));
    assert.deepEqual([image.width, image.height], [64, 256]);
    const brightness = (y: number) => {
      const [r = 0, g = 0, b = 0] = image.pixel(32, y);
      return r + g + b;
    };
    const brightest = Array.from({ length: 256 }, (_, y) => y).reduce(
      (best, y) => (brightness(y) > brightness(best) ? y : best),
      0,
    );
    const expected = 255 - (255 * Math.log(1000 / 30)) / Math.log(16000 / 30);
    assert.ok(Math.abs(brightest - expected) <= 3, `brightest row ${brightest}, expected ${expected.toFixed(1)}`);
  });

  test("mixdown/probe: duration, codec, rate, channels, bitrate and tags, inline", async () => {
    const tagged = path.join(tmp, "tagged.mp3");
    await ffmpeg([
      "-i",
      music,
      "-t",
      "3",
      "-ac",
      "1",
      "-ar",
      "32000",
      "-b:a",
      "96k",
      "-metadata",
      "title=Probe Me",
      "-metadata",
      "artist=Mixdown",
      tagged,
    ]);
    const url = await server.upload(app.apiKey, fs.readFileSync(tagged), "audio/mpeg");
    const { metadata } = (await run("mixdown/probe", { inputUrl: url })).result;
    assert.equal(metadata.format, "mp3");
    assert.ok(Math.abs(metadata.durationSeconds - 3) < 0.1, String(metadata.durationSeconds));
    assert.deepEqual(
      { codec: metadata.audio.codec, sampleRate: metadata.audio.sampleRate, channels: metadata.audio.channels },
      { codec: "mp3", sampleRate: 32000, channels: 1 },
    );
    assert.ok(Math.abs(metadata.audio.bitrate - 96000) < 2000);
    assert.equal(metadata.tags.title, "Probe Me");
    assert.equal(metadata.tags.artist, "Mixdown");
    assert.equal(metadata.hasVideo, false);
  });
});
