import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import * as ort from "onnxruntime-node";
import { istft, magnitudes, stft } from "../../src/dsp/spectrogram.ts";
import { JobFailure } from "../../src/jobs/job-failure.ts";
import { modelSettingsOf } from "../../src/modules/stems-shared/model-settings.ts";
import { parseOnnxMetadata } from "../../src/modules/stems-shared/onnx-metadata.ts";
import { separateStems, separateWithModel } from "../../src/modules/stems-shared/onnx-separator.ts";
import { decodeFloat } from "../helpers/media.ts";
import { type AppInfo, assertNoneRunning, Mixdown } from "../helpers/mixdown.ts";
import { Rng } from "../music/synth.ts";
import { gateModel, onnxModel, scaleModel, sharedMaskModel, twoStemModel } from "./onnx-models.ts";
import { drumsAndHarmony, maxDifference, sum } from "./signals.ts";
import { wav16 } from "./wav.ts";

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "mixdown-onnx-"));
after(() => fs.rmSync(tmp, { recursive: true, force: true }));

const save = (name: string, bytes: Uint8Array) => {
  const file = path.join(tmp, name);
  fs.writeFileSync(file, bytes);
  return file;
};
const noise = (length: number, seed: number) => {
  const rng = new Rng(seed);
  return Float32Array.from({ length }, () => rng.uniform(-0.5, 0.5));
};
const sigmoid = (x: number) => 1 / (1 + Math.exp(-x));

test("onnxruntime-node loads from the package (CPU binary included, nothing downloaded) and runs a model", async () => {
  assert.ok(ort.listSupportedBackends().some((b) => b.name === "cpu"));
  const session = await ort.InferenceSession.create(scaleModel([1, 4, 3, 2], 0.5));
  const data = Float32Array.from({ length: 24 }, (_, i) => i);
  const out = await session.run({ spectrogram: new ort.Tensor("float32", data, [1, 4, 3, 2]) });
  assert.deepEqual(
    Array.from(out.stem?.data as Float32Array),
    Array.from(data, (v) => v / 2),
  );
  await session.release();
});

test("complex stereo model (MDX-Net layout), fixed batch of 3: a 0.25 gain gives exactly 0.25 × the input", async () => {
  const file = save("scale.onnx", scaleModel([3, 4, 513, 16], 0.25));
  const input = [noise(20000, 1), noise(20000, 2)];
  const stem = await separateWithModel(file, input, { fftSize: 1024, hop: 256, frames: 999, output: "spectrogram" });
  for (let c = 0; c < 2; c++)
    assert.ok(
      maxDifference(
        stem[c] as Float32Array,
        (input[c] as Float32Array).map((v) => v * 0.25),
      ) < 1e-6,
    );
  // A mono input fills both sides of the pair.
  const mono = await separateWithModel(file, [input[0] as Float32Array], {
    fftSize: 1024,
    hop: 256,
    frames: 999,
    output: "spectrogram",
  });
  assert.equal(mono.length, 1);
  assert.ok(
    maxDifference(
      mono[0] as Float32Array,
      (input[0] as Float32Array).map((v) => v * 0.25),
    ) < 1e-6,
  );
});

test("chunks that share fewer frames than half (overlap setting) still cross-fade to the exact stem", async () => {
  const file = save("scale-overlap.onnx", scaleModel([1, 4, 513, 16], 0.25));
  const input = [noise(30000, 7), noise(30000, 8)];
  for (const overlap of [0, 3]) {
    const settings = { fftSize: 1024, hop: 256, frames: 16, overlap, output: "spectrogram" as const };
    const stem = await separateWithModel(file, input, settings);
    for (let c = 0; c < 2; c++) {
      const want = (input[c] as Float32Array).map((v) => v * 0.25);
      assert.ok(maxDifference(stem[c] as Float32Array, want) < 1e-6, `overlap ${overlap}, channel ${c}`);
    }
  }
});

