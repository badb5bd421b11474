// The README's commands for one test file and one bench, run as a user runs them: through npm, with the
// machine's own (older) Node first on PATH when there is one, so that only npm's PATH (node_modules/.bin first)
// and scripts/run-tests.sh stand between them and Node 24.
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, describe, test } from "node:test";
import { promisify } from "node:util";
import { machineNode } from "../helpers/machine-node.ts";

const ROOT = path.resolve(import.meta.dirname, "../..");
const execFileAsync = promisify(execFile);

/** The machine's own Node, with its npm. */
const MACHINE = machineNode(({ dir }) => fs.existsSync(path.join(dir, "npm")));

/** `npm ARGS` in the repository, from a user's shell: the machine's Node first on PATH, nothing inherited from npm. */
async function npm(args: string[], extra: Record<string, string> = {}) {
  const env: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(process.env))
    if (!key.startsWith("npm_") && key !== "NODE_OPTIONS" && key !== "NODE_TEST_CONTEXT") env[key] = value;
  const rest = (process.env.PATH ?? "").split(path.delimiter).filter((dir) => !dir.includes("node_modules"));
  env.PATH = [...(MACHINE ? [MACHINE.dir] : []), ...rest].join(path.delimiter);
  try {
    const { stdout, stderr } = await execFileAsync(MACHINE ? path.join(MACHINE.dir, "npm") : "npm", args, {
      cwd: ROOT,
      env: { ...env, ...extra },
      timeout: 120_000,
    });
    return { code: 0, output: stdout + stderr };
  } catch (error) {
    const e = error as { code: number; stdout: string; stderr: string };
    return { code: e.code, output: e.stdout + e.stderr };
  }
}

describe(`npm scripts for one test file and one bench (machine's Node: ${MACHINE?.major ?? "none"})`, () => {
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "mixdown-npm-scripts-"));
  after(() => fs.rmSync(tmp, { recursive: true, force: true }));

  test("npm test -- FILE runs that file alone, on Node 24, after the pretest step", async () => {
    const file = path.join(tmp, "only.test.ts");
    const marker = path.join(tmp, "ran.txt");
    // TypeScript syntax, so that only a Node that strips types runs it; it records the Node that did.
    fs.writeFileSync(
      file,
      `import fs from "node:fs";\nimport { test } from "node:test";\n` +
        `test("the chosen file", () => { const version: string = process.version; fs.writeFileSync(${JSON.stringify(marker)}, version); });\n`,
    );
    const r = await npm(["test", "--", file], { MIXDOWN_TEST_SETUP: "skip" });
    assert.equal(r.code, 0, r.output);
    assert.match(r.output, /> mixdown@[\d.]+ pretest\n> scripts\/test-setup\.sh/, "the pretest step ran");
    assert.match(r.output, /^ℹ tests 1$/m, r.output);
    assert.match(r.output, /✔ the chosen file/);
    assert.match(fs.readFileSync(marker, "utf8"), /^v2[4-9]\./);
  });

  test("npm test -- OPTION FILE passes the option to node --test", async () => {
    const file = path.join(tmp, "two.test.ts");
    fs.writeFileSync(file, `import { test } from "node:test";\ntest("alpha", () => {});\ntest("beta", () => {});\n`);
    const r = await npm(["test", "--", "--test-name-pattern=beta", file], { MIXDOWN_TEST_SETUP: "skip" });
    assert.equal(r.code, 0, r.output);
    assert.match(r.output, /✔ beta/);
    assert.doesNotMatch(r.output, /✔ alpha/);
  });

  test("npm run bench -- --list names the benches; an unknown name stops at once with the list", async () => {
    const list = await npm(["run", "bench", "--", "--list"]);
    assert.equal(list.code, 0, list.output);
    for (const name of ["status-throughput", "upload-throughput", "separation"])
      assert.match(list.output, new RegExp(`^${name}$`, "m"));
    assert.match(list.output, /^distributed {2}\(only when named\)$/m);
    const unknown = await npm(["run", "bench", "--", "no-such-bench"]);
    assert.equal(unknown.code, 2, unknown.output);
    assert.match(unknown.output, /no bench is named or contains "no-such-bench"/);
    assert.match(unknown.output, /^ {2}status-throughput$/m);
  });
});
