import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, before, test } from "node:test";
import { sineWav } from "../helpers/audio.ts";
import { describeOrSkip } from "../helpers/backends.ts";
import { scratchFiles, storedKeys } from "../helpers/inspect.ts";
import { probe } from "../helpers/media.ts";
import { type AppInfo, assertNoneRunning, BACKENDS, Mixdown } from "../helpers/mixdown.ts";

/** Fan-out (two conversions, a probe) and fan-in (their mix), in YAML. */
const DOUBLE_UP = `
slug: acme/double-up
name: Double up
description: Converts the input twice, mixes the two copies and measures the gain.
inputSchema:
  type: object
  required: [inputUrl]
  properties:
    inputUrl: { type: string }
steps:
  - { id: input, module: fetch, inputs: { url: $params.inputUrl } }
  - id: left
    module: convert
    params: { format: wav, sampleRate: 22050, channels: 1 }
    inputs: { audio: $steps.input.file }
  - id: right
    module: convert
    params: { format: flac, sampleRate: 22050, channels: 1 }
    inputs: { audio: $steps.input.file }
  - { id: sum, module: mix, params: { format: wav }, inputs: { a: $steps.left.audio, b: $steps.right.audio } }
  - { id: before, module: loudness, inputs: { audio: $steps.left.audio } }
  - { id: after, module: loudness, inputs: { audio: $steps.sum.audio } }
  - { id: meta, module: probe, inputs: { audio: $steps.input.file } }
outputs:
  mixed: $steps.sum.audio
  loudnessBefore: $steps.before.integratedLoudness
  loudnessAfter: $steps.after.integratedLoudness
  scale: $steps.sum.scale
  metadata: $steps.meta.metadata
`;

/** One branch succeeds while the other fails (opus cannot be encoded at 44.1 kHz). */
const HALF_BROKEN = {
  slug: "acme/half-broken",
  name: "Half broken",
  description: "",
  inputSchema: { type: "object", required: ["inputUrl"], properties: { inputUrl: { type: "string" } } },
  steps: [
    { id: "input", module: "fetch", inputs: { url: "$params.inputUrl" } },
    { id: "good", module: "convert", params: { format: "wav" }, inputs: { audio: "$steps.input.file" } },
    {
      id: "bad",
      module: "convert",
      params: { format: "opus", sampleRate: 44100 },
      inputs: { audio: "$steps.input.file" },
    },
  ],
  outputs: { good: "$steps.good.audio", bad: "$steps.bad.audio" },
};

for (const { backend, skip } of BACKENDS)
  describeOrSkip(`custom workflows run end to end over HTTP [${backend}]`, skip, () => {
    let server: Mixdown;
    let app: AppInfo;
    let inputUrl: string;
    const workflowsDir = fs.mkdtempSync(path.join(os.tmpdir(), "mixdown-workflows-"));

    before(async () => {
      fs.writeFileSync(path.join(workflowsDir, "double-up.yaml"), DOUBLE_UP);
      fs.writeFileSync(path.join(workflowsDir, "half-broken.json"), JSON.stringify(HALF_BROKEN));
      server = await Mixdown.start({ MIXDOWN_WORKFLOWS_DIR: workflowsDir }, { backend });
      app = await server.createApp();
      inputUrl = await server.upload(app.apiKey, sineWav(3, { rate: 44100, channels: 2, frequency: 330 }), "audio/wav");
    });
    after(async () => {
      await server.dispose();
      fs.rmSync(workflowsDir, { recursive: true, force: true });
      assertNoneRunning();
    });

    test("fan-out and fan-in: files become URLs, numbers and objects stay inline, results are right", async () => {
      const job = await server.waitForJob(
        app.apiKey,
        await server.createJob(app.apiKey, "acme/double-up", { inputUrl }),
      );
      assert.equal(job.status, "SUCCEEDED", JSON.stringify(job.error));
      assert.deepEqual(Object.keys(job.result).sort(), [
        "loudnessAfter",
        "loudnessBefore",
        "metadata",
        "mixed",
        "scale",
      ]);
      assert.match(job.result.mixed, /^http:\/\/127\.0\.0\.1:\d+\/.*results\/.+\/mixed\.wav\?/);
      // Two identical copies summed: +6.02 dB.
      assert.ok(
        Math.abs(job.result.loudnessAfter - job.result.loudnessBefore - 6.02) < 0.2,
        JSON.stringify(job.result),
      );
      // Two copies of a half-scale sine peak at 1.0, a step past full scale: scaled down by that step, not clipped.
      assert.ok(job.result.scale < 1 && job.result.scale > 0.9999, `scale ${job.result.scale}`);
      assert.equal(job.result.metadata.audio.sampleRate, 44100);
      assert.equal(job.result.metadata.audio.channels, 2);
      const mixed = path.join(workflowsDir, "mixed.wav");
      fs.writeFileSync(mixed, Buffer.from(await (await fetch(job.result.mixed)).arrayBuffer()));
      const stream = (await probe(mixed)).streams[0];
      assert.deepEqual({ rate: stream?.sample_rate, channels: stream?.channels }, { rate: "22050", channels: 1 });
      assert.deepEqual(scratchFiles(server), [], "scratch space emptied");
    });

    test("a failing step fails the job with its code, and leaves no result files and no scratch", async () => {
      const job = await server.waitForJob(
        app.apiKey,
        await server.createJob(app.apiKey, "acme/half-broken", { inputUrl }),
      );
      assert.equal(job.status, "FAILED");
      assert.equal(job.error.code, "BAD_INPUT");
      assert.match(job.error.message, /could not be converted/);
      assert.equal(job.result, null);
      assert.deepEqual(await storedKeys(server, `results/${job.id}/`), [], "no result files");
      assert.deepEqual(scratchFiles(server), [], "scratch space emptied");
    });

    test("GET /v1/workflow lists built-in and custom workflows", async () => {
      const { body } = await server.api("GET", "/v1/workflow", { key: app.apiKey });
      const slugs = body.workflows.map((w: { slug: string }) => w.slug);
      for (const slug of [
        "mixdown/convert",
        "mixdown/loudness-normalize",
        "mixdown/waveform",
        "mixdown/probe",
        "acme/double-up",
      ]) {
        assert.ok(slugs.includes(slug), slug);
      }
    });
  });
