import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import { setTimeout as delay } from "node:timers/promises";
import { ModulePool } from "../../src/engine/module-pool.ts";
import { mediaBinaries } from "../../src/media/binaries.ts";
import { probeMedia } from "../../src/media/probe.ts";
import { convertModule } from "../../src/modules/convert/index.ts";
import { whisperInstalled } from "../../src/modules/transcribe/engines/whisper-binding.ts";
import { startFixture } from "../helpers/http-fixture.ts";
import { assertNoneRunning, Mixdown } from "../helpers/mixdown.ts";
import { processesMatching } from "../helpers/processes.ts";
import { Rng } from "../music/synth.ts";
import { writeEmptyWhisperModel } from "../speech/empty-whisper-model.ts";

/**
 * Cancelling a step at any moment, in any module, costs that step only: 50 cancels at random moments of each
 * long-running module (native code: onnxruntime, tfjs, whisper.cpp; tools: pocketsphinx, ffmpeg), then a step
 * that must succeed, in this process, which must still be alive; then a few through the HTTP API. The moments
 * come from a seeded generator (MIXDOWN_TEST_SEED to replay one), between 0 and the module's step duration on
 * its short input, measured first.
 */
const CANCELS = 50;
const SEED = Number(process.env.MIXDOWN_TEST_SEED ?? 20250);
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "mixdown-cancel-any-"));
const SENTENCE = "The quick brown fox jumps over the lazy dog while the band plays on through the night.";
let music = "";
let speech = "";
let shortSpeech = "";
let longMusic = "";
/** A 44.1 kHz stereo WAV of `seconds` made by sox from `synth` (its synth effect's arguments). */
function synthesised(name: string, seconds: number, ...synth: string[]): string {
  const file = path.join(tmp, name);
  execFileSync("sox", ["-n", "-r", "44100", "-c", "2", "-b", "16", file, "synth", String(seconds), ...synth]);
  return file;
}
before(() => {
  mediaBinaries(); // found once here, as the server does at start: module processes inherit them
  music = synthesised("music.wav", 8, "pluck", "220", "pluck", "330");
  longMusic = synthesised("long-music.wav", 30, "pluck", "220", "pinknoise");
  speech = path.join(tmp, "speech.wav");
  execFileSync("espeak-ng", ["-s", "160", "-w", speech, SENTENCE]);
  shortSpeech = path.join(tmp, "short-speech.wav");
  execFileSync("espeak-ng", ["-s", "160", "-w", shortSpeech, "The quick brown fox jumps over the lazy dog."]);
  writeEmptyWhisperModel(path.join(tmp, "ggml-base.en.bin"));
});
after(() => fs.rmSync(tmp, { recursive: true, force: true }));

const never = new AbortController().signal;
const exists = (file: unknown) => fs.statSync(String(file), { throwIfNoEntry: false })?.isFile() ?? false;

interface Storm {
  name: string;
  skip?: string;
  /** One step, stopped by `signal`. */
  run(
    pool: ModulePool,
    signal: AbortSignal,
    dir: string,
    onProgress: (f: number) => void,
  ): Promise<Record<string, unknown>>;
  /** What a successful step's outputs must be. */
  check(outputs: Record<string, unknown>): Promise<void> | void;
}

const heavy =
  (module: string, params: Record<string, unknown>, audio: () => string): Storm["run"] =>
  (pool, signal, dir, onProgress) =>
    pool.run(module, { params, inputs: { audio: audio() }, outputDir: dir, modelsDir: tmp }, signal, onProgress);

