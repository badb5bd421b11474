// `mixdown run` against a server of the Music.AI API that is not Mixdown (no GET /workflow/SLUG with an input
// schema): the workflow is checked against the list the server gives, before anything is uploaded. Music.AI's
// service cannot run here, so a small stand-in answers its documented endpoints and records what was asked.
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import fs from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import os from "node:os";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import { promisify } from "node:util";
import { MIXDOWN_BIN } from "../helpers/mixdown.ts";

const execFileAsync = promisify(execFile);

describe("mixdown run against a Music.AI-style server without workflow schemas", () => {
  const requests: string[] = [];
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "mixdown-run-check-"));
  const server = http.createServer((request, response) => {
    requests.push(`${request.method} ${request.url?.split("?")[0]}`);
    const send = (status: number, body: unknown) => {
      response.writeHead(status, { "content-type": "application/json" });
      response.end(JSON.stringify(body));
    };
    if (request.url === "/v1/application") return send(200, { id: "app", name: "app" });
    if (request.url?.startsWith("/v1/workflow?"))
      return send(200, { workflows: [{ id: "w1", name: "Stems", slug: "music-ai/stems", description: "" }] });
    if (request.url?.startsWith("/v1/workflow/")) return send(404, { message: "Not Found" });
    // Past the check: the stand-in refuses the upload, which ends the run there.
    return send(401, { message: "stop here" });
  });
  let url = "";

  before(async () => {
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    fs.writeFileSync(path.join(tmp, "song.wav"), "RIFF");
  });
  after(async () => {
    await new Promise((resolve) => server.close(resolve));
    fs.rmSync(tmp, { recursive: true, force: true });
  });

  async function run(workflow: string) {
    requests.length = 0;
    try {
      await execFileAsync(MIXDOWN_BIN, ["run", workflow, "song.wav", "--url", url, "--api-key", "k"], {
        cwd: tmp,
        timeout: 60_000,
      });
      assert.fail("the stand-in refuses every upload");
    } catch (error) {
      return error as { code: number; stderr: string };
    }
  }

  test("a workflow the server does not list is refused before the upload, naming those it has", async () => {
    const r = await run("acme/none");
    assert.equal(r.code, 1);
    assert.match(
      r.stderr,
      /^mixdown: the server has no workflow "acme\/none" \(nothing was uploaded\)\. Its workflows: music-ai\/stems$/m,
    );
    assert.ok(!requests.some((line) => line.includes("/upload")), requests.join("\n"));
  });

  test("a workflow it lists goes on to the upload (its params are the server's to judge)", async () => {
    const r = await run("music-ai/stems");
    assert.equal(r.code, 1);
    assert.match(r.stderr, /stop here \(HTTP 401/);
    assert.deepEqual(requests, [
      "GET /v1/application",
      "GET /v1/workflow/music-ai/stems",
      "GET /v1/workflow",
      "GET /v1/upload",
    ]);
  });
});
