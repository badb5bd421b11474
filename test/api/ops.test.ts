import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { sineWav } from "../helpers/audio.ts";
import { describeOrSkip } from "../helpers/backends.ts";
import { type AppInfo, assertNoneRunning, BACKENDS, Mixdown } from "../helpers/mixdown.ts";

describe("operations: OpenAPI, docs, logs", () => {
  let server: Mixdown;
  let app: AppInfo;
  before(async () => {
    server = await Mixdown.start({ MIXDOWN_LOG_LEVEL: "info" });
    app = await server.createApp();
  });
  after(async () => {
    await server.dispose();
    assertNoneRunning();
  });

  test("GET /openapi.json is an OpenAPI 3.1 document of every endpoint, generated from the route schemas", async () => {
    const { status, body } = await server.api("GET", "/openapi.json");
    assert.equal(status, 200);
    assert.equal(body.openapi, "3.1.0");
    const operations = Object.entries(body.paths as Record<string, object>).flatMap(([p, ops]) =>
      Object.keys(ops).map((m) => `${m.toUpperCase()} ${p}`),
    );
    for (const expected of [
      "GET /v1/upload",
      "GET /v1/job/{id}",
      "GET /v1/job/{id}/status",
      "GET /v1/job",
      "POST /v1/job",
      "DELETE /v1/job/{id}",
      "GET /v1/workflow",
      "GET /v1/application",
    ]) {
      assert.ok(operations.includes(expected), `${expected} documented`);
    }
    assert.ok(body.paths["/v1/job"].post.requestBody, "request body schema");
    assert.ok(body.paths["/v1/job"].post.responses["422"], "422 documented");
    assert.ok(body.components.securitySchemes.apiKey);
  });

  test("GET /docs is a human docs page", async () => {
    const response = await fetch(`${server.url}/docs/`);
    assert.equal(response.status, 200);
    assert.match(response.headers.get("content-type") ?? "", /text\/html/);
    assert.match(await response.text(), /swagger/i);
  });

  test("logs are JSON lines with request ids and never contain an API key", async () => {
    await server.api("GET", "/v1/job", { key: app.apiKey, headers: { "x-request-id": "trace-me-123" } });
    await server.api("GET", "/v1/job", { key: `${app.apiKey}x` });
    // Log lines reach us through a pipe, a moment after the response: wait for them (bounded).
    for (let i = 0; i < 50 && !server.output.includes('"trace-me-123"'); i++) {
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    const lines = server.output.trim().split("\n");
    const parsed = lines.map((line) => JSON.parse(line) as { reqId?: string });
    assert.ok(parsed.some((entry) => entry.reqId === "trace-me-123"));
    assert.ok(!server.output.includes(app.apiKey.slice(4)), "API key not logged");
  });
});

describe("operations: MIXDOWN_LOG_LEVEL=silent", () => {
  let server: Mixdown;
  before(async () => {
    server = await Mixdown.start({ MIXDOWN_LOG_LEVEL: "silent" });
  });
  after(async () => {
    await server.dispose();
    assertNoneRunning();
  });

  test("serves requests and runs jobs, and writes no log line", async () => {
    const app = await server.createApp();
    const inputUrl = await server.upload(app.apiKey, sineWav(1), "audio/wav");
    const job = await server.runJob(app.apiKey, "mixdown/convert", { inputUrl, format: "mp3" });
    assert.equal((await server.api("GET", `/v1/job/${job.id}/status`, { key: app.apiKey })).body.status, "SUCCEEDED");
    assert.equal((await server.api("GET", "/v1/nowhere", { key: app.apiKey })).status, 404);
    assert.equal(server.output.trim(), "");
  });
});

for (const { backend, skip } of BACKENDS)
  describeOrSkip(`operations: metrics [${backend}]`, skip, () => {
    let server: Mixdown;
    before(async () => {
      server = await Mixdown.start({}, { backend });
    });
    after(async () => {
      await server.dispose();
      assertNoneRunning();
    });

    test("GET /metrics: jobs by status, queue depth, job durations, HTTP latency in Prometheus format", async () => {
      const app = await server.createApp();
      const url = await server.upload(app.apiKey, sineWav(0.5), "audio/wav");
      await server.runJob(app.apiKey, "mixdown/convert", { inputUrl: url, format: "wav" });
      const scrape = async (nodeUrl: string) => {
        const response = await fetch(`${nodeUrl}/metrics`);
        assert.equal(response.status, 200);
        return response.text();
      };
      const text = await scrape(server.url);
      assert.match(text, /^mixdown_jobs\{status="SUCCEEDED"\} 1$/m);
      assert.match(text, /^mixdown_jobs\{status="QUEUED"\} 0$/m);
      assert.match(text, /^mixdown_queue_depth 0$/m);
      assert.match(
        text,
        /^mixdown_http_request_duration_seconds_count\{method="POST",route="\/v1\/job",status_code="200"\} 1$/m,
      );
      assert.match(text, /^# TYPE mixdown_http_request_duration_seconds histogram$/m);
      // A duration measured, not a zero (the metric is observed when the response is ready to send).
      const seconds =
        /^mixdown_http_request_duration_seconds_sum\{method="POST",route="\/v1\/job",status_code="200"\} (\S+)$/m;
      const sum = Number(text.match(seconds)?.[1]);
      assert.ok(sum > 0 && sum < 10, `POST /v1/job took ${sum} s by the metric`);
      // A job's duration is recorded by the node that ran it: the embedded node, or one of the workers.
      const runs = /^mixdown_job_duration_seconds_count\{workflow="mixdown\/convert",status="SUCCEEDED"\} (\d+)$/m;
      const texts = server.workers.length > 0 ? await Promise.all(server.workers.map((w) => scrape(w.url))) : [text];
      assert.equal(
        texts.reduce((sum, t) => sum + Number(t.match(runs)?.[1] ?? 0), 0),
        1,
      );
    });

    test("every node answers /healthz; a worker node serves nothing else", async () => {
      for (const node of [server.apiNode, ...server.workers]) {
        assert.deepEqual(await (await fetch(`${node.url}/healthz`)).json(), { status: "ok" }, node.role);
      }
      for (const worker of server.workers) {
        for (const path of ["/v1/job", "/v1/upload", "/openapi.json", "/docs/"]) {
          assert.equal((await fetch(`${worker.url}${path}`)).status, 404, `${path} on a worker`);
        }
      }
    });
  });
