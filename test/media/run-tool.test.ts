import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import fs from "node:fs";
import { test } from "node:test";
import { setTimeout as delay } from "node:timers/promises";
import { runTool, ToolError } from "../../src/media/run-tool.ts";
import { toolLauncher } from "../../src/media/tool-launcher.ts";
import { assertNoneRunning, Mixdown } from "../helpers/mixdown.ts";

/** Processes `pid` has started and not yet waited for. */
const childrenOf = (pid: number): number[] =>
  fs.readFileSync(`/proc/${pid}/task/${pid}/children`, "utf8").split(" ").filter(Boolean).map(Number);

const alive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

async function until(condition: () => boolean, what: string): Promise<void> {
  for (let i = 0; i < 100 && !condition(); i++) await delay(50);
  assert.ok(condition(), what);
}

test("a tool run from the main thread is started by the launcher, not by this process, and answers its stdout", async () => {
  const output = await runTool("sh", ["-c", "echo $PPID; echo hello"]);
  const [parent, text] = output.trim().split("\n");
  assert.equal(text, "hello");
  assert.equal(Number(parent), toolLauncher.pid);
  assert.notEqual(Number(parent), process.pid);
});

test("a failing tool is a ToolError with its exit code and stderr; a missing one rejects with ENOENT", async () => {
  await assert.rejects(runTool("sh", ["-c", "echo broken >&2; exit 3"]), (error: unknown) => {
    assert.ok(error instanceof ToolError);
    assert.equal(error.exitCode, 3);
    assert.match(error.stderr, /broken/);
    return true;
  });
  await assert.rejects(runTool("mixdown-no-such-tool", []), { code: "ENOENT" });
});

test("tools run at background priority", async () => {
  const output = await runTool("sh", ["-c", "cut -d' ' -f19 /proc/$$/stat"]);
  assert.equal(Number(output.trim()), 10);
});

test("aborting a run stops the tool: the run rejects with the reason once its process has exited", async () => {
  const controller = new AbortController();
  const run = runTool("sleep", ["30"], controller.signal);
  const launcher = toolLauncher.pid as number;
  await until(() => childrenOf(launcher).length === 1, "the tool started");
  const [tool] = childrenOf(launcher) as [number];
  controller.abort(new Error("stopped"));
  await assert.rejects(run, /stopped/);
  assert.equal(alive(tool), false);
});

test("the launcher outlives a SIGINT or SIGTERM sent to the process group: it ends with its parent", async () => {
  await runTool("true", []);
  const launcher = toolLauncher.pid as number;
  process.kill(launcher, "SIGTERM");
  process.kill(launcher, "SIGINT");
  await delay(100);
  assert.equal((await runTool("echo", ["still here"])).trim(), "still here");
  assert.equal(toolLauncher.pid, launcher);
});

test("when the launcher dies, its runs fail and the next run starts a new launcher", async () => {
  const run = runTool("sleep", ["30"]);
  const first = toolLauncher.pid as number;
  const started = toolLauncher.started;
  await until(() => childrenOf(first).length === 1, "the tool started");
  const [tool] = childrenOf(first) as [number];
  process.kill(first, "SIGKILL");
  process.kill(tool, "SIGKILL"); // orphaned by the launcher's sudden death
  await assert.rejects(run, /launcher process exited/);
  assert.equal((await runTool("echo", ["again"])).trim(), "again");
  assert.equal(toolLauncher.started, started + 1);
  assert.notEqual(toolLauncher.pid, first);
});

test("when the process using the launcher dies, the launcher stops its tools and exits", async () => {
  const script = `
    import { runTool } from ${JSON.stringify(new URL("../../src/media/run-tool.ts", import.meta.url).href)};
    import { toolLauncher } from ${JSON.stringify(new URL("../../src/media/tool-launcher.ts", import.meta.url).href)};
    void runTool("sleep", ["30"]);
    setTimeout(() => { console.log(toolLauncher.pid); setInterval(() => {}, 1000); }, 50);`;
  const user = execFile(process.execPath, ["--input-type=module", "-e", script]);
  const launcher = await new Promise<number>((resolve) => user.stdout?.once("data", (line) => resolve(Number(line))));
  await until(() => childrenOf(launcher).length === 1, "the tool started");
  const [tool] = childrenOf(launcher) as [number];
  user.kill("SIGKILL");
  await until(() => !alive(tool) && !alive(launcher), "the tool and the launcher exited");
});

test("a node with workers starts its tool launcher at start, before any job; one without workers starts none", async () => {
  const withWorkers = await Mixdown.start();
  const without = await Mixdown.start({ MIXDOWN_WORKERS: "0" });
  try {
    await until(() => childrenOf(withWorkers.apiNode.pid as number).length === 1, "the launcher started");
    assert.deepEqual(childrenOf(without.apiNode.pid as number), []);
  } finally {
    await Promise.all([withWorkers.dispose(), without.dispose()]);
    assertNoneRunning();
  }
});