const STORMS: Storm[] = [
  {
    name: "stems-4 (onnxruntime)",
    run: heavy("stems-4", { format: "wav", method: "network" }, () => music),
    check: (out) => {
      for (const stem of ["vocals", "drums", "bass", "other"]) assert.ok(exists(out[stem]), `${stem}: ${out[stem]}`);
      assert.equal(out.method, "network");
    },
  },
  {
    name: "audio-to-midi (basic-pitch, tfjs)",
    run: heavy("audio-to-midi", { onsetThreshold: 0.6, frameThreshold: 0.3, minNoteLengthMs: 58 }, () => music),
    check: (out) => {
      assert.ok(exists(out.midi));
      assert.ok(Array.isArray(out.notes) || exists(out.notes));
    },
  },
  {
    name: "transcribe (Silero VAD, pocketsphinx)",
    run: heavy("transcribe", { engine: "pocketsphinx", language: "en", vad: true }, () => shortSpeech),
    check: (out) => assert.match(String(out.text), /fox|dog|brown|quick/i, String(out.text)),
  },
  {
    name: "transcribe (whisper.cpp, an empty model)",
    skip: whisperInstalled() ? undefined : "the @napi-rs/whisper package is not installed",
    run: heavy(
      "transcribe",
      { engine: "whisper", model: "ggml-base.en.bin", language: "en", vad: true },
      () => shortSpeech,
    ),
    // The model has no weights: whisper.cpp runs and transcribes nothing.
    check: (out) => assert.equal(typeof out.text, "string"),
  },
  {
    name: "convert (ffmpeg, through the tool launcher)",
    run: (_pool, signal, dir, onProgress) =>
      convertModule.run({
        params: { format: "flac" },
        inputs: { audio: longMusic },
        outputDir: dir,
        modelsDir: tmp,
        signal,
        fetchInput: () => Promise.reject(new Error("no fetch here")),
        reportProgress: onProgress,
      }),
    check: async (out) => assert.ok(Math.abs(((await probeMedia(String(out.audio))).durationSeconds ?? 0) - 30) < 0.1),
  },
];

/** Waits (bounded) until nothing runs any more with `dir` on its command line (tools, module steps' files). */
async function nothingRunsIn(dir: string): Promise<number[]> {
  for (let i = 0; i < 60 && processesMatching(dir).length > 0; i++) await delay(50);
  return processesMatching(dir);
}

// The modules' storms run side by side: most of a storm's time is processes starting and stopping.
describe(`${CANCELS} cancels at random moments of each module's step (seed ${SEED})`, { concurrency: true }, () => {
  for (const [index, storm] of STORMS.entries()) {
    test(storm.name, { skip: storm.skip }, async (t) => {
      const rng = new Rng(SEED + index);
      const pool = new ModulePool({ idleMs: 60_000, retireBytes: 1024 ** 3 });
      const dir = fs.mkdtempSync(path.join(tmp, "storm-"));
      try {
        // A step's duration from a fresh process, as each cancelled step's successor starts (the first run warms
        // the machine's caches), and its outputs. Steps that end before their moment (the storms share the
        // machine, so a step's length varies) are more such durations: the moments are drawn up to their median.
        await storm.check(await storm.run(pool, never, dir, () => undefined));
        await pool.closeIdle();
        let started = performance.now();
        await storm.check(await storm.run(pool, never, dir, () => undefined));
        const durations = [performance.now() - started];
        const quantile = (values: number[], q: number) =>
          [...values].sort((a, b) => a - b)[Math.floor(q * (values.length - 1))] ?? 0;
        await pool.closeIdle();

        const cancelledAt: number[] = [];
        const stopMs: number[] = [];
        let finished = 0;
        started = performance.now();
        // Until CANCELS of them have landed: a step that finishes before its moment is not one.
        for (let i = 0; cancelledAt.length < CANCELS; i++) {
          assert.ok(i < 3 * CANCELS, `only ${cancelledAt.length} of ${i} cancels landed before their step ended`);
          const controller = new AbortController();
          const reason = new Error(`cancel ${i}`);
          let progress = 0;
          const stepStarted = performance.now();
          const step = storm.run(pool, controller.signal, dir, (f) => {
            progress = f;
          });
          let abortedAt = 0;
          let progressAtCancel = 0;
          const timer = setTimeout(() => {
            abortedAt = performance.now();
            progressAtCancel = progress;
            controller.abort(reason);
          }, rng.next() * quantile(durations, 0.5));
          const outcome = await step.then(
            () => "finished" as const,
            (error: unknown) => error,
          );
          clearTimeout(timer);
          if (outcome === "finished") {
            finished++;
            durations.push(performance.now() - stepStarted);
            await pool.closeIdle(); // the next step starts afresh too, as the step measured did
            continue;
          }
          assert.equal(outcome, reason, `cancel ${i}: the step ended with ${outcome}, not its cancellation`);
          cancelledAt.push(progressAtCancel);
          stopMs.push(performance.now() - abortedAt);
        }
        const stormSeconds = (performance.now() - started) / 1000;

        // The next step succeeds; no process of any cancelled step is left.
        await storm.check(await storm.run(pool, never, dir, () => undefined));
        await pool.closeIdle();
        assert.deepEqual(await nothingRunsIn(dir), [], "a cancelled step's process outlived it");
        assert.deepEqual(pool.pids, [], "every process of the pool has exited");

        const progressAt = (q: number) => quantile(cancelledAt, q).toFixed(2);
        t.diagnostic(
          `step ${Math.round(quantile(durations, 0.5))} ms (median of ${durations.length}); ${CANCELS} cancels in ${stormSeconds.toFixed(1)} s; ` +
            `${finished} more finished first; progress at the cancel: min ${progressAt(0)}, median ${progressAt(0.5)}, ` +
            `max ${progressAt(1)}; stopped ${Math.round(quantile(stopMs, 0.5))} ms after the cancel (median), ` +
            `${Math.round(quantile(stopMs, 1))} ms at most`,
        );
      } finally {
        await pool.closeIdle();
      }
    });
  }
});

