import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, test } from "node:test";
import { setTimeout as delay } from "node:timers/promises";
import { ModuleThreads, type ThreadTask } from "../../src/engine/run-in-thread.ts";
import { JobFailure } from "../../src/jobs/job-failure.ts";
import { sineWav } from "../helpers/audio.ts";

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "mixdown-module-threads-"));
after(() => fs.rmSync(tmp, { recursive: true, force: true }));

function audioFile(name: string, seconds: number): string {
  const file = path.join(tmp, name);
  fs.writeFileSync(file, sineWav(seconds));
  return file;
}
const short = audioFile("short.wav", 2);
const task = (audio: string): ThreadTask => ({ params: {}, inputs: { audio }, outputDir: tmp, modelsDir: tmp });
const never = new AbortController().signal;

test("a module's thread runs its next step too, and answers each step with that step's outputs", async () => {
  const threads = new ModuleThreads({ idleMs: 60_000, retireHeapBytes: 1024 ** 3 });
  try {
    const first = await threads.run("loudness", task(short), never);
    assert.equal(threads.idleCount("loudness"), 1);
    const second = await threads.run("loudness", task(short), never);
    assert.deepEqual(second, first);
    assert.ok(typeof first.truePeak === "number" && Math.abs(first.truePeak + 6) < 0.5, `true peak ${first.truePeak}`);
    assert.equal(threads.started, 1);
    assert.equal(threads.idleCount("loudness"), 1);
    assert.equal(threads.idleCount("waveform"), 0);
  } finally {
    await threads.closeIdle();
  }
});

test("aborting a step terminates its thread; the next step gets a new one", async () => {
  const threads = new ModuleThreads({ idleMs: 60_000, retireHeapBytes: 1024 ** 3 });
  try {
    const controller = new AbortController();
    const running = threads.run("loudness", task(audioFile("long.wav", 120)), controller.signal);
    setTimeout(() => controller.abort(new Error("deleted")), 50);
    await assert.rejects(running, /deleted/);
    assert.equal(threads.idleCount("loudness"), 0);
    await threads.run("loudness", task(short), never);
    assert.equal(threads.started, 2);
    const aborted = AbortSignal.abort(new Error("already gone"));
    await assert.rejects(threads.run("loudness", task(short), aborted), /already gone/);
    assert.equal(threads.started, 2, "an aborted signal starts no thread");
  } finally {
    await threads.closeIdle();
  }
});

test("a thread is not kept after a failed step, nor when its heap is over the limit", async () => {
  const junk = path.join(tmp, "junk.wav");
  fs.writeFileSync(junk, "not audio at all");
  const threads = new ModuleThreads({ idleMs: 60_000, retireHeapBytes: 1024 ** 3 });
  await assert.rejects(threads.run("loudness", task(junk), never), (error: unknown) => {
    assert.ok(error instanceof JobFailure, String(error));
    assert.equal(error.code, "BAD_INPUT");
    return true;
  });
  assert.equal(threads.idleCount("loudness"), 0);

  const small = new ModuleThreads({ idleMs: 60_000, retireHeapBytes: 1 });
  await small.run("loudness", task(short), never);
  await small.run("loudness", task(short), never);
  assert.equal(small.idleCount("loudness"), 0);
  assert.equal(small.started, 2);
});

test("an idle thread ends after the idle time", async () => {
  const threads = new ModuleThreads({ idleMs: 100, retireHeapBytes: 1024 ** 3 });
  await threads.run("loudness", task(short), never);
  assert.equal(threads.idleCount("loudness"), 1);
  await delay(500);
  assert.equal(threads.idleCount("loudness"), 0);
  await threads.run("loudness", task(short), never);
  assert.equal(threads.started, 2);
  await threads.closeIdle();
});

test("idle threads do not keep the process alive", () => {
  const entry = new URL("../../src/engine/run-in-thread.ts", import.meta.url).href;
  const script = `
    import { moduleThreads } from ${JSON.stringify(entry)};
    const outputs = await moduleThreads.run("loudness", ${JSON.stringify(task(short))}, new AbortController().signal);
    console.log(moduleThreads.idleCount("loudness"), JSON.stringify(outputs));
  `;
  const file = path.join(tmp, "idle-thread.mjs");
  fs.writeFileSync(file, script);
  const child = spawnSync(process.execPath, [file], { encoding: "utf8", timeout: 30_000 });
  assert.equal(child.status, 0, `exit ${child.status} ${child.signal ?? ""}: ${child.stderr}`);
  assert.match(child.stdout, /^1 \{"integratedLoudness"/);
});
