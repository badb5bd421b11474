import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, test } from "node:test";
import { setTimeout as delay } from "node:timers/promises";
import { ModulePool, type StepTask } from "../../src/engine/module-pool.ts";
import { JobFailure } from "../../src/jobs/job-failure.ts";
import { BACKGROUND_PRIORITY } from "../../src/media/run-tool.ts";
import { sineWav } from "../helpers/audio.ts";

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "mixdown-module-pool-"));
after(() => fs.rmSync(tmp, { recursive: true, force: true }));
/** Test-only modules (test/engine/fixtures/modules/<name>/index.ts). */
const FIXTURES = path.join(import.meta.dirname, "fixtures/modules");

function audioFile(name: string, seconds: number): string {
  const file = path.join(tmp, name);
  fs.writeFileSync(file, sineWav(seconds));
  return file;
}
const short = audioFile("short.wav", 2);
const task = (audio: string): StepTask => ({ params: {}, inputs: { audio }, outputDir: tmp, modelsDir: tmp });
const fixtureTask = (params: Record<string, unknown>): StepTask => ({
  params,
  inputs: {},
  outputDir: tmp,
  modelsDir: tmp,
});
const never = new AbortController().signal;
const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return !fs.readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]?.startsWith("Z");
  } catch {
    return false;
  }
};

test("a module's process runs its next step too, and answers each step with that step's outputs", async () => {
  const pool = new ModulePool({ idleMs: 60_000, retireBytes: 1024 ** 3 });
  try {
    const first = await pool.run("loudness", task(short), never);
    assert.equal(pool.idleCount("loudness"), 1);
    const second = await pool.run("loudness", task(short), never);
    assert.deepEqual(second, first);
    assert.ok(typeof first.truePeak === "number" && Math.abs(first.truePeak + 6) < 0.5, `true peak ${first.truePeak}`);
    assert.equal(pool.started, 1);
    assert.equal(pool.idleCount("loudness"), 1);
    assert.equal(pool.idleCount("waveform"), 0);
  } finally {
    await pool.closeIdle();
  }
});

test("aborting a step ends its process; the next step gets a new one", async () => {
  const pool = new ModulePool({ idleMs: 60_000, retireBytes: 1024 ** 3 });
  try {
    const controller = new AbortController();
    const running = pool.run("loudness", task(audioFile("long.wav", 120)), controller.signal);
    setTimeout(() => controller.abort(new Error("deleted")), 50);
    await assert.rejects(running, /deleted/);
    assert.equal(pool.idleCount("loudness"), 0);
    await pool.run("loudness", task(short), never);
    assert.equal(pool.started, 2);
    const aborted = AbortSignal.abort(new Error("already gone"));
    await assert.rejects(pool.run("loudness", task(short), aborted), /already gone/);
    assert.equal(pool.started, 2, "an aborted signal starts no process");
  } finally {
    await pool.closeIdle();
  }
});

test("a process is not kept after a failed step, nor when its resident memory is over the limit", async () => {
  const junk = path.join(tmp, "junk.wav");
  fs.writeFileSync(junk, "not audio at all");
  const pool = new ModulePool({ idleMs: 60_000, retireBytes: 1024 ** 3 });
  await assert.rejects(pool.run("loudness", task(junk), never), (error: unknown) => {
    assert.ok(error instanceof JobFailure, String(error));
    assert.equal(error.code, "BAD_INPUT");
    return true;
  });
  assert.equal(pool.idleCount("loudness"), 0);

  const small = new ModulePool({ idleMs: 60_000, retireBytes: 1 });
  await small.run("loudness", task(short), never);
  await small.run("loudness", task(short), never);
  assert.equal(small.idleCount("loudness"), 0);
  assert.equal(small.started, 2);
});

