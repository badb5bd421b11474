// sdk/README.md's install, as a user of another project follows it: `npm pack` in sdk/ (which builds dist/),
// `npm install` of the tarball into a project of one's own, then the SDK imported there, by the machine's own
// Node when it is older (the SDK promises Node 20), against a real server.
import assert from "node:assert/strict";
import { execFile, execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, before, test } from "node:test";
import { promisify } from "node:util";
import { sineWav } from "../helpers/audio.ts";
import { describeOrSkip } from "../helpers/backends.ts";
import { machineNode } from "../helpers/machine-node.ts";
import { assertNoneRunning, Mixdown } from "../helpers/mixdown.ts";

const ROOT = path.resolve(import.meta.dirname, "../..");
const execFileAsync = promisify(execFile);

/** The folder of the machine's own Node with an npm beside it: what a user's shell runs. */
const NODE_DIR = machineNode(({ dir }) => fs.existsSync(path.join(dir, "npm")))?.dir;

function userEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(process.env))
    if (!key.startsWith("npm_") && key !== "NODE_OPTIONS" && key !== "NODE_TEST_CONTEXT") env[key] = value;
  const rest = (process.env.PATH ?? "").split(path.delimiter).filter((dir) => !dir.includes("node_modules"));
  env.PATH = [NODE_DIR ?? "", ...rest].join(path.delimiter);
  return env;
}

describeOrSkip("@mixdown/sdk installed into another project (sdk/README.md)", NODE_DIR ? undefined : "no npm", () => {
  let server: Mixdown;
  let apiKey: string;
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "mixdown-sdk-install-"));
  const npm = path.join(NODE_DIR ?? "", "npm");

  before(async () => {
    server = await Mixdown.start({ MIXDOWN_WORKERS: "1" });
    apiKey = (await server.createApp("sdk-install")).apiKey;
  });
  after(async () => {
    await server.dispose();
    fs.rmSync(tmp, { recursive: true, force: true });
    assertNoneRunning();
  });

  test("npm pack in sdk/, npm install of the tarball elsewhere, import and a job end to end", async () => {
    // A copy of sdk/ where it sits in a checkout (beside the project's node_modules, whose TypeScript builds it),
    // so that the build's dist/ and the tarball are not left in the repository.
    const checkout = path.join(tmp, "mixdown");
    fs.cpSync(path.join(ROOT, "sdk"), path.join(checkout, "sdk"), {
      recursive: true,
      filter: (from) => !/[/\\](dist|node_modules)$/.test(from) && !from.endsWith(".tgz"),
    });
    fs.symlinkSync(path.join(ROOT, "node_modules"), path.join(checkout, "node_modules"));
    const env = userEnv();
    const packed = await execFileAsync(npm, ["pack", "--json"], { cwd: path.join(checkout, "sdk"), env });
    const [{ filename, files }] = JSON.parse(packed.stdout) as [{ filename: string; files: { path: string }[] }];
    const tarball = path.join(checkout, "sdk", filename);
    assert.ok(fs.existsSync(tarball), filename);
    const paths = files.map((file) => file.path);
    for (const file of ["dist/index.js", "dist/index.d.ts", "README.md", "package.json"])
      assert.ok(paths.includes(file), `${file} in the tarball`);

    const project = path.join(tmp, "my-project");
    fs.mkdirSync(project);
    fs.writeFileSync(path.join(project, "package.json"), JSON.stringify({ name: "my-project", type: "module" }));
    await execFileAsync(npm, ["install", "--offline", "--no-audit", "--no-fund", tarball], { cwd: project, env });
    assert.match(
      JSON.parse(fs.readFileSync(path.join(project, "package.json"), "utf8")).dependencies["@mixdown/sdk"],
      /^file:.*mixdown-sdk-0\.1\.0\.tgz$/,
    );

    fs.writeFileSync(path.join(project, "song.wav"), sineWav(1));
    fs.writeFileSync(
      path.join(project, "first.js"),
      `import { MixdownClient } from "@mixdown/sdk";
const mixdown = new MixdownClient({ baseUrl: process.env.MIXDOWN_URL, apiKey: process.env.MIXDOWN_API_KEY });
const inputUrl = await mixdown.uploadFile("song.wav");
const id = await mixdown.addJob({ name: "song", workflow: "mixdown/convert", params: { inputUrl, format: "flac" } });
const job = await mixdown.waitForJobCompletion(id, { timeoutMs: 60_000 });
if (job.status === "FAILED") throw new Error(job.error?.code + ": " + job.error?.message);
const { files } = await mixdown.downloadJobResults(job, "out/");
console.log(JSON.stringify({ node: process.version, files }));
`,
    );
    const { stdout } = await execFileAsync(path.join(NODE_DIR ?? "", "node"), ["first.js"], {
      cwd: project,
      env: { ...env, MIXDOWN_URL: server.url, MIXDOWN_API_KEY: apiKey },
    });
    const report = JSON.parse(stdout) as { node: string; files: { output: string } };
    assert.equal(report.files.output, path.join(project, "out", "output.flac"));
    assert.equal(fs.readFileSync(report.files.output).subarray(0, 4).toString("latin1"), "fLaC");
    const version = execFileSync(path.join(NODE_DIR ?? "", "node"), ["--version"], { encoding: "utf8" }).trim();
    assert.equal(report.node, version, "run by the machine's own Node");
  });
});
