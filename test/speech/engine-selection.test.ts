import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, test } from "node:test";
import { fileURLToPath } from "node:url";
import { chooseEngine } from "../../src/modules/transcribe/engines/select.ts";
import { loadWhisperBinding } from "../../src/modules/transcribe/engines/whisper-binding.ts";
import { sentencesOf } from "../../src/modules/transcribe/engines/whisper-process.ts";
import { transcribeModule } from "../../src/modules/transcribe/index.ts";
import { writeEmptyWhisperModel } from "./empty-whisper-model.ts";
import { readJson, runModule } from "./run-module.ts";
import { encodeWav, programme, silence, speak } from "./speech-audio.ts";

const modelsDir = fs.mkdtempSync(path.join(os.tmpdir(), "mixdown-models-"));
after(() => fs.rmSync(modelsDir, { recursive: true, force: true }));

const nameOf = (engine: ReturnType<typeof chooseEngine>) => (typeof engine === "string" ? engine : engine.name);

test("auto takes pocketsphinx while no whisper model is installed, whisper once its file is there", () => {
  const env = { modelsDir };
  assert.equal(nameOf(chooseEngine({}, modelsDir)), "pocketsphinx");
  assert.equal(transcribeModule.availability?.({}, env), undefined);
  fs.writeFileSync(path.join(modelsDir, "ggml-small.en.bin"), "not really a model");
  assert.equal(nameOf(chooseEngine({ model: "ggml-small.en.bin" }, modelsDir)), "whisper");
  assert.equal(nameOf(chooseEngine({ engine: "auto", model: "ggml-base.en.bin" }, modelsDir)), "pocketsphinx");
  assert.equal(nameOf(chooseEngine({ engine: "pocketsphinx", model: "ggml-small.en.bin" }, modelsDir)), "pocketsphinx");
});

test("engine whisper without its model is unavailable, with the reason; so is pocketsphinx for another language", () => {
  const env = { modelsDir };
  const reason = transcribeModule.availability?.({ engine: "whisper" }, env);
  assert.equal(reason, 'whisper model "ggml-base.en.bin" not found in the models directory (MIXDOWN_MODELS_DIR)');
  assert.match(
    String(transcribeModule.availability?.({ engine: "pocketsphinx", language: "de" }, env)),
    /English only/,
  );
  assert.match(
    String(transcribeModule.availability?.({ engine: "auto", language: "de" }, env)),
    /no speech recogniser/,
  );
});

test("a job asking for whisper where its model is missing fails as bad input, with the reason", async () => {
  await assert.rejects(
    runModule(transcribeModule, encodeWav(silence(1)), { engine: "whisper", model: "ggml-medium.bin" }, modelsDir),
    (error: any) => error.code === "BAD_INPUT" && /ggml-medium\.bin" not found/.test(error.message),
  );
});

test("the whisper.cpp binding loads here (prebuilt binary), takes every parameter the engine sets, refuses a bad model", () => {
  const binding = loadWhisperBinding();
  const params = new binding.WhisperFullParams(binding.WhisperSamplingStrategy.Greedy);
  params.language = "en";
  params.nThreads = 2;
  params.tokenTimestamps = true;
  params.maxLen = 1;
  params.splitOnWord = true;
  params.noContext = true;
  assert.deepEqual(
    [params.language, params.nThreads, params.tokenTimestamps, params.maxLen, params.splitOnWord, params.noContext],
    ["en", 2, true, 1, true, true],
  );
  // whisper.cpp itself runs: it reads the file and rejects what is not a ggml model.
  const notAModel = path.join(modelsDir, "not-a-model.bin");
  fs.writeFileSync(notAModel, Buffer.alloc(4096, 7));
  assert.throws(() => new binding.Whisper(notAModel), /Failed to initialize Whisper/);
});

test("with a whisper model installed, auto runs whisper.cpp in its own process over the voiced spans", async () => {
  // An empty (tensor-less) model transcribes nothing, but loading and decoding are whisper.cpp's own.
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "mixdown-whisper-"));
  try {
    writeEmptyWhisperModel(path.join(dir, "ggml-base.en.bin"));
    assert.equal(nameOf(chooseEngine({}, dir)), "whisper");
    const { samples } = programme([
      silence(1),
      { text: "Hello there.", audio: await speak("Hello there.") },
      silence(1),
    ]);
    const { outputs } = await runModule(transcribeModule, encodeWav(samples), {}, dir);
    assert.equal(outputs.text, "");
    assert.deepEqual(readJson(outputs.transcript), []);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test("the whisper process exits once it has answered, also when nothing made V8 collect its callback", () => {
  // With Node's compile cache warm, a short run collects no garbage, so the addon's segment callback would
  // hold the event loop open for good: the second of two runs sharing a cache hung before the fix.
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "mixdown-whisper-exit-"));
  try {
    writeEmptyWhisperModel(path.join(dir, "model.bin"));
    const samples = Float32Array.from({ length: 16000 }, (_, i) => 0.1 * Math.sin(i / 5));
    fs.writeFileSync(path.join(dir, "speech.f32"), new Uint8Array(samples.buffer));
    const request = path.join(dir, "request.json");
    fs.writeFileSync(
      request,
      JSON.stringify({
        model: path.join(dir, "model.bin"),
        language: "en",
        threads: 1,
        samplesFile: path.join(dir, "speech.f32"),
        sampleRate: 16000,
        spans: [{ start: 0.1, end: 0.9 }],
      }),
    );
    const entry = fileURLToPath(new URL("../../src/modules/transcribe/engines/whisper-process.ts", import.meta.url));
    const env = { ...process.env, NODE_COMPILE_CACHE: path.join(dir, "compile-cache") };
    for (const run of [1, 2, 3]) {
      const child = spawnSync(process.execPath, [entry, request], { env, encoding: "utf8", timeout: 30_000 });
      assert.equal(child.signal, null, `run ${run} did not exit by itself`);
      assert.equal(child.status, 0, `run ${run}: ${child.stderr}`);
      assert.equal(child.stdout, "[]");
    }
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test("whisper's word pieces become sentences: 10 ms units, offset by the span, split at . ? !, markers dropped", () => {
  const pieces = [
    { text: " Hello", start: 0, end: 40 },
    { text: " world.", start: 40, end: 95 },
    { text: " [BLANK_AUDIO]", start: 95, end: 120 },
    { text: " How", start: 130, end: 150 },
    { text: " are", start: 150, end: 170 },
    { text: " you?", start: 170, end: 210 },
    { text: " Fine", start: 230, end: 260 },
  ];
  assert.deepEqual(sentencesOf(pieces, 12.5), [
    {
      start: 12.5,
      end: 13.45,
      text: "Hello world.",
      words: [
        { word: "Hello", start: 12.5, end: 12.9 },
        { word: "world.", start: 12.9, end: 13.45 },
      ],
    },
    {
      start: 13.8,
      end: 14.6,
      text: "How are you?",
      words: [
        { word: "How", start: 13.8, end: 14 },
        { word: "are", start: 14, end: 14.2 },
        { word: "you?", start: 14.2, end: 14.6 },
      ],
    },
    { start: 14.8, end: 15.1, text: "Fine", words: [{ word: "Fine", start: 14.8, end: 15.1 }] },
  ]);
});
