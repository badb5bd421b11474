/**
 * mixdown/stems-4 with operator models: each of vocals, drums and bass comes from its ONNX file when it is in
 * MIXDOWN_MODELS_DIR, the rest from Mixdown's own network (or the classical masks when asked), and `other` is the
 * input minus the three. The models
 * are tiny scaling graphs (onnx-models.ts), so each model stem is an exact multiple of the input.
 */
import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, before, test } from "node:test";
import { decodeFloat } from "../helpers/media.ts";
import { type AppInfo, assertNoneRunning, Mixdown } from "../helpers/mixdown.ts";
import { scaleModel } from "./onnx-models.ts";
import { drumsAndHarmony, maxDifference, sum } from "./signals.ts";
import { wav16 } from "./wav.ts";

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "mixdown-stems4-onnx-"));
const modelsDir = path.join(tmp, "models");
const input = path.join(tmp, "input.wav");
const STEP = 1 / 32767;
let server: Mixdown;
let app: AppInfo;
let inputUrl: string;

before(async () => {
  fs.mkdirSync(modelsDir);
  const settings = { n_fft: "2048", hop_length: "512" };
  fs.writeFileSync(path.join(modelsDir, "vocals.onnx"), scaleModel([1, 4, 1025, 64], 0.25, settings));
  fs.writeFileSync(path.join(modelsDir, "bass.onnx"), scaleModel([1, 4, 1025, 64], 0.125, settings));
  // A model that estimates everything but the bass: the bass is the input minus its output.
  fs.writeFileSync(
    path.join(modelsDir, "no-bass.onnx"),
    scaleModel([1, 4, 1025, 64], 0.5, { ...settings, stem: "other" }),
  );
  server = await Mixdown.start({ MIXDOWN_MODELS_DIR: modelsDir });
  app = await server.createApp();
  const { drums, harmony } = drumsAndHarmony(4, 44100, 7);
  fs.writeFileSync(input, wav16(sum(drums, harmony), 44100));
  inputUrl = await server.upload(app.apiKey, fs.readFileSync(input), "audio/wav");
});
after(async () => {
  await server.dispose();
  assertNoneRunning();
  fs.rmSync(tmp, { recursive: true, force: true });
});

async function separate(params: Record<string, unknown>) {
  const id = await server.createJob(app.apiKey, "mixdown/stems-4", { inputUrl, ...params });
  const job = await server.waitForJob(app.apiKey, id, 120_000);
  assert.equal(job.status, "SUCCEEDED", JSON.stringify(job.error));
  const stems: Record<string, Float32Array[]> = {};
  for (const name of ["vocals", "drums", "bass", "other"]) {
    const file = path.join(tmp, `${name}-${id}.wav`);
    fs.writeFileSync(file, Buffer.from(await (await fetch(job.result[name])).arrayBuffer()));
    stems[name] = await decodeFloat(file, 2);
  }
  return { method: job.result.method as string, stems };
}

async function assertScaled(stem: Float32Array[] | undefined, gain: number, what: string) {
  const original = await decodeFloat(input, 2);
  for (let c = 0; c < 2; c++) {
    const error = maxDifference(
      stem?.[c] as Float32Array,
      (original[c] as Float32Array).map((v) => v * gain),
    );
    assert.ok(error <= 1.01 * STEP, `${what}, channel ${c}: ${error / STEP} steps from ${gain} × input`);
  }
}

/** The four decoded stems add up to the input within the rounding of four 16-bit files. */
async function assertAddsUp(stems: Record<string, Float32Array[]>) {
  const original = await decodeFloat(input, 2);
  for (let c = 0; c < 2; c++) {
    const want = original[c] as Float32Array;
    let error = 0;
    for (let i = 0; i < want.length; i++) {
      let total = 0;
      for (const stem of Object.values(stems)) total += (stem[c] as Float32Array)[i] as number;
      error = Math.max(error, Math.abs(total - (want[i] as number)));
    }
    assert.ok(error <= 4 * STEP, `channel ${c}: the stems miss the input by ${error / STEP} steps`);
  }
}

test("vocals.onnx and bass.onnx present, drums.onnx absent: two model stems, drums by the network, other the rest", async () => {
  const { method, stems } = await separate({});
  assert.equal(method, "vocals=onnx:vocals.onnx drums=network bass=onnx:bass.onnx");
  await assertScaled(stems.vocals, 0.25, "vocals");
  await assertScaled(stems.bass, 0.125, "bass");
  await assertAddsUp(stems);
});

test("a model whose stem metadata names the complement gives the input minus its output", async () => {
  const { method, stems } = await separate({ bassModel: "no-bass.onnx" });
  assert.equal(method, "vocals=onnx:vocals.onnx drums=network bass=onnx:no-bass.onnx");
  await assertScaled(stems.bass, 0.5, "bass");
});

for (const method of ["classical", "network"]) {
  test(`method "${method}" ignores the operator models`, async () => {
    const separated = await separate({ method });
    assert.equal(separated.method, method);
    await assertAddsUp(separated.stems);
  });
}

test('method "model" with a model missing fails as bad input, naming the missing file', async () => {
  const id = await server.createJob(app.apiKey, "mixdown/stems-4", { inputUrl, method: "model" });
  const job = await server.waitForJob(app.apiKey, id, 60_000);
  assert.equal(job.status, "FAILED");
  assert.equal(job.error.code, "BAD_INPUT");
  assert.match(job.error.message, /drums\.onnx/);
  assert.doesNotMatch(job.error.message, /vocals\.onnx|bass\.onnx/);
});

test("a model name that is not a plain .onnx file name is refused at job creation", async () => {
  const response = await server.api("POST", "/v1/job", {
    key: app.apiKey,
    body: { name: "escape", workflow: "mixdown/stems-4", params: { inputUrl, drumsModel: "../drums.onnx" } },
  });
  assert.equal(response.status, 422, JSON.stringify(response.body));
  assert.equal(response.body.details[0].field, "params.drumsModel");
});
