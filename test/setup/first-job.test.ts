// The README's first job, run as written: its shell snippet (between the first-job markers) and
// scripts/first-job.sh, with nothing but sh, curl and sed, against a real server; each must download a result.
import assert from "node:assert/strict";
import { execFile, execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, before, test } from "node:test";
import { promisify } from "node:util";
import { sineWav } from "../helpers/audio.ts";
import { describeOrSkip } from "../helpers/backends.ts";
import { probe } from "../helpers/media.ts";
import { type AppInfo, assertNoneRunning, BACKENDS, freePort, Mixdown } from "../helpers/mixdown.ts";

const ROOT = path.resolve(import.meta.dirname, "../..");
const SCRIPT = path.join(ROOT, "scripts/first-job.sh");
const execFileAsync = promisify(execFile);

const noCurl = (() => {
  try {
    execFileSync("curl", ["--version"], { stdio: "ignore" });
    return undefined;
  } catch {
    return "no curl (scripts/test-setup.sh installs it)";
  }
})();

/** The shell between `<!-- first-job:begin -->` and `<!-- first-job:end -->` in the README, fences removed. */
function readmeSnippet(): string {
  const readme = fs.readFileSync(path.join(ROOT, "README.md"), "utf8");
  const block = /<!-- first-job:begin -->\n```sh\n([\s\S]*?)```\n<!-- first-job:end -->/.exec(readme);
  assert.ok(block?.[1], "the README has the first-job snippet between its markers");
  return block[1];
}

/** The environment of a user's shell: nothing of the test's own MIXDOWN_ settings but what `extra` gives. */
function shellEnv(extra: Record<string, string>): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(process.env)) if (!key.startsWith("MIXDOWN_")) env[key] = value;
  return { ...env, ...extra };
}

async function run(file: string, args: string[], options: { cwd: string; env: NodeJS.ProcessEnv }) {
  try {
    const { stdout, stderr } = await execFileAsync(file, args, { ...options, timeout: 120_000 });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const e = error as { code: number; stdout: string; stderr: string };
    return { code: e.code, stdout: e.stdout, stderr: e.stderr };
  }
}

for (const { backend, skip } of BACKENDS)
  describeOrSkip(`the README's first job, end to end [${backend}]`, skip ?? noCurl, () => {
    let server: Mixdown;
    let app: AppInfo;
    const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "mixdown-first-job-"));

    before(async () => {
      server = await Mixdown.start({}, { backend });
      app = await server.createApp("first-job");
      fs.writeFileSync(path.join(tmp, "song.wav"), sineWav(3, { rate: 44100, channels: 2 }));
    });
    after(async () => {
      await server.dispose();
      fs.rmSync(tmp, { recursive: true, force: true });
      assertNoneRunning();
    });

    test("the README's snippet, run by sh in a folder with bin/ and song.wav, saves song.mp3", async () => {
      const dir = path.join(tmp, "readme");
      fs.mkdirSync(dir);
      fs.symlinkSync(path.join(ROOT, "bin"), path.join(dir, "bin"));
      fs.copyFileSync(path.join(tmp, "song.wav"), path.join(dir, "song.wav"));
      // The server's own configuration, so that `bin/mixdown app create` writes where the server reads.
      const env = shellEnv({ ...server.env, MIXDOWN_URL: server.url });
      const r = await run("sh", ["-c", readmeSnippet()], { cwd: dir, env });
      assert.equal(r.code, 0, r.stderr);
      assert.match(r.stdout, /^job [0-9a-f-]{36}: SUCCEEDED$/m, r.stdout);
      assert.match(r.stdout, /^saved song\.mp3$/m);
      const info = await probe(path.join(dir, "song.mp3"));
      assert.equal(info.streams[0]?.codec_name, "mp3");
      assert.ok(Math.abs(info.duration - 3) < 0.15, `${info.duration} s`);
    });

    test("scripts/first-job.sh uploads, converts, polls and downloads the result", async () => {
      const env = shellEnv({ MIXDOWN_URL: server.url, MIXDOWN_API_KEY: app.apiKey });
      const r = await run(SCRIPT, ["song.wav", "flac"], { cwd: tmp, env });
      assert.equal(r.code, 0, r.stderr);
      assert.match(r.stdout, /^uploaded song\.wav$/m);
      assert.match(r.stdout, /^job [0-9a-f-]{36} created$/m);
      assert.match(r.stdout, /^job [0-9a-f-]{36} SUCCEEDED$/m);
      assert.match(r.stdout, /^downloaded song-converted\.flac$/m);
      const info = await probe(path.join(tmp, "song-converted.flac"));
      assert.equal(info.streams[0]?.codec_name, "flac");
      assert.ok(Math.abs(info.duration - 3) < 0.15, `${info.duration} s`);
    });

    test("scripts/first-job.sh says what went wrong: the server's refusal, no server, no key", async () => {
      const env = shellEnv({ MIXDOWN_URL: server.url, MIXDOWN_API_KEY: app.apiKey });
      const refused = await run(SCRIPT, ["song.wav", "xyz"], { cwd: tmp, env });
      assert.equal(refused.code, 1);
      assert.match(refused.stderr, /^first-job: POST \/v1\/job: HTTP 422 .*"params\.format"/m);

      const closed = `http://127.0.0.1:${await freePort()}`;
      const noServer = await run(SCRIPT, ["song.wav"], { cwd: tmp, env: { ...env, MIXDOWN_URL: closed } });
      assert.equal(noServer.code, 1);
      assert.match(
        noServer.stderr,
        new RegExp(`first-job: could not reach Mixdown at ${closed}: start it with npm start`),
      );

      const noKey = await run(SCRIPT, ["song.wav"], { cwd: tmp, env: shellEnv({ MIXDOWN_URL: server.url }) });
      assert.notEqual(noKey.code, 0);
      assert.match(noKey.stderr, /MIXDOWN_API_KEY/);
    });
  });