describe("cancels through the HTTP API (POST /v1/job/:id/cancel)", () => {
  let server: Mixdown;
  let key: string;
  let files: Awaited<ReturnType<typeof startFixture>>;
  before(async () => {
    const bodies: Record<string, Buffer> = {
      "/music.wav": fs.readFileSync(longMusic),
      "/speech.wav": fs.readFileSync(speech),
    };
    files = await startFixture((request, response) => {
      const body = bodies[request.url ?? ""];
      if (!body) return void response.writeHead(404).end();
      response.writeHead(200, { "content-type": "audio/wav", "content-length": String(body.length) });
      response.end(body);
    });
    server = await Mixdown.start({ MIXDOWN_ALLOW_PRIVATE_URLS: "true" }, { backend: "embedded", workers: 1 });
    key = (await server.createApp("cancel-any-module")).apiKey;
  });
  after(async () => {
    await server?.dispose();
    await files?.close();
    assertNoneRunning();
  });

  /** Starts a job, waits until it is STARTED with progress past `past`, cancels it; the cancel's answer. */
  async function cancelPast(
    workflow: string,
    params: Record<string, unknown>,
    past: number,
  ): Promise<{ status: number; progress: number }> {
    const id = await server.createJob(key, workflow, params);
    let progress = 0;
    for (let i = 0; i < 2400; i++) {
      const state = (await server.api("GET", `/v1/job/${id}/status`, { key })).body;
      progress = state.progress ?? 0;
      if (state.status !== "QUEUED" && state.status !== "STARTED") break;
      if (state.status === "STARTED" && progress >= past) break;
      await delay(10);
    }
    const cancelled = await server.api("POST", `/v1/job/${id}/cancel`, { key });
    if (cancelled.status === 200) assert.equal(cancelled.body.error?.code, "CANCELLED", JSON.stringify(cancelled.body));
    // It had finished meanwhile; anything else: the server's log says why.
    else
      assert.equal(cancelled.status, 409, `${JSON.stringify(cancelled.body)}\n${server.apiNode.output.slice(-4000)}`);
    return { status: cancelled.status, progress };
  }

  test("cancelled stems-4, midi, transcribe and convert jobs cost those jobs only; the server goes on", async (t) => {
    const rng = new Rng(SEED);
    const cases: [string, string][] = [
      ["mixdown/stems-4", "/music.wav"],
      ["mixdown/stems-4", "/music.wav"],
      ["mixdown/stems-4", "/music.wav"],
      ["mixdown/midi", "/music.wav"],
      ["mixdown/transcribe", "/speech.wav"],
      ["mixdown/convert", "/music.wav"],
    ];
    const params: Record<string, Record<string, unknown>> = { "mixdown/convert": { format: "flac" } };
    const seen: string[] = [];
    for (const [workflow, input] of cases) {
      const inputUrl = `${files.url}${input}`;
      const { status, progress } = await cancelPast(
        workflow,
        { inputUrl, ...params[workflow] },
        0.1 + 0.7 * rng.next(),
      );
      seen.push(`${workflow} ${status === 200 ? "cancelled" : "had finished"} at ${progress.toFixed(2)}`);
      await delay(600); // past the step's grace: a crash of the server would show now
      assert.ok(server.apiNode.alive, `the server died after cancelling ${workflow}:\n${server.apiNode.output}`);
    }
    t.diagnostic(seen.join("; "));
    const job = await server.runJob(key, "mixdown/stems-4", { inputUrl: `${files.url}/music.wav` }, 120_000);
    assert.equal(job.status, "SUCCEEDED");
    assert.ok(server.apiNode.alive);
    assert.doesNotMatch(server.apiNode.output, /terminate called|Napi::Error|SIGABRT/);
  });

  test("a shutdown that stops stems-4 and midi steps exits 0, leaves no module process, and the jobs run again", async () => {
    const stopping = await Mixdown.start(
      { MIXDOWN_ALLOW_PRIVATE_URLS: "true", MIXDOWN_SHUTDOWN_GRACE_MS: "300", MIXDOWN_WORKERS: "2" },
      { backend: "embedded" },
    );
    try {
      const { apiKey } = await stopping.createApp("shutdown");
      const inputUrl = `${files.url}/music.wav`;
      const ids = [
        await stopping.createJob(apiKey, "mixdown/stems-4", { inputUrl }),
        await stopping.createJob(apiKey, "mixdown/midi", { inputUrl }),
      ];
      // Both in their module's work (past decoding), then SIGTERM: after the grace, their steps are stopped. Each
      // workflow is fetch then the module's step, weighing the same: the job is at 0.5 once the fetch is done, before
      // the module's process may have started, and at 0.575 when its step is 15 % in.
      const pastDecoding = 0.5 + 0.15 / 2;
      for (let i = 0; i < 2400; i++) {
        const states = await Promise.all(ids.map((id) => stopping.api("GET", `/v1/job/${id}/status`, { key: apiKey })));
        if (states.every((s) => s.body.status === "STARTED" && (s.body.progress ?? 0) >= pastDecoding)) break;
        await delay(10);
      }
      assert.equal(moduleProcessesOf(stopping).length, 2, "each step runs in its module's process");
      assert.equal(await stopping.stop("SIGTERM"), 0, stopping.apiNode.output);
      for (let i = 0; i < 40 && moduleProcessesOf(stopping).length > 0; i++) await delay(50);
      assert.deepEqual(moduleProcessesOf(stopping), [], "module processes outlived the server");
      await stopping.launch();
      for (const id of ids) {
        const job = await stopping.waitForJob(apiKey, id, 120_000);
        assert.equal(job.status, "SUCCEEDED", JSON.stringify(job.error));
      }
    } finally {
      await stopping.dispose();
    }
  });
});

/** The module processes of a server (they inherit its environment, its data dir included). */
function moduleProcessesOf(server: Mixdown): number[] {
  return processesMatching("module-process.ts").filter((pid) => {
    try {
      return fs.readFileSync(`/proc/${pid}/environ`, "utf8").includes(`MIXDOWN_DATA_DIR=${server.dataDir}\0`);
    } catch {
      return false;
    }
  });
}
