import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import { type AppInfo, assertNoneRunning, Mixdown } from "../helpers/mixdown.ts";
import { writeEmptyWhisperModel } from "./empty-whisper-model.ts";
import { SENTENCES, speechWithPauses } from "./fixtures.ts";
import { encodeWav, programme, type Spoken, scoringWords, silence, speak, wordErrorRate } from "./speech-audio.ts";

/** An operator's workflow that insists on whisper, on a server with no whisper model installed. */
const WHISPER_ONLY = {
  slug: "acme/transcribe-whisper",
  name: "Transcription with whisper",
  description: "",
  inputSchema: { type: "object", required: ["inputUrl"], properties: { inputUrl: { type: "string" } } },
  steps: [
    { id: "input", module: "fetch", inputs: { url: "$params.inputUrl" } },
    { id: "asr", module: "transcribe", params: { engine: "whisper" }, inputs: { audio: "$steps.input.file" } },
  ],
  outputs: { text: "$steps.asr.text" },
};
const WHISPER_MISSING =
  'module "transcribe" cannot run here: whisper model "ggml-base.en.bin" not found in the models directory (MIXDOWN_MODELS_DIR)';

describe("speech workflows over HTTP", () => {
  let server: Mixdown;
  let app: AppInfo;
  let inputUrl: string;
  let spoken: Spoken[];
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "mixdown-speech-"));

  before(async () => {
    fs.mkdirSync(path.join(dir, "workflows"));
    fs.mkdirSync(path.join(dir, "models"));
    fs.writeFileSync(path.join(dir, "workflows", "transcribe-whisper.json"), JSON.stringify(WHISPER_ONLY));
    server = await Mixdown.start({
      MIXDOWN_WORKFLOWS_DIR: path.join(dir, "workflows"),
      MIXDOWN_MODELS_DIR: path.join(dir, "models"),
    });
    app = await server.createApp();
    const speech = await speechWithPauses();
    spoken = speech.spoken;
    inputUrl = await server.upload(app.apiKey, speech.wav, "audio/wav");
  });
  after(async () => {
    await server.dispose();
    fs.rmSync(dir, { recursive: true, force: true });
    assertNoneRunning();
  });

  // A bound against a stuck job, not a speed test: the transcription took 19 s beside a training run on this 2-core
  // machine, and over 120 s once beside a training run and a second test file.
  const run = async (workflow: string, params: Record<string, unknown>) =>
    (await server.runJob(app.apiKey, workflow, params, 300_000)).result;

  test("the built-ins are runnable here (pocketsphinx): text inline, transcript and alignment as JSON files", async () => {
    const transcribe = await server.api("GET", "/v1/workflow/mixdown/transcribe", { key: app.apiKey });
    assert.equal(transcribe.status, 200);
    assert.equal(transcribe.body.runnable, true, JSON.stringify(transcribe.body.unavailable));
    // Which engine a job would get here: no whisper model is installed, so pocketsphinx.
    assert.deepEqual(transcribe.body.steps, [
      { id: "input", module: "fetch" },
      { id: "transcribe", module: "transcribe", engine: "pocketsphinx" },
    ]);
    assert.deepEqual(
      Object.fromEntries(Object.entries(transcribe.body.outputs).map(([k, v]: [string, any]) => [k, [v.type, v.kind]])),
      { text: ["string", "inline value"], transcript: ["json", "file URL"] },
    );
    const align = await server.api("GET", "/v1/workflow/mixdown/align-lyrics", { key: app.apiKey });
    assert.equal(align.body.runnable, true, JSON.stringify(align.body.unavailable));
    assert.deepEqual(align.body.inputSchema.required, ["inputUrl", "lyrics"]);
    assert.equal(align.body.outputs.alignment.kind, "file URL");
  });

  test("a workflow asking for whisper without its model: runnable false with the reason, jobs refused with 422", async () => {
    const described = await server.api("GET", "/v1/workflow/acme/transcribe-whisper", { key: app.apiKey });
    assert.equal(described.status, 200);
    assert.equal(described.body.runnable, false);
    assert.equal(described.body.steps[1].engine, undefined, "no engine can run it");
    assert.deepEqual(described.body.unavailable, [{ field: "steps[1]", message: WHISPER_MISSING }]);
    const created = await server.api("POST", "/v1/job", {
      key: app.apiKey,
      body: { name: "whisper please", workflow: "acme/transcribe-whisper", params: { inputUrl } },
    });
    assert.equal(created.status, 422, JSON.stringify(created.body));
    assert.equal(created.body.code, "WORKFLOW_UNAVAILABLE");
    assert.deepEqual(created.body.details, [{ field: "steps[1]", message: WHISPER_MISSING }]);
  });

  test("mixdown/transcribe: text and a transcript of timed segments and words", async (t) => {
    const result = await run("mixdown/transcribe", { inputUrl });
    assert.deepEqual(Object.keys(result).sort(), ["text", "transcript"]);
    assert.equal(typeof result.text, "string");
    const wer = wordErrorRate(SENTENCES.join(" "), result.text);
    t.diagnostic(`WER over HTTP ${(wer * 100).toFixed(1)} %`);
    assert.ok(wer <= 0.3, result.text);
    const transcript = (await (await fetch(result.transcript)).json()) as any[];
    assert.ok(transcript.length >= SENTENCES.length - 1);
    for (const segment of transcript) {
      assert.deepEqual(Object.keys(segment).sort(), ["end", "start", "text", "words"]);
      assert.ok(typeof segment.text === "string" && segment.end >= segment.start);
      for (const word of segment.words) {
        assert.deepEqual(Object.keys(word).sort(), ["end", "start", "word"]);
        assert.ok(typeof word.word === "string" && word.start >= segment.start && word.end <= segment.end);
      }
    }
    assert.equal(result.text, transcript.map((s) => s.text).join(" "));
  });

  test("mixdown/align-lyrics: every word in order; each sentence's first word starts within 150 ms of its onset", async () => {
    const lyrics = SENTENCES.join("\n");
    const result = await run("mixdown/align-lyrics", { inputUrl, lyrics });
    assert.deepEqual(Object.keys(result), ["alignment"]);
    const alignment = (await (await fetch(result.alignment)).json()) as { word: string; start: number; end: number }[];
    assert.deepEqual(
      alignment.map((a) => scoringWords(a.word).join(" ")),
      scoringWords(lyrics),
    );
    let previous = 0;
    for (const a of alignment) {
      assert.deepEqual(Object.keys(a), ["word", "start", "end"]);
      assert.ok(typeof a.start === "number" && a.start >= previous && a.end >= a.start, JSON.stringify(a));
      previous = a.end;
    }
    let index = 0;
    for (const sentence of spoken) {
      const first = alignment[index] as { start: number };
      assert.ok(
        Math.abs(first.start - sentence.start) <= 0.15,
        `"${sentence.text}" at ${first.start} s, not ${sentence.start}`,
      );
      index += scoringWords(sentence.text).length;
    }
  });

  test("mixdown/align-lyrics without lyrics is refused", async () => {
    const created = await server.api("POST", "/v1/job", {
      key: app.apiKey,
      body: { name: "no lyrics", workflow: "mixdown/align-lyrics", params: { inputUrl } },
    });
    assert.equal(created.status, 422);
    assert.equal(created.body.code, "INVALID_WORKFLOW_PARAMS");
  });

  // Last: from here on the server has a whisper model, so auto would no longer pick pocketsphinx.
  test("once the operator installs the model the same workflow is runnable, and its job runs whisper.cpp", async () => {
    writeEmptyWhisperModel(path.join(dir, "models", "ggml-base.en.bin"));
    const described = await server.api("GET", "/v1/workflow/acme/transcribe-whisper", { key: app.apiKey });
    assert.equal(described.body.runnable, true, JSON.stringify(described.body.unavailable));
    assert.deepEqual(described.body.steps[1], {
      id: "asr",
      module: "transcribe",
      engine: "whisper",
      model: "ggml-base.en.bin",
    });
    // The built-in one now names whisper too (auto prefers it when its model is there).
    const builtIn = await server.api("GET", "/v1/workflow/mixdown/transcribe", { key: app.apiKey });
    assert.equal(builtIn.body.steps[1].engine, "whisper");
    // The model is empty (no weights): whisper.cpp loads it and transcribes nothing. One short sentence: an
    // empty model is slow to give up on each voiced span.
    const { samples } = programme([silence(0.5), { text: "Hello there.", audio: await speak("Hello there.") }]);
    const shortUrl = await server.upload(app.apiKey, encodeWav(samples), "audio/wav");
    const result = await run("acme/transcribe-whisper", { inputUrl: shortUrl });
    assert.deepEqual(result, { text: "" });
  });
});
