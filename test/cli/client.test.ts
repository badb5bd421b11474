import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { randomBytes } from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, before, test } from "node:test";
import { promisify } from "node:util";
import { sineWav } from "../helpers/audio.ts";
import { describeOrSkip } from "../helpers/backends.ts";
import { probe } from "../helpers/media.ts";
import { type AppInfo, assertNoneRunning, BACKENDS, MIXDOWN_BIN, Mixdown } from "../helpers/mixdown.ts";

const execFileAsync = promisify(execFile);
/** Escape sequences and carriage returns: none may reach a pipe. */
const hasControl = (text: string) => text.includes("\x1b") || text.includes("\r");

function hasScript(): boolean {
  return ["/usr/bin/script", "/bin/script"].some((file) => fs.existsSync(file));
}

interface Run {
  stdout: string;
  stderr: string;
  code: number;
}

for (const { backend, skip } of BACKENDS)
  describeOrSkip(
    `mixdown client commands (run, jobs, workflows, upload) against a real server [${backend}]`,
    skip,
    () => {
      let server: Mixdown;
      let app: AppInfo;
      const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "mixdown-cli-"));
      const wavFile = path.join(tmp, "tone.wav");

      before(async () => {
        server = await Mixdown.start({}, { backend });
        app = await server.createApp("cli-app");
        fs.writeFileSync(wavFile, sineWav(2, { rate: 44100, channels: 2 }));
      });
      after(async () => {
        await server.dispose();
        fs.rmSync(tmp, { recursive: true, force: true });
        assertNoneRunning();
      });

      /** Runs bin/mixdown in `tmp` with stdout and stderr on pipes (not a TTY), URL and key from the environment. */
      async function mixdown(args: string[], env: Record<string, string | undefined> = {}): Promise<Run> {
        const { MIXDOWN_URL: _u, MIXDOWN_API_KEY: _k, ...inherited } = process.env;
        const fullEnv: Record<string, string | undefined> = {
          ...inherited,
          MIXDOWN_URL: server.url,
          MIXDOWN_API_KEY: app.apiKey,
          ...env,
        };
        for (const [key, value] of Object.entries(fullEnv)) if (value === undefined) delete fullEnv[key];
        let result: Run;
        try {
          const { stdout, stderr } = await execFileAsync(MIXDOWN_BIN, args, {
            cwd: tmp,
            env: fullEnv,
            timeout: 120_000,
          });
          result = { stdout, stderr, code: 0 };
        } catch (error) {
          const e = error as { stdout: string; stderr: string; code: number };
          result = { stdout: e.stdout, stderr: e.stderr, code: e.code };
        }
        assert.ok(
          !hasControl(result.stdout),
          `no control characters on a pipe (stdout): ${JSON.stringify(result.stdout)}`,
        );
        assert.ok(
          !hasControl(result.stderr),
          `no control characters on a pipe (stderr): ${JSON.stringify(result.stderr)}`,
        );
        return result;
      }

      test("run: uploads, runs the job, downloads the result, prints a summary", async () => {
        const r = await mixdown(["run", "mixdown/convert", "tone.wav", "--param", "format=mp3", "--out", "converted"]);
        assert.equal(r.code, 0, r.stderr);
        assert.match(r.stderr, /^upload \d.* in .* s \(.*\/s\)$/m);
        assert.match(r.stderr, /^job [0-9a-f-]{36} SUCCEEDED$/m);
        assert.match(r.stderr, /^download output .* in .* s/m);
        assert.match(r.stdout, /^Job [0-9a-f-]{36} SUCCEEDED in [\d.]+ s \(mixdown\/convert\)$/m);
        assert.match(r.stdout, /^ {2}output: converted\/output\.mp3 \([\d.]+ kB\)$/m);
        const info = await probe(path.join(tmp, "converted", "output.mp3"));
        assert.equal(info.streams[0]?.codec_name, "mp3");
        assert.ok(Math.abs(info.duration - 2) < 0.15);
      });

      test("run --json: only JSON on stdout; params parsed as JSON when they are; inline values in the result file", async () => {
        const r = await mixdown([
          ...["run", "mixdown/loudness-normalize", wavFile, "--json", "--out", "norm"],
          ...["--param", "targetLoudness=-20", "--param", "format=wav", "--batch", "b1", "--name", "my job"],
        ]);
        assert.equal(r.code, 0, r.stderr);
        assert.equal(r.stderr, "");
        const out = JSON.parse(r.stdout);
        assert.equal(out.job.status, "SUCCEEDED");
        assert.equal(out.job.name, "my job");
        assert.equal(out.job.batchName, "b1");
        assert.equal(out.job.workflowParams.targetLoudness, -20);
        assert.equal(out.files.output, path.join(tmp, "norm", "output.wav"));
        assert.ok(fs.statSync(out.files.output).size > 1000);
        assert.ok(Math.abs(out.values.integratedLoudness + 20) < 1, `${out.values.integratedLoudness} LUFS`);
        const summary = JSON.parse(fs.readFileSync(out.summaryFile, "utf8"));
        assert.equal(summary.result.integratedLoudness, out.values.integratedLoudness);
        assert.equal(summary.result.output, "./output.wav");
      });

      test("run with a URL input and --no-download; flags override the environment", async () => {
        const url = await server.upload(app.apiKey, fs.readFileSync(wavFile), "audio/wav");
        const r = await mixdown(
          ["run", "mixdown/probe", url, "--no-download", "--url", server.url, "--api-key", app.apiKey],
          {
            MIXDOWN_URL: "http://127.0.0.1:1",
            MIXDOWN_API_KEY: "mxd_wrong",
          },
        );
        assert.equal(r.code, 0, r.stderr);
        assert.doesNotMatch(r.stderr, /^upload/m);
        assert.match(r.stdout, /^ {2}metadata: \{.*"durationSeconds":2,/m);
      });

      test("run: a FAILED job exits 1 and shows its error", async () => {
        fs.writeFileSync(path.join(tmp, "noise.mp3"), randomBytes(8192));
        const r = await mixdown(["run", "mixdown/convert", "noise.mp3", "--param", "format=wav"]);
        assert.equal(r.code, 1);
        assert.match(r.stderr, /^job [0-9a-f-]{36} FAILED$/m);
        assert.match(r.stderr, /FAILED: BAD_INPUT \(Invalid input\): .*(not a media file|no audio stream)/);
        assert.equal(r.stdout, "");
      });

      test("errors from the server: one line with the message, the status and code, and details", async () => {
        const r = await mixdown(["run", "mixdown/convert", "tone.wav", "--param", "format=xyz"]);
        assert.equal(r.code, 1);
        assert.match(r.stderr, /HTTP 422 INVALID_WORKFLOW_PARAMS/);
        assert.match(r.stderr, /format/);
        assert.doesNotMatch(r.stderr, /\bat .*\.ts:\d+/, "no stack trace");
        const badKey = await mixdown(["jobs", "list"], { MIXDOWN_API_KEY: "mxd_nope" });
        assert.equal(badKey.code, 1);
        assert.match(badKey.stderr, /HTTP 401 UNAUTHORIZED/);
        const noKey = await mixdown(["jobs", "list"], { MIXDOWN_API_KEY: undefined });
        assert.equal(noKey.code, 2);
        assert.match(noKey.stderr, /MIXDOWN_API_KEY/);
        const noServer = await mixdown(["workflows", "list"], { MIXDOWN_URL: "http://127.0.0.1:1" });
        assert.equal(noServer.code, 1);
        assert.match(noServer.stderr, /NETWORK_ERROR/);
      });

      test("upload prints the download URL of the uploaded bytes", async () => {
        const r = await mixdown(["upload", "tone.wav"]);
        assert.equal(r.code, 0, r.stderr);
        const url = r.stdout.trim();
        assert.match(url, /^http:\/\/127\.0\.0\.1:\d+\/\S+$/, "only the URL on stdout");
        const response = await fetch(url);
        assert.equal(response.headers.get("content-type"), "audio/wav");
        assert.deepEqual(Buffer.from(await response.arrayBuffer()), fs.readFileSync(wavFile));
        const json = JSON.parse(
          (await mixdown(["upload", "tone.wav", "--json", "--content-type", "audio/x-wav"])).stdout,
        );
        assert.equal(json.size, fs.statSync(wavFile).size);
        assert.equal((await fetch(json.downloadUrl)).headers.get("content-type"), "audio/x-wav");
      });

      test("jobs list, get, wait and delete", async () => {
        const url = await server.upload(app.apiKey, fs.readFileSync(wavFile), "audio/wav");
        const id = await server.createJob(app.apiKey, "mixdown/key", { inputUrl: url }, { batchName: "listed" });

        const waited = await mixdown(["jobs", "wait", id, "--timeout", "60"]);
        assert.equal(waited.code, 0, waited.stderr);
        assert.match(waited.stderr, new RegExp(`^job ${id} SUCCEEDED$`, "m"));
        assert.match(waited.stdout, /^status: {5}SUCCEEDED$/m);
        assert.match(waited.stdout, /^ {2}key: /m);

        const listed = await mixdown(["jobs", "list", "--batch", "listed"]);
        assert.equal(listed.stdout.trim().split("\n").length, 1);
        assert.match(listed.stdout, new RegExp(`^${id} {2}SUCCEEDED {2}\\S+ {2}mixdown/key {2}test job$`, "m"));
        const all = JSON.parse((await mixdown(["jobs", "list", "--all", "--size", "1", "--json"])).stdout);
        assert.ok(all.length >= 2 && all.some((j: { id: string }) => j.id === id));
        const failedOnly = JSON.parse((await mixdown(["jobs", "list", "--status", "FAILED", "--json"])).stdout);
        assert.ok(failedOnly.every((j: { status: string }) => j.status === "FAILED"));
        assert.equal((await mixdown(["jobs", "list", "--status", "DONE"])).code, 2);

        const got = JSON.parse((await mixdown(["jobs", "get", id, "--json"])).stdout);
        assert.equal(got.id, id);
        assert.equal(got.workflow, "mixdown/key");

        const deleted = await mixdown(["jobs", "delete", id]);
        assert.equal(deleted.code, 0);
        assert.equal(deleted.stdout.trim(), `Deleted job ${id}.`);
        const gone = await mixdown(["jobs", "get", id]);
        assert.equal(gone.code, 1);
        assert.match(gone.stderr, /HTTP 404 JOB_NOT_FOUND/);
      });

      test("jobs wait exits 3 when --timeout passes first", async () => {
        const idle = await Mixdown.start({ MIXDOWN_WORKERS: "0" });
        try {
          const key = (await idle.createApp()).apiKey;
          const id = await idle.createJob(key, "mixdown/probe", { inputUrl: "https://example.com/a.wav" });
          const r = await mixdown(["jobs", "wait", id, "--timeout", "0.5"], {
            MIXDOWN_URL: idle.url,
            MIXDOWN_API_KEY: key,
          });
          assert.equal(r.code, 3);
          assert.match(r.stderr, /did not finish within 500 ms \(last status: QUEUED\)/);
        } finally {
          await idle.dispose();
        }
      });

      test("workflows list and show", async () => {
        const list = await mixdown(["workflows", "list"]);
        assert.match(list.stdout, /^mixdown\/convert +Convert audio$/m);
        const slugs = JSON.parse((await mixdown(["workflows", "list", "--json"])).stdout).map(
          (w: { slug: string }) => w.slug,
        );
        assert.ok(slugs.includes("mixdown/loudness"));
        const show = await mixdown(["workflows", "show", "mixdown/convert"]);
        assert.match(show.stdout, /^ {2}format \(mp3\|wav\|flac\|ogg\|opus\|m4a, required\)/m);
        assert.match(show.stdout, /^ {2}output: file URL \(audio\)/m);
        const missing = await mixdown(["workflows", "show", "acme/none"]);
        assert.equal(missing.code, 1);
        assert.match(missing.stderr, /HTTP 404 WORKFLOW_NOT_FOUND/);
      });

      test("--help works on every command, old and new", async () => {
        const main = await mixdown(["--help"]);
        assert.equal(main.code, 0);
        const commands = ["run", "jobs", "workflows", "upload", "dev-cert", "serve", "app", "workflow"];
        await Promise.all(
          commands.map(async (command) => {
            assert.match(main.stdout, new RegExp(`^ {2}${command}\\b`, "m"), `${command} in the main help`);
            const help = await mixdown([command, "--help"], { MIXDOWN_API_KEY: undefined });
            assert.equal(help.code, 0, `${command} --help: ${help.stderr}`);
            assert.match(help.stdout, new RegExp(`^Usage: mixdown ${command}\\b`), command);
          }),
        );
        assert.match((await mixdown(["help", "run"])).stdout, /^Usage: mixdown run/);
        assert.match((await mixdown(["jobs", "list", "--help"])).stdout, /^Usage: mixdown jobs/);
        const unknown = await mixdown(["run", "--frobnicate"]);
        assert.equal(unknown.code, 2);
      });

      test("on a terminal, the upload bar is redrawn in place with percent, bytes, rate and ETA", {
        skip: !hasScript() && "no script(1)",
      }, async () => {
        const big = path.join(tmp, "big.bin");
        fs.writeFileSync(big, Buffer.alloc(20_000_000));
        const env = { ...process.env, MIXDOWN_URL: server.url, MIXDOWN_API_KEY: app.apiKey };
        // script(1) gives the command a pseudo-terminal, so stderr is a TTY there.
        const { stdout } = await execFileAsync("script", ["-qec", `${MIXDOWN_BIN} upload ${big}`, "/dev/null"], {
          env,
          timeout: 60_000,
        });
        const redraws = stdout.replaceAll("\r\x1b[2K", "<redraw>");
        assert.match(redraws, /<redraw>upload \[[█░]{24}\] +\d+% {2}[\d.]+ \w?B\/20\.0 MB {2}[\d.]+ \w?B\/s {2}ETA /);
        assert.match(redraws, /<redraw>upload 20\.0 MB in [\d.]+ s/);
        assert.match(stdout, /^http:\/\/127\.0\.0\.1:\d+\/\S+\r?$/m, "the download URL on a line of its own");
      });
    },
  );
