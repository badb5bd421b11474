import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, before, test } from "node:test";
import { sineWav } from "../helpers/audio.ts";
import { describeOrSkip } from "../helpers/backends.ts";
import { scratchFiles, storedKeys } from "../helpers/inspect.ts";
import { ffmpeg, probe } from "../helpers/media.ts";
import { type AppInfo, assertNoneRunning, BACKENDS, Mixdown } from "../helpers/mixdown.ts";

const CODECS = {
  mp3: "mp3",
  wav: "pcm_s16le",
  flac: "flac",
  ogg: "vorbis",
  opus: "opus",
  m4a: "aac",
} as const;

for (const { backend, skip } of BACKENDS)
  describeOrSkip(`mixdown/convert [${backend}]`, skip, () => {
    let server: Mixdown;
    let app: AppInfo;
    let wavUrl: string;
    const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "mixdown-convert-"));

    before(async () => {
      server = await Mixdown.start({}, { backend });
      app = await server.createApp();
      wavUrl = await server.upload(app.apiKey, sineWav(2, { rate: 44100, channels: 2 }), "audio/wav");
    });
    after(async () => {
      await server.dispose();
      fs.rmSync(tmp, { recursive: true, force: true });
      assertNoneRunning();
    });

    async function convertAndFetch(
      params: Record<string, unknown>,
    ): Promise<{ job: any; file: string; contentType: string }> {
      const id = await server.createJob(app.apiKey, "mixdown/convert", params);
      const job = await server.waitForJob(app.apiKey, id);
      assert.equal(job.status, "SUCCEEDED", JSON.stringify(job.error));
      assert.deepEqual(Object.keys(job.result), ["output"]);
      const response = await fetch(job.result.output);
      assert.equal(response.status, 200);
      const file = path.join(tmp, `${id}.${params.format}`);
      fs.writeFileSync(file, Buffer.from(await response.arrayBuffer()));
      return { job, file, contentType: response.headers.get("content-type") ?? "" };
    }

    for (const [format, codec] of Object.entries(CODECS)) {
      test(`converts WAV to ${format}: right codec, same duration, a download URL with the extension`, async () => {
        const { job, file, contentType } = await convertAndFetch({ inputUrl: wavUrl, format });
        assert.match(new URL(job.result.output).pathname, new RegExp(`\\.${format}$`));
        assert.match(contentType, /^audio\//);
        const info = await probe(file);
        const audio = info.streams.find((s) => s.codec_type === "audio");
        assert.equal(audio?.codec_name, codec);
        assert.ok(Math.abs(info.duration - 2) < 0.1, `duration ${info.duration}`);
        assert.ok(job.startedAt && job.completedAt && job.startedAt <= job.completedAt);
      });
    }

    test("resamples and remixes to the requested rate and channel count", async () => {
      const { file } = await convertAndFetch({
        inputUrl: wavUrl,
        format: "flac",
        sampleRate: 22050,
        channels: 1,
      });
      const audio = (await probe(file)).streams[0];
      assert.equal(audio?.sample_rate, "22050");
      assert.equal(audio?.channels, 1);
    });

    test("takes the audio out of a video file", async () => {
      const video = path.join(tmp, "clip.mp4");
      await ffmpeg([
        ...["-f", "lavfi", "-i", "testsrc=size=64x64:rate=10:duration=1"],
        ...["-f", "lavfi", "-i", "sine=frequency=330:duration=1"],
        ...["-c:v", "mpeg4", "-c:a", "aac", "-shortest", video],
      ]);
      const url = await server.upload(app.apiKey, fs.readFileSync(video), "video/mp4");
      const { file } = await convertAndFetch({ inputUrl: url, format: "wav" });
      const info = await probe(file);
      assert.deepEqual(
        info.streams.map((s) => s.codec_type),
        ["audio"],
      );
    });

    test("bytes that are not media as input: FAILED with BAD_INPUT, its title and a readable message", async () => {
      // Text rather than random bytes, which now and then hold enough MP3 frame syncs for ffmpeg to decode.
      const url = await server.upload(app.apiKey, Buffer.from("not audio at all\n".repeat(4096)), "audio/mpeg");
      const job = await server.waitForJob(
        app.apiKey,
        await server.createJob(app.apiKey, "mixdown/convert", { inputUrl: url, format: "mp3" }),
      );
      assert.equal(job.status, "FAILED");
      assert.equal(job.error.code, "BAD_INPUT");
      assert.equal(job.error.title, "Invalid input");
      assert.match(job.error.message, /not a media file|no audio stream/);
      assert.equal(job.result, null);
      assert.ok(!job.error.message.includes(" at "), "no stack trace");
    });

    test("a video without audio: FAILED with BAD_INPUT", async () => {
      const video = path.join(tmp, "silent.mp4");
      await ffmpeg(["-f", "lavfi", "-i", "testsrc=size=64x64:rate=10:duration=1", "-c:v", "mpeg4", video]);
      const url = await server.upload(app.apiKey, fs.readFileSync(video), "video/mp4");
      const job = await server.waitForJob(
        app.apiKey,
        await server.createJob(app.apiKey, "mixdown/convert", { inputUrl: url, format: "mp3" }),
      );
      assert.equal(job.status, "FAILED");
      assert.equal(job.error.code, "BAD_INPUT");
      assert.match(job.error.message, /no audio stream/);
    });

    test("an upload URL that was never used: FAILED with BAD_INPUT saying the file is missing", async () => {
      const pair = await server.api("GET", "/v1/upload", { key: app.apiKey });
      const id = await server.createJob(app.apiKey, "mixdown/convert", {
        inputUrl: pair.body.downloadUrl,
        format: "mp3",
      });
      const job = await server.waitForJob(app.apiKey, id);
      assert.equal(job.error?.code, "BAD_INPUT");
      assert.match(job.error.message, /missing/);
    });

    test("one of our own URLs with a forged signature: FAILED with BAD_INPUT", async () => {
      const forged = wavUrl.replace(/([Ss]ignature=)[^&]+/, "$1forged");
      const job = await server.waitForJob(
        app.apiKey,
        await server.createJob(app.apiKey, "mixdown/convert", { inputUrl: forged, format: "mp3" }),
      );
      assert.equal(job.error?.code, "BAD_INPUT");
      assert.match(job.error.message, /signature/);
    });

    test("deleting a finished job deletes its result file: the URL stops working", async () => {
      const { job } = await convertAndFetch({ inputUrl: wavUrl, format: "wav" });
      assert.equal((await storedKeys(server, `results/${job.id}/`)).length, 1);
      assert.equal((await server.api("DELETE", `/v1/job/${job.id}`, { key: app.apiKey })).status, 200);
      assert.equal((await fetch(job.result.output)).status, 404);
      assert.deepEqual(await storedKeys(server, `results/${job.id}/`), []);
    });

    test("scratch space is empty once jobs have ended", async () => {
      await convertAndFetch({ inputUrl: wavUrl, format: "ogg" });
      assert.deepEqual(scratchFiles(server), []);
    });
  });