test("a model of two stems gives them one after another on its output's channel axis", async () => {
  const file = save("two-stems.onnx", twoStemModel([1, 2, 513, 16], 0.25));
  const input = [noise(20000, 5), noise(20000, 6)];
  const [first, second] = await separateStems(
    file,
    input,
    { fftSize: 1024, hop: 256, frames: 16, output: "spectrogram" },
    2,
    [0, 1],
  );
  for (let c = 0; c < 2; c++) {
    const x = input[c] as Float32Array;
    assert.ok(
      maxDifference(
        first?.[c] as Float32Array,
        x.map((v) => v * 0.25),
      ) < 1e-5,
      `first stem, channel ${c}`,
    );
    assert.ok(
      maxDifference(
        second?.[c] as Float32Array,
        x.map((v) => v * 0.75),
      ) < 1e-5,
      `second stem, channel ${c}`,
    );
  }
  // Only the second stem kept.
  const [only] = await separateStems(
    file,
    input,
    { fftSize: 1024, hop: 256, frames: 16, output: "spectrogram" },
    2,
    [1],
  );
  assert.ok(
    maxDifference(
      only?.[0] as Float32Array,
      (input[0] as Float32Array).map((v) => v * 0.75),
    ) < 1e-5,
  );
  // The same file read as one stem: the output has twice the input's size, which a one-stem model must not.
  await assert.rejects(
    separateWithModel(file, input, { fftSize: 1024, hop: 256, frames: 16, output: "spectrogram" }),
    /not a float32 tensor of the input's shape/,
  );
});

test("a stereo model with one mask per stem (its output has as many channels as stems) masks every channel with it", async () => {
  const file = save("shared.onnx", sharedMaskModel([1, 2, 513, 16], 0.25));
  const settings = { fftSize: 1024, hop: 256, frames: 16, output: "mask" as const };
  // Stereo, mono (the channel fills both sides) and three channels (a pair and a lone one).
  for (const input of [
    [noise(20000, 7), noise(20000, 8)],
    [noise(20000, 9)],
    [noise(9000, 1), noise(9000, 2), noise(9000, 3)],
  ]) {
    const [first, second] = await separateStems(file, input, settings, 2, [0, 1]);
    input.forEach((x, c) => {
      const want = (share: number) => x.map((v) => v * share);
      assert.ok(
        maxDifference(first?.[c] as Float32Array, want(0.25)) < 1e-5,
        `${input.length} channels: first stem, channel ${c}`,
      );
      assert.ok(
        maxDifference(second?.[c] as Float32Array, want(0.75)) < 1e-5,
        `${input.length} channels: second stem, channel ${c}`,
      );
    });
  }
  // Read as one stem, its output has two channels of one stem each: the per-channel layout, and the wrong model.
  const [alone] = await separateStems(file, [noise(9000, 4), noise(9000, 5)], settings, 1, [0]);
  assert.ok(
    maxDifference(
      alone?.[1] as Float32Array,
      noise(9000, 5).map((v) => v * 0.75),
    ) < 1e-5,
  );
});

test("a model that takes fewer bins than the STFT has: the bins above are left out of the stem", async () => {
  const file = save("low.onnx", scaleModel([1, 4, 100, 8], 0.25));
  const input = [noise(9000, 3), noise(9000, 4)];
  const stem = await separateWithModel(file, input, { fftSize: 1024, hop: 256, frames: 8, output: "spectrogram" });
  for (let c = 0; c < 2; c++) {
    const spec = stft(input[c] as Float32Array, 1024, 256);
    const mask = Float32Array.from({ length: spec.re.length }, (_, i) => (i % spec.bins < 100 ? 0.25 : 0));
    assert.ok(maxDifference(stem[c] as Float32Array, istft(spec, mask)) < 1e-6);
  }
});

test("magnitude model with symbolic batch and frames, mask output: stem = ISTFT(sigmoid(w·|X| + b) · X)", async () => {
  const weights = Array.from({ length: 513 }, (_, f) => (f < 200 ? 3 : -2));
  const file = save("gate.onnx", gateModel(["batch", 1, 513, "frames"], weights, -1));
  const input = [noise(12000, 5), noise(12000, 6)];
  // 10-frame chunks overlapping by half: the cross-fade must not change an element-wise model's result.
  const stem = await separateWithModel(file, input, { fftSize: 1024, hop: 256, frames: 10, output: "mask" });
  for (let c = 0; c < 2; c++) {
    const spec = stft(input[c] as Float32Array, 1024, 256);
    const mags = magnitudes(spec);
    const mask = mags.map((m, i) => sigmoid((weights[i % spec.bins] as number) * m - 1));
    const expected = istft(spec, mask);
    assert.ok(maxDifference(stem[c] as Float32Array, expected) < 1e-5, `channel ${c}`);
    assert.ok(maxDifference(expected, input[c] as Float32Array) > 0.05, "the gate changed the signal");
  }
});