test("a module that dies natively (SIGABRT) or exits fails only its step; the next step gets a new process", async () => {
  const pool = new ModulePool({ idleMs: 60_000, retireBytes: 1024 ** 3, modulesDir: FIXTURES });
  try {
    const progress: number[] = [];
    await assert.rejects(
      pool.run("misbehave", fixtureTask({ action: "abort" }), never, (f) => progress.push(f)),
      (error: unknown) => {
        assert.ok(error instanceof JobFailure, String(error));
        assert.equal(error.code, "INTERNAL_ERROR");
        assert.match(error.message, /misbehave module's process was killed by SIGABRT/);
        return true;
      },
    );
    assert.deepEqual(progress, [0.5], "progress crossed before the crash");
    await assert.rejects(pool.run("misbehave", fixtureTask({ action: "exit" }), never), /exited with code 3/);
    await assert.rejects(pool.run("misbehave", fixtureTask({ action: "fail" }), never), (error: unknown) => {
      assert.ok(error instanceof JobFailure && error.code === "BAD_INPUT", String(error));
      return true;
    });
    const { pid } = await pool.run("misbehave", fixtureTask({ action: "ok" }), never);
    assert.ok(alive(pid as number));
    assert.equal(pool.started, 4, "a new process after each failed step");
    assert.equal(pool.idleCount("misbehave"), 1);
  } finally {
    await pool.closeIdle();
  }
});

test("a step stuck in native code is killed after the grace, with the tools it started", async () => {
  const pool = new ModulePool({ idleMs: 60_000, retireBytes: 1024 ** 3, modulesDir: FIXTURES });
  try {
    const pidFile = path.join(tmp, "tool.pid");
    const controller = new AbortController();
    const running = pool.run("misbehave", fixtureTask({ action: "block", pidFile }), controller.signal);
    for (let i = 0; i < 200 && !fs.readFileSync(pidFile, { flag: "a+", encoding: "utf8" }); i++) await delay(25);
    const tool = Number(fs.readFileSync(pidFile, "utf8"));
    assert.ok(tool > 0 && alive(tool), "the module's tool runs");
    const stoppedAt = performance.now();
    controller.abort(new Error("cancelled by the test"));
    await assert.rejects(running, /cancelled by the test/);
    const waited = performance.now() - stoppedAt;
    assert.ok(waited >= 450, `the grace was given (${waited.toFixed(0)} ms)`);
    for (let i = 0; i < 40 && alive(tool); i++) await delay(25);
    assert.ok(!alive(tool), `the tool (pid ${tool}) was killed with its module's process`);
    assert.equal((await pool.run("misbehave", fixtureTask({ action: "ok" }), never)).pid !== undefined, true);
    assert.equal(pool.started, 2);
  } finally {
    await pool.closeIdle();
  }
});

test("a module process runs below the API's priority and starts its tools itself, not through a launcher", async () => {
  const pool = new ModulePool({ idleMs: 60_000, retireBytes: 1024 ** 3, modulesDir: FIXTURES });
  try {
    const described = await pool.run("misbehave", fixtureTask({ action: "describe" }), never);
    const { pid, toolParent, niceness, autogroupNice } = described;
    assert.notEqual(pid, process.pid);
    assert.equal(toolParent, pid, "the tool's parent is the module process");
    const nice = niceness as number[];
    assert.ok(nice.length > 1, `threads: ${nice}`);
    assert.ok(
      nice.every((n) => n >= Math.min(BACKGROUND_PRIORITY, os.getPriority() + BACKGROUND_PRIORITY)),
      `every thread lowered: ${nice}`,
    );
    // Where Linux's autogroup scheduling is on, the process's session is a group the scheduler weighs as a whole.
    if (autogroupNice !== null) assert.equal(autogroupNice, BACKGROUND_PRIORITY, "its autogroup lowered");
  } finally {
    await pool.closeIdle();
  }
});

test("an idle process ends after the idle time", async () => {
  const pool = new ModulePool({ idleMs: 100, retireBytes: 1024 ** 3, modulesDir: FIXTURES });
  const { pid } = await pool.run("misbehave", fixtureTask({ action: "ok" }), never);
  assert.equal(pool.idleCount("misbehave"), 1);
  await delay(500);
  assert.equal(pool.idleCount("misbehave"), 0);
  assert.ok(!alive(pid as number), "the idle process has exited");
  await pool.run("misbehave", fixtureTask({ action: "ok" }), never);
  assert.equal(pool.started, 2);
  await pool.closeIdle();
});

test("idle processes do not keep the process alive, and end with it", () => {
  const entry = new URL("../../src/engine/module-pool.ts", import.meta.url).href;
  const script = `
    import { modulePool } from ${JSON.stringify(entry)};
    const outputs = await modulePool.run("loudness", ${JSON.stringify(task(short))}, new AbortController().signal);
    const child = (await import("node:child_process")).execFileSync("pgrep", ["-P", String(process.pid), "-f", "module-process"]);
    console.log(modulePool.idleCount("loudness"), String(child).trim(), JSON.stringify(outputs));
  `;
  const file = path.join(tmp, "idle-process.mjs");
  fs.writeFileSync(file, script);
  const child = spawnSync(process.execPath, [file], { encoding: "utf8", timeout: 30_000 });
  assert.equal(child.status, 0, `exit ${child.status} ${child.signal ?? ""}: ${child.stderr}`);
  const match = child.stdout.match(/^1 (\d+) \{"integratedLoudness"/);
  assert.ok(match, child.stdout);
  const pid = Number(match[1]);
  for (let i = 0; i < 40 && alive(pid); i++) spawnSync("sleep", ["0.05"]);
  assert.ok(!alive(pid), `the idle module process (pid ${pid}) ended with its parent`);
});
