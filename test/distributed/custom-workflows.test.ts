import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, test } from "node:test";
import { setTimeout as delay } from "node:timers/promises";
import { addOperator, OPERATOR_PASSWORD } from "../dashboard/operator-session.ts";
import { sineWav } from "../helpers/audio.ts";
import { describeOrSkip, distributedUnavailable } from "../helpers/backends.ts";
import { assertNoneRunning, freePort, Mixdown, NodeProcess } from "../helpers/mixdown.ts";

/** fetch → loudness: quick, and a value output to check. */
const measure = (slug: string) => ({
  slug,
  name: `Measure (${slug})`,
  description: "Integrated loudness of a file.",
  inputSchema: { type: "object", required: ["inputUrl"], properties: { inputUrl: { type: "string" } } },
  steps: [
    { id: "input", module: "fetch", inputs: { url: "$params.inputUrl" } },
    { id: "measure", module: "loudness", inputs: { audio: "$steps.input.file" } },
  ],
  outputs: { loudness: "$steps.measure.integratedLoudness" },
});

/** Asks again until `done` holds, for at most 10 s (a change reaches other nodes by NOTIFY, in milliseconds). */
async function eventually<T>(ask: () => Promise<T>, done: (value: T) => boolean): Promise<T> {
  const deadline = Date.now() + 10_000;
  let value = await ask();
  while (!done(value) && Date.now() < deadline) {
    await delay(50);
    value = await ask();
  }
  return value;
}

/** A dashboard session on one node, over plain HTTP: its cookies and CSRF token. */
async function signIn(origin: string, name: string): Promise<{ cookie: string; csrf: string }> {
  const cookies = new Map<string, string>();
  const keep = (response: Response) => {
    for (const line of response.headers.getSetCookie()) {
      const [pair = ""] = line.split(";");
      const at = pair.indexOf("=");
      cookies.set(pair.slice(0, at), pair.slice(at + 1));
    }
  };
  const cookie = () => [...cookies].map(([k, v]) => `${k}=${v}`).join("; ");
  const csrfOf = (html: string) => /name="_csrf" value="([^"]+)"/.exec(html)?.[1] ?? "";
  const form = await fetch(`${origin}/dashboard/sign-in`);
  keep(form);
  const signedIn = await fetch(`${origin}/dashboard/sign-in`, {
    method: "POST",
    redirect: "manual",
    headers: { cookie: cookie(), "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({ name, password: OPERATOR_PASSWORD, _csrf: csrfOf(await form.text()) }),
  });
  assert.equal(signedIn.status, 303, await signedIn.text());
  keep(signedIn);
  const page = await fetch(`${origin}/dashboard/workflows`, { headers: { cookie: cookie() } });
  assert.equal(page.status, 200);
  return { cookie: cookie(), csrf: csrfOf(await page.text()) };
}