test("magnitude stereo model, spectrogram output: the stem gets the mixture's phase", async () => {
  const file = save("half.onnx", scaleModel([1, 2, 513, 32], 0.5));
  const input = [noise(15000, 7), noise(15000, 8)];
  const stem = await separateWithModel(file, input, { fftSize: 1024, hop: 256, frames: 32, output: "spectrogram" });
  for (let c = 0; c < 2; c++)
    assert.ok(
      maxDifference(
        stem[c] as Float32Array,
        (input[c] as Float32Array).map((v) => v * 0.5),
      ) < 1e-6,
    );
});

test("non-power-of-2 STFT sizes as MDX-Net uses (6144 = 3·2048)", async () => {
  const file = save("mdx.onnx", scaleModel([1, 4, 3072, 8], 1));
  const input = [noise(30000, 9), noise(30000, 10)];
  const stem = await separateWithModel(file, input, { fftSize: 6144, hop: 1024, frames: 8, output: "spectrogram" });
  const spec = stft(input[0] as Float32Array, 6144, 1024);
  const mask = Float32Array.from({ length: spec.re.length }, (_, i) => (i % spec.bins < 3072 ? 1 : 0));
  assert.ok(maxDifference(stem[0] as Float32Array, istft(spec, mask)) < 1e-5);
});

test("an unusable model fails the job with its reason, as a failure retrying won't fix", async () => {
  const rank3 = save("rank3.onnx", scaleModel([1, 513, 8], 1));
  const settings = { fftSize: 1024, hop: 256, frames: 8, output: "spectrogram" } as const;
  await assert.rejects(separateWithModel(rank3, [noise(5000, 1)], settings), (error: unknown) => {
    assert.ok(error instanceof JobFailure);
    assert.equal(error.code, "INTERNAL_ERROR");
    assert.match(error.message, /rank3\.onnx cannot be used: its input must be \[batch, channels, bins, frames\]/);
    return true;
  });
  const tooManyBins = save("wide.onnx", scaleModel([1, 4, 600, 8], 1));
  await assert.rejects(separateWithModel(tooManyBins, [noise(5000, 1)], settings), /600 frequency bins/);
  const garbage = save("garbage.onnx", new Uint8Array([1, 2, 3, 4, 5]));
  await assert.rejects(separateWithModel(garbage, [noise(5000, 1)], settings), /onnxruntime cannot load it/);
});

test("metadata_props are read from the model file", () => {
  const bytes = onnxModel({
    shape: [1, 4, 8, 8],
    nodes: [{ op: "Identity", inputs: ["spectrogram"], output: "stem" }],
    initializers: [],
    metadata: { n_fft: "7680", hop_length: "1024", stem: "accompaniments", note: "ünïcode" },
  });
  assert.deepEqual(parseOnnxMetadata(bytes), {
    n_fft: "7680",
    hop_length: "1024",
    stem: "accompaniments",
    note: "ünïcode",
  });
  assert.deepEqual(parseOnnxMetadata(scaleModel([1, 4, 8, 8], 1)), {});
  assert.throws(() => parseOnnxMetadata(new Uint8Array([0x72, 0x10, 1])), /truncated/);
});

test("a model's settings: the job's overrides, else its metadata (overlap included), else MDX-Net's; bad values fail", async () => {
  const tagged = save(
    "tagged.onnx",
    scaleModel([1, 4, 1025, 64], 1, { n_fft: "2048", hop_length: "512", frames: "64", overlap: "8", output: "mask" }),
  );
  assert.deepEqual((await modelSettingsOf(tagged)).settings, {
    fftSize: 2048,
    hop: 512,
    frames: 64,
    overlap: 8,
    output: "mask",
  });
  assert.deepEqual((await modelSettingsOf(tagged, { modelHop: 256, modelOutput: "spectrogram" })).settings, {
    fftSize: 2048,
    hop: 256,
    frames: 64,
    overlap: 8,
    output: "spectrogram",
  });
  const bare = save("bare.onnx", scaleModel([1, 4, 3073, 256], 1));
  assert.deepEqual((await modelSettingsOf(bare)).settings, {
    fftSize: 6144,
    hop: 1024,
    frames: 256,
    output: "spectrogram",
  });
  const badOverlap = save("bad-overlap.onnx", scaleModel([1, 4, 1025, 64], 1, { overlap: "-1" }));
  await assert.rejects(modelSettingsOf(badOverlap), /its overlap metadata "-1" is not a count/);
  const badOutput = save("bad-output.onnx", scaleModel([1, 4, 1025, 64], 1, { output: "waveform" }));
  await assert.rejects(modelSettingsOf(badOutput), /neither spectrogram nor mask/);
});

