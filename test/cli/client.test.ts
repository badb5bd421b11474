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
import { startForwardingProxy } from "../helpers/http-fixture.ts";
import { probe } from "../helpers/media.ts";
import { type AppInfo, assertNoneRunning, BACKENDS, freePort, MIXDOWN_BIN, Mixdown } from "../helpers/mixdown.ts";

const execFileAsync = promisify(execFile);
/** Escape sequences and carriage returns: none may reach a pipe. */
const hasControl = (text: string) => text.includes("\x1b") || text.includes("\r");

function hasScript(): boolean {
  return ["/usr/bin/script", "/bin/script"].some((file) => fs.existsSync(file));
}

/** An HTTP proxy to `target` on loopback that records "METHOD PATH" of every request it passes on. */
async function recordingProxy(target: string) {
  const requests: string[] = [];
  const proxy = await startForwardingProxy({
    onRequest: (request) => requests.push(`${request.method} ${request.url}`),
  });
  proxy.to(target);
  return { ...proxy, requests };
}

interface Run {
  stdout: string;
  stderr: string;
  code: number;
}

for (const { backend, skip } of BACKENDS)
  describeOrSkip(
    `mixdown client commands (run, jobs, workflow --remote, upload) against a real server [${backend}]`,
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
        const badKey = await mixdown(["jobs", "list"], { MIXDOWN_API_KEY: "mxd_nope" });
        assert.equal(badKey.code, 1);
        assert.match(badKey.stderr, /HTTP 401 UNAUTHORIZED/);
        assert.doesNotMatch(badKey.stderr, /\bat .*\.ts:\d+/, "no stack trace");
        const noKey = await mixdown(["jobs", "list"], { MIXDOWN_API_KEY: undefined });
        assert.equal(noKey.code, 2);
        assert.match(noKey.stderr, /MIXDOWN_API_KEY/);
        const gone = await mixdown(["jobs", "get", "01a24249-a273-7000-ab16-1ae3953b195a"]);
        assert.equal(gone.code, 1);
        assert.match(gone.stderr, /HTTP 404 JOB_NOT_FOUND/);
      });

      test("no server there: the URL tried and what to do, in one line", async () => {
        const closed = `http://127.0.0.1:${await freePort()}`;
        for (const args of [
          ["jobs", "list"],
          ["upload", "tone.wav"],
          ["run", "mixdown/convert", "tone.wav"],
        ]) {
          const r = await mixdown(args, { MIXDOWN_URL: closed });
          assert.equal(r.code, 1, r.stderr);
          assert.equal(
            r.stderr.trim(),
            `mixdown: Could not reach Mixdown at ${closed} (connection refused: nothing listens on ${closed.slice(7)}). Start it with \`npm start\` in the Mixdown folder, or set MIXDOWN_URL (or pass --url) to the server's address.`,
          );
          assert.equal(r.stdout, "");
        }
      });

      test("an https URL against this HTTP server is named as such", async () => {
        const https = server.url.replace(/^http:/, "https:");
        const r = await mixdown(["jobs", "list"], { MIXDOWN_URL: https });
        assert.equal(r.code, 1);
        assert.match(
          r.stderr,
          new RegExp(
            `^mixdown: Could not reach Mixdown at ${https}: the server on 127\\.0\\.0\\.1:\\d+ speaks plain HTTP, not HTTPS\\. Use ${server.url} as MIXDOWN_URL`,
          ),
        );
      });

      test("run checks the workflow and its params before uploading anything", async () => {
        const proxy = await recordingProxy(server.url);
        try {
          const run = (args: string[]) => mixdown(["run", ...args], { MIXDOWN_URL: proxy.url });
          const unknown = await run(["acme/none", "tone.wav"]);
          assert.equal(unknown.code, 1);
          assert.match(
            unknown.stderr,
            /^mixdown: the server has no workflow "acme\/none" \(nothing was uploaded\)\. Its workflows: .*mixdown\/convert/,
          );

          const badParam = await run(["mixdown/convert", "tone.wav", "--param", "format=xyz"]);
          assert.equal(badParam.code, 1);
          assert.match(badParam.stderr, /^mixdown: invalid params for "mixdown\/convert" \(nothing was uploaded;/);
          assert.match(badParam.stderr, /^ {2}params\.format: must be one of mp3, wav, flac, ogg, opus, m4a$/m);
          const missing = await run(["mixdown/convert", "tone.wav"]);
          assert.equal(missing.code, 1);
          assert.match(missing.stderr, /^ {2}params\.format: is required$/m);
          assert.doesNotMatch(missing.stderr, /inputUrl/, "the input URL, not known yet, is not judged");

          const badCopy = await run([
            "mixdown/loudness",
            "tone.wav",
            "--copy-result",
            "integratedLoudness=https://example.com/x",
          ]);
          assert.equal(badCopy.code, 1);
          assert.match(badCopy.stderr, /^ {2}copyResultsTo\.integratedLoudness: is an inline value, not a file/m);

          // A workflow whose definition has errors (a file dropped into the node's workflows dir) cannot run.
          const workflowsDir = path.join(server.dataDir, "workflows");
          fs.mkdirSync(workflowsDir, { recursive: true });
          const broken = {
            slug: "acme/broken",
            name: "Broken",
            description: "A step of an unknown module.",
            inputSchema: { type: "object", properties: { inputUrl: { type: "string" } } },
            steps: [{ id: "input", module: "no-such-module", inputs: { url: "$params.inputUrl" } }],
            outputs: { file: "$steps.input.file" },
          };
          fs.writeFileSync(path.join(workflowsDir, "acme__broken.json"), JSON.stringify(broken));
          for (let i = 0; i < 150; i++) {
            if ((await server.api("GET", "/v1/workflow/acme/broken", { key: app.apiKey })).status === 200) break;
            await new Promise((resolve) => setTimeout(resolve, 100));
          }
          const cannot = await run(["acme/broken", "tone.wav"]);
          assert.equal(cannot.code, 1);
          assert.match(
            cannot.stderr,
            /^mixdown: the workflow "acme\/broken" cannot run on this server \(nothing was uploaded\)$/m,
          );
          assert.match(cannot.stderr, /^ {2}steps\[0\]\.module: .*no-such-module/m);

          assert.deepEqual(
            proxy.requests.filter((r) => r.includes("/upload") || r.startsWith("POST")),
            [],
            "no upload URL asked for, no job created",
          );
          assert.ok(proxy.requests.includes("GET /v1/workflow/mixdown/convert"), proxy.requests.join("\n"));
        } finally {
          await proxy.close();
        }
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

      test("workflow list and show: the metadata store by default, the server with --remote; workflows is the same command", async () => {
        const local = await mixdown(["workflow", "list"], { MIXDOWN_API_KEY: undefined, ...server.env });
        assert.equal(local.code, 0, local.stderr);
        assert.match(local.stdout, /^mixdown\/convert +built-in +ok$/m);
        const alias = await mixdown(["workflows", "list"], { MIXDOWN_API_KEY: undefined, ...server.env });
        assert.equal(alias.stdout, local.stdout);
        const shown = await mixdown(["workflow", "show", "mixdown/convert"], {
          MIXDOWN_API_KEY: undefined,
          ...server.env,
        });
        assert.equal(shown.code, 0, shown.stderr);
        assert.match(shown.stdout, /^ {2}format \(mp3\|wav\|flac\|ogg\|opus\|m4a, required\)/m);

        const list = await mixdown(["workflow", "list", "--remote"]);
        assert.match(list.stdout, /^mixdown\/convert +Convert audio$/m);
        const slugs = JSON.parse((await mixdown(["workflows", "list", "--remote", "--json"])).stdout).map(
          (w: { slug: string }) => w.slug,
        );
        assert.ok(slugs.includes("mixdown/loudness"));
        const show = await mixdown(["workflow", "show", "mixdown/convert", "--url", server.url]);
        assert.equal(show.stdout, shown.stdout, "the same description either way");
        assert.match(show.stdout, /^ {2}output: file URL \(audio\)/m);
        const missing = await mixdown(["workflow", "show", "acme/none", "--remote"]);
        assert.equal(missing.code, 1);
        assert.match(missing.stderr, /HTTP 404 WORKFLOW_NOT_FOUND/);
        const misplaced = await mixdown(["workflow", "validate", "x.yaml", "--remote"]);
        assert.equal(misplaced.code, 2);
        assert.match(misplaced.stderr, /--remote, --url and --api-key go with workflow list and show only/);
      });

      test("--help works on every command, old and new", async () => {
        const main = await mixdown(["--help"]);
        assert.equal(main.code, 0);
        const commands = ["run", "jobs", "upload", "dev-cert", "serve", "app", "workflow"];
        await Promise.all(
          commands.map(async (command) => {
            assert.match(main.stdout, new RegExp(`^ {2}${command}\\b`, "m"), `${command} in the main help`);
            const help = await mixdown([command, "--help"], { MIXDOWN_API_KEY: undefined });
            assert.equal(help.code, 0, `${command} --help: ${help.stderr}`);
            assert.match(help.stdout, new RegExp(`^Usage: mixdown ${command}\\b`), command);
          }),
        );
        assert.match(main.stdout, /"workflows" is the same command/);
        assert.equal((await mixdown(["workflows", "--help"])).stdout, (await mixdown(["workflow", "--help"])).stdout);
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
