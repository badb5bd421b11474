// The README's start command on a fresh checkout, as a new user runs it: the machine's older Node (Debian's
// Node 20) first on PATH, no node_modules. `npm install` must bring Node 24 itself (the npm package `node`)
// without EBADENGINE warnings, `npm start` must serve on Node 24, and bin/mixdown run directly must find
// the same Node. (`npm test` on a fresh checkout is what .ci/run does on every submission.)
import assert from "node:assert/strict";
import { type ChildProcess, execFile, execFileSync, spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, before, test } from "node:test";
import { setTimeout as delay } from "node:timers/promises";
import { promisify } from "node:util";
import { describeOrSkip } from "../helpers/backends.ts";
import { machineNode } from "../helpers/machine-node.ts";
import { freePort } from "../helpers/mixdown.ts";

const ROOT = path.resolve(import.meta.dirname, "../..");
const execFileAsync = promisify(execFile);

/** A `node` of the machine's own older than 24 (what a fresh machine has), if any. */
const OLD = machineNode(({ major }) => major < 24);
const OLD_NODE = OLD && path.join(OLD.dir, "node");
const NPM = OLD_NODE && path.join(path.dirname(OLD_NODE), "npm");
const skip = !OLD_NODE
  ? "no Node.js older than 24 on PATH to start from"
  : !fs.existsSync(NPM ?? "")
    ? `no npm beside ${OLD_NODE}`
    : undefined;

/** The environment of a new user's shell: the old Node first on PATH, nothing inherited from npm. */
function userEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (!key.startsWith("npm_") && !key.startsWith("MIXDOWN_") && key !== "NODE_OPTIONS") env[key] = value;
  }
  const rest = (process.env.PATH ?? "").split(path.delimiter).filter((dir) => !dir.includes("node_modules"));
  env.PATH = [path.dirname(OLD_NODE ?? ""), ...rest].join(path.delimiter);
  return { ...env, ...extra };
}

/** The project's tracked files as they are in the work tree: what a clone of this commit holds. */
function copyCheckout(to: string): void {
  const files = execFileSync("git", ["ls-files", "-z"], { cwd: ROOT, encoding: "utf8" }).split("\0").filter(Boolean);
  for (const file of files) {
    const from = path.join(ROOT, file);
    if (!fs.existsSync(from)) continue; // deleted in the work tree, not yet committed
    fs.mkdirSync(path.dirname(path.join(to, file)), { recursive: true });
    fs.cpSync(from, path.join(to, file), { preserveTimestamps: true });
  }
}

async function waitForHealth(url: string, server: ChildProcess, output: () => string): Promise<void> {
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline) {
    if (server.exitCode !== null) assert.fail(`npm start exited with ${server.exitCode}:\n${output()}`);
    const ok = await fetch(`${url}/healthz`).then(
      (r) => r.ok,
      () => false,
    );
    if (ok) return;
    await delay(200);
  }
  assert.fail(`npm start did not answer /healthz within 60 s:\n${output()}`);
}

describeOrSkip("a fresh checkout under an older Node (README: npm install && npm start)", skip, () => {
  let dir = "";
  let installOutput = "";

  before(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), "mixdown-fresh-"));
    copyCheckout(dir);
    const { stdout, stderr } = await execFileAsync(NPM ?? "npm", ["install"], {
      cwd: dir,
      env: userEnv(),
      maxBuffer: 16 << 20,
    });
    installOutput = stdout + stderr;
  });

  after(() => {
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
  });

  test("npm install brings Node 24 and prints no engine warnings", () => {
    assert.doesNotMatch(installOutput, /EBADENGINE|npm warn/i, installOutput);
    const version = execFileSync(path.join(dir, "node_modules/.bin/node"), ["--version"], { encoding: "utf8" });
    assert.match(version, /^v24\./);
  });

  test("npm start serves on Node 24", async () => {
    const port = await freePort();
    const url = `http://127.0.0.1:${port}`;
    const env = userEnv({ PORT: String(port), MIXDOWN_DATA_DIR: path.join(dir, "data"), MIXDOWN_WORKERS: "0" });
    const server = spawn(NPM ?? "npm", ["start"], { cwd: dir, env, detached: true, stdio: ["ignore", "pipe", "pipe"] });
    let output = "";
    server.stdout?.on("data", (chunk) => (output += chunk));
    server.stderr?.on("data", (chunk) => (output += chunk));
    const exited = new Promise((resolve) => server.once("exit", resolve));
    try {
      await waitForHealth(url, server, () => output);
      const metrics = await (await fetch(`${url}/metrics`)).text();
      assert.match(metrics, /nodejs_version_info\{version="v24\./);
    } finally {
      if (server.exitCode === null && server.pid) process.kill(-server.pid, "SIGTERM");
      await exited;
    }
  });

  test("bin/mixdown run directly finds the same Node", async () => {
    const env = userEnv({ MIXDOWN_DATA_DIR: path.join(dir, "data") });
    const { stdout } = await execFileAsync(
      path.join(dir, "bin/mixdown"),
      ["app", "create", "--name", "fresh", "--json"],
      {
        env,
      },
    );
    assert.equal(JSON.parse(stdout).name, "fresh");
  });
});