describe("the workflows run an operator's model from MIXDOWN_MODELS_DIR", () => {
  let server: Mixdown;
  let app: AppInfo;
  const modelsDir = path.join(tmp, "models");
  const input = path.join(tmp, "input.wav");
  let inputUrl: string;
  const STEP = 1 / 32767;

  before(async () => {
    fs.mkdirSync(modelsDir);
    // Settings in the model's metadata, as an operator would tag a model.
    const settings = { n_fft: "2048", hop_length: "512" };
    fs.writeFileSync(path.join(modelsDir, "vocals.onnx"), scaleModel([1, 4, 1025, 64], 0.25, settings));
    fs.writeFileSync(
      path.join(modelsDir, "instrumental.onnx"),
      scaleModel([1, 4, 1025, 64], 0.25, { ...settings, stem: "accompaniments" }),
    );
    server = await Mixdown.start({ MIXDOWN_MODELS_DIR: modelsDir });
    app = await server.createApp();
    const { drums, harmony } = drumsAndHarmony(4, 44100, 31);
    const mix = sum(drums, harmony);
    fs.writeFileSync(input, wav16(mix, 44100));
    inputUrl = await server.upload(app.apiKey, fs.readFileSync(input), "audio/wav");
  });
  after(async () => {
    await server.dispose();
    assertNoneRunning();
  });

  const separate = async (params: Record<string, unknown>) => {
    const id = await server.createJob(app.apiKey, "mixdown/stems-vocals-accompaniment", { inputUrl, ...params });
    const job = await server.waitForJob(app.apiKey, id, 120_000);
    assert.equal(job.status, "SUCCEEDED", JSON.stringify(job.error));
    const stems: Float32Array[][] = [];
    for (const key of ["vocals", "accompaniments"]) {
      const file = path.join(tmp, `${key}-${id}.wav`);
      fs.writeFileSync(file, Buffer.from(await (await fetch(job.result[key])).arrayBuffer()));
      stems.push(await decodeFloat(file, 2));
    }
    return { method: job.result.method, vocals: stems[0] as Float32Array[], rest: stems[1] as Float32Array[] };
  };
  const assertScaled = async (stem: Float32Array[], gain: number) => {
    const original = await decodeFloat(input, 2);
    for (let c = 0; c < 2; c++) {
      const error = maxDifference(
        stem[c] as Float32Array,
        (original[c] as Float32Array).map((v) => v * gain),
      );
      assert.ok(error <= 1.01 * STEP, `channel ${c}: ${error / STEP} steps from ${gain} × input`);
    }
  };

  test("vocals.onnx present: the job uses it (method onnx:vocals.onnx) and its stem is exactly the model's", async () => {
    const { method, vocals, rest } = await separate({});
    assert.equal(method, "onnx:vocals.onnx");
    await assertScaled(vocals, 0.25);
    await assertScaled(rest, 0.75);
  });

  test("a model whose metadata says it estimates the accompaniment: vocals are the input minus its stem", async () => {
    const { method, vocals, rest } = await separate({ model: "instrumental.onnx" });
    assert.equal(method, "onnx:instrumental.onnx");
    await assertScaled(vocals, 0.75);
    await assertScaled(rest, 0.25);
  });

  test('method "classical" ignores the model', async () => {
    const { method } = await separate({ method: "classical" });
    assert.equal(method, "repet-sim");
  });

  test("drums.onnx absent: mixdown/stems-drums falls back to Mixdown's network", async () => {
    const id = await server.createJob(app.apiKey, "mixdown/stems-drums", { inputUrl });
    const job = await server.waitForJob(app.apiKey, id, 120_000);
    assert.equal(job.status, "SUCCEEDED", JSON.stringify(job.error));
    assert.equal(job.result.method, "network");
  });
});