describeOrSkip(
  "distributed mode: custom workflows reach every node (no shared workflows directory)",
  distributedUnavailable,
  () => {
    after(() => assertNoneRunning());

    test("saved through node A, run through node B's API by a worker on a third node; removed on B, refused by A", async () => {
      // Node A: the API node of the deployment, with its own data dir (and so its own workflows directory).
      const server = await Mixdown.start({}, { backend: "distributed", workers: 0 });
      const nodeB = new NodeProcess("api");
      const dataB = fs.mkdtempSync(path.join(os.tmpdir(), "mixdown-node-b-"));
      const dataC = fs.mkdtempSync(path.join(os.tmpdir(), "mixdown-node-c-"));
      try {
        const portB = await freePort();
        const originB = `http://127.0.0.1:${portB}`;
        await nodeB.start(
          { ...server.env, PORT: String(portB), MIXDOWN_DATA_DIR: dataB, MIXDOWN_PUBLIC_URL: originB },
          `${originB}/healthz`,
        );
        // The only worker: node C, whose workflows directory holds nothing.
        await server.startWorker({ MIXDOWN_DATA_DIR: dataC });
        const { apiKey } = await server.createApp("two nodes");
        const onB = async (method: string, pathname: string, body?: unknown) => {
          const response = await fetch(`${originB}${pathname}`, {
            method,
            headers: { authorization: apiKey, ...(body ? { "content-type": "application/json" } : {}) },
            body: body ? JSON.stringify(body) : undefined,
          });
          return { status: response.status, body: await response.json() };
        };

        // Installed through node A's configuration: `workflow add` with A's environment, and a file in A's directory.
        const file = path.join(server.dataDir, "measure.json");
        fs.writeFileSync(file, JSON.stringify(measure("acme/measure")));
        const added = await server.cli(["workflow", "add", file]);
        assert.equal(added.code, 0, added.stderr);
        fs.mkdirSync(path.join(server.dataDir, "workflows"));
        fs.writeFileSync(
          path.join(server.dataDir, "workflows", "dropped.json"),
          JSON.stringify(measure("acme/dropped")),
        );
        const seenByA = await eventually(
          () => server.api("GET", "/v1/workflow/acme/dropped", { key: apiKey }),
          (r) => r.status === 200,
        );
        assert.equal(seenByA.status, 200, "node A saves the file of its directory");

        // Node B knows both at once, without a file of its own.
        assert.equal(fs.existsSync(path.join(dataB, "workflows")), false);
        for (const slug of ["acme/measure", "acme/dropped"]) {
          const described = await onB("GET", `/v1/workflow/${slug}`);
          assert.equal(described.status, 200, `${slug} on B: ${JSON.stringify(described.body)}`);
          assert.equal(described.body.runnable, true);
          assert.equal(described.body.builtIn, false);
        }

        // A job created through B, run by the worker on C.
        const pair = (await onB("GET", "/v1/upload")).body;
        const put = await fetch(pair.uploadUrl, {
          method: "PUT",
          body: new Uint8Array(sineWav(1)),
          headers: { "content-type": "audio/wav" },
        });
        assert.equal(put.status, 200);
        const created = await onB("POST", "/v1/job", {
          name: "on a custom workflow",
          workflow: "acme/measure",
          params: { inputUrl: pair.downloadUrl },
        });
        assert.equal(created.status, 200, JSON.stringify(created.body));
        const job = await server.waitForJob(apiKey, created.body.id);
        assert.equal(job.status, "SUCCEEDED", JSON.stringify(job.error));
        assert.equal(typeof job.result.loudness, "number");
        assert.ok(job.result.loudness < -3 && job.result.loudness > -20, String(job.result.loudness));
        assert.equal(fs.existsSync(path.join(dataC, "workflows")), false, "the worker had no file of it");

        // Removed from node B's dashboard: node A refuses new jobs on it; the other stays.
        await addOperator(server, "admin");
        const session = await signIn(originB, "admin");
        const removed = await fetch(`${originB}/dashboard/workflow-delete/acme/measure`, {
          method: "POST",
          redirect: "manual",
          headers: { cookie: session.cookie, "content-type": "application/x-www-form-urlencoded" },
          body: new URLSearchParams({ _csrf: session.csrf }),
        });
        assert.equal(removed.status, 303, await removed.text());
        const refused = await eventually(
          () =>
            server.api("POST", "/v1/job", {
              key: apiKey,
              body: { name: "too late", workflow: "acme/measure", params: { inputUrl: pair.downloadUrl } },
            }),
          (r) => r.status === 404,
        );
        assert.equal(refused.status, 404, JSON.stringify(refused.body));
        assert.equal(refused.body.code, "WORKFLOW_NOT_FOUND");
        const listedByA = (await server.api("GET", "/v1/workflow?size=100", { key: apiKey })).body.workflows as {
          slug: string;
        }[];
        assert.ok(!listedByA.some((wf) => wf.slug === "acme/measure"));
        assert.ok(listedByA.some((wf) => wf.slug === "acme/dropped"));

        // Restarting node B (no files) and node A (its file older than nothing removed) changes nothing.
        await nodeB.stop("SIGTERM");
        await nodeB.start(
          { ...server.env, PORT: String(portB), MIXDOWN_DATA_DIR: dataB, MIXDOWN_PUBLIC_URL: originB },
          `${originB}/healthz`,
        );
        assert.equal((await onB("GET", "/v1/workflow/acme/dropped")).status, 200, "B starting does not remove A's");
        assert.equal((await onB("GET", "/v1/workflow/acme/measure")).status, 404);
      } finally {
        await nodeB.stop("SIGKILL");
        await server.dispose();
        fs.rmSync(dataB, { recursive: true, force: true });
        fs.rmSync(dataC, { recursive: true, force: true });
      }
    });
  },
);
