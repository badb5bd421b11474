import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, test } from "node:test";
import { setTimeout as delay } from "node:timers/promises";
import { modulePool } from "../../src/engine/module-pool.ts";
import { processesMatching, waitFor } from "../helpers/processes.ts";

const dir = fs.mkdtempSync(path.join(os.tmpdir(), "mixdown-cancel-module-process-"));
after(async () => {
  await modulePool.closeIdle();
  fs.rmSync(dir, { recursive: true, force: true });
});

test("stopping a step that runs in a module process ends the tool the process started", async () => {
  // ffmpeg blocks opening a FIFO nobody writes: the step stays in its child process until stopped.
  const fifo = path.join(dir, "input-never-written.wav");
  execFileSync("mkfifo", [fifo]);
  const controller = new AbortController();
  const task = { params: { targetLoudness: -14, truePeakLimit: -1, format: "wav" }, inputs: { audio: fifo } };
  const run = modulePool.run("loudness-normalize", { ...task, outputDir: dir, modelsDir: dir }, controller.signal);
  const rejected = assert.rejects(run, /stopped by the test/);
  const [pid] = await waitFor("the step's ffmpeg", () => processesMatching(fifo));
  controller.abort(new Error("stopped by the test"));
  await rejected;
  // The promise settles once the module process has ended; its tool must be gone too.
  for (let i = 0; i < 40 && processesMatching(fifo).length > 0; i++) await delay(50);
  assert.deepEqual(processesMatching(fifo), [], `ffmpeg (pid ${pid}) still runs`);
});
