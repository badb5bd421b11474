import assert from "node:assert/strict";
import fs from "node:fs";
import http from "node:http";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { after, before, test } from "node:test";
import { setTimeout as delay } from "node:timers/promises";
import type { FastifyInstance } from "fastify";
import { createMetrics } from "../../src/api/metrics.ts";
import { buildServer } from "../../src/api/server.ts";
import { loadConfig } from "../../src/config.ts";
import { SESSION_COOKIE } from "../../src/dashboard/context.ts";
import { API_ERRORS } from "../../src/errors.ts";
import { createRuntime, type Runtime } from "../../src/runtime.ts";
import { sineWav } from "../helpers/audio.ts";
import { startFixture } from "../helpers/http-fixture.ts";
import { freePort } from "../helpers/mixdown.ts";

/**
 * Generated bad input against every route the server has (read from the router, not listed here), malformed HTTP
 * on raw sockets, and jobs on generated URLs: never a 5xx; outside the dashboard always Mixdown's JSON
 * {code, message} with a code of the catalogue and its status; never the request's long text echoed; and a job
 * that was accepted never ends INTERNAL_ERROR. The server runs in this process, so its routes can be read.
 */

/** A custom workflow reading two files from params of its own names (the second optional), typed only "string". */
const TWO_INPUTS = `
slug: fuzz/two-inputs
name: Two inputs
description: Probes two files.
inputSchema:
  type: object
  required: [song]
  properties:
    song: { type: string }
    backing: { type: string }
steps:
  - { id: a, module: fetch, inputs: { url: $params.song } }
  - { id: b, module: fetch, inputs: { url: $params.backing } }
  - { id: pa, module: probe, inputs: { audio: $steps.a.file } }
  - { id: pb, module: probe, inputs: { audio: $steps.b.file } }
outputs:
  a: $steps.pa.metadata
  b: $steps.pb.metadata
`;

/** Long enough to tell an echo from a coincidence; no route should ever repeat it. */
const MARKER = `zq${"x".repeat(240)}`;
const wav = sineWav(0.2);
const PARSER_CODES = ["MALFORMED_REQUEST", "URI_TOO_LONG", "HEADERS_TOO_LARGE", "REQUEST_TIMEOUT"];

let app: FastifyInstance;
let runtime: Runtime;
let dataDir: string;
let base: string;
let port: number;
let apiKey: string;
let session: string;
let fixture: Awaited<ReturnType<typeof startFixture>>;
const agent = new http.Agent({ keepAlive: true, maxSockets: 4 });

before(async () => {
  fixture = await startFixture((request, response) => {
    const url = new URL(request.url ?? "/", "http://fixture");
    if (url.pathname === "/song.wav") response.writeHead(200, { "content-type": "audio/wav" }).end(wav);
    else if (url.pathname === "/empty") response.writeHead(200, { "content-type": "audio/wav" }).end();
    else if (url.pathname === "/redirect") {
      // A raw Location header: whatever the test puts there, valid or not.
      response.writeHead(302, { location: url.searchParams.get("to") ?? "" }).end();
    } else response.writeHead(404).end("no");
  });
  dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "mixdown-fuzz-"));
  const workflowsDir = path.join(dataDir, "workflows");
  fs.mkdirSync(workflowsDir);
  fs.writeFileSync(path.join(workflowsDir, "two-inputs.yaml"), TWO_INPUTS);
  port = await freePort();
  base = `http://127.0.0.1:${port}`;
  const config = loadConfig({
    MIXDOWN_DATA_DIR: dataDir,
    MIXDOWN_WORKFLOWS_DIR: workflowsDir,
    PORT: String(port),
    MIXDOWN_PUBLIC_URL: base,
    MIXDOWN_LOG_LEVEL: "silent",
    MIXDOWN_WORKERS: "2",
    MIXDOWN_ALLOW_PRIVATE_URLS: "true",
    MIXDOWN_FETCH_TIMEOUT_MS: "3000",
    // The pool's grace timer outlives a quick stop and would hold the test process open for its length.
    MIXDOWN_SHUTDOWN_GRACE_MS: "500",
  });
  runtime = await createRuntime(config);
  app = await buildServer(runtime, createMetrics(runtime.store, runtime.queue));
  await app.listen({ port, host: "127.0.0.1" });
  runtime.startWorkers(app.log);
  apiKey = (await runtime.applications.create("fuzz")).apiKey;
  // The dashboard is fuzzed signed in, where its pages (and their error pages) render.
  await runtime.operators.add("fuzzer", "a long enough password");
  const signedIn = await runtime.operators.signIn("fuzzer", "a long enough password", "127.0.0.1");
  assert.ok(signedIn.ok);
  session = `${SESSION_COOKIE}=${signedIn.sessionId}`;
});

after(async () => {
  agent.destroy();
  await app.close();
  await runtime.close();
  await fixture.close();
  fs.rmSync(dataDir, { recursive: true, force: true });
});

// ---------------------------------------------------------------------------------------------- generators

/** Numbers as clients type them, around the edges: 2^n ± 1 (signed, in hex too), powers of ten, fractions, words. */
function edgeNumbers(): string[] {
  const out = new Set<string>();
  for (const bits of [0, 8, 16, 31, 32, 53, 63, 64]) {
    const n = 2n ** BigInt(bits);
    for (const value of [n - 1n, n, n + 1n]) for (const sign of ["", "-"]) out.add(`${sign}${value}`);
    out.add(`0x${n.toString(16)}`);
  }
  for (let e = 1; e <= 400; e *= 3) {
    out.add(`1e${e}`);
    out.add("9".repeat(e));
  }
  for (let k = 1; k <= 5; k += 2) out.add(String(k / 2));
  for (const word of ["NaN", "Infinity", "-Infinity", "", " 1", "+1", "1e-7", "0b101", "0o17", "1_000", "١٢"]) {
    out.add(word);
  }
  return [...out];
}

/** Path segments: edge numbers, UUID near-misses, encodings that do not decode, long, unicode and markup. */
function pathValues(): string[] {
  const uuid = "00000000-0000-4000-8000-000000000000";
  const values = new Set<string>([uuid, uuid.toUpperCase(), uuid.slice(1), `${uuid}0`, uuid.replaceAll("-", "")]);
  for (const n of edgeNumbers().filter((_, i) => i % 6 === 0)) values.add(encodeURIComponent(n));
  for (const raw of ["%ff", "%c0%af", "%00", "%", "%zz", "..%2f..%2f", "%2e%2e"]) values.add(raw);
  for (const length of [130, 501, 10_000]) values.add(MARKER.slice(0, 2) + "x".repeat(length));
  for (const text of ["ü€😀", "<svg onload=fuzz>", "a b", "a/b/c", MARKER]) values.add(encodeURIComponent(text));
  return [...values];
}

/**
 * URLs a job may be given: every scheme × authority part × path part once (a covering set, each paired with
 * ordinary others), and a seeded sample of the whole cross product.
 */
function urlForms(fixturePort: number): string[] {
  const parts = {
    scheme: ["http://", "https://", "HTTP://", "ftp://", "file://", "javascript:", "http:/", "http:", "//", ""],
    userinfo: ["", "user@", "user:pass@", "@", ":@"],
    host: [
      "127.0.0.1",
      "",
      "[::1]",
      "[::1",
      "::1",
      "localhost",
      "ëxample.invalid",
      "exa mple.invalid",
      `${"a".repeat(300)}.invalid`,
      "999.999.999.999",
      "%00",
    ],
    port: [`:${fixturePort}`, "", ":", ":0", ":1", ":65535", ":65536", ":99999", ":-1", ":abc"],
    path: ["/song.wav", "", "/", "/%ff", `/${"a".repeat(5000)}`, "?q=1", "#frag", "/ü", "/empty"],
  };
  type Part = keyof typeof parts;
  const names = Object.keys(parts) as Part[];
  const compose = (pick: Record<Part, string>) => names.map((name) => pick[name]).join("");
  const ordinary = Object.fromEntries(names.map((name) => [name, parts[name][0]])) as Record<Part, string>;
  const forms = new Set<string>();
  for (const name of names) for (const value of parts[name]) forms.add(compose({ ...ordinary, [name]: value }));
  let seed = 42;
  const random = () => {
    seed = (seed * 1103515245 + 12345) % 2 ** 31;
    return seed / 2 ** 31;
  };
  for (let i = 0; i < 60; i++) {
    const pick = Object.fromEntries(
      names.map((name) => [name, parts[name][Math.floor(random() * parts[name].length)]]),
    ) as Record<Part, string>;
    forms.add(compose(pick));
  }
  return [...forms];
}

/** Every route of the server with its methods, read from Fastify's route tree. */
function routesOf(server: FastifyInstance): { path: string; methods: string[] }[] {
  const routes: { path: string; methods: string[] }[] = [];
  const stack: string[] = [];
  for (const line of server.printRoutes({ commonPrefix: false }).split("\n")) {
    const match = /^((?:[│ ] {3})*)[├└]── (.*?)(?: \(([A-Z, ]+)\))?$/.exec(line);
    if (!match) continue;
    const depth = (match[1] ?? "").length / 4;
    stack.length = depth;
    const full = (stack[depth - 1] ?? "") + match[2];
    stack[depth] = full;
    if (match[3]) routes.push({ path: full, methods: match[3].split(", ") });
  }
  return routes;
}

// ---------------------------------------------------------------------------------------------- checks

interface Answer {
  status: number;
  headers: http.IncomingHttpHeaders;
  text: string;
}

function send(
  method: string,
  target: string,
  options: { headers?: Record<string, string>; body?: string | Buffer } = {},
): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const request = http.request(
      { host: "127.0.0.1", port, method, path: target, agent, headers: options.headers },
      (response) => {
        const chunks: Buffer[] = [];
        response.on("data", (chunk: Buffer) => chunks.push(chunk));
        response.on("end", () =>
          resolve({
            status: response.statusCode ?? 0,
            headers: response.headers,
            text: Buffer.concat(chunks).toString(),
          }),
        );
        response.on("error", reject);
      },
    );
    request.on("error", (error) => reject(new Error(`${method} ${target.slice(0, 100)}: ${error.message}`)));
    request.end(options.body);
  });
}

const isDashboard = (target: string) => /^\/(dashboard|docs)(\/|$|\?)/.test(target);

/** The rules every answer keeps; `what` names the request in failures. */
function check(what: string, method: string, target: string, answer: Answer): void {
  const context = `${what}: ${answer.status} ${answer.text.slice(0, 300)}`;
  assert.ok(answer.status >= 200 && answer.status < 500, context);
  assert.ok(!answer.text.includes("<svg onload=fuzz>"), `no markup reflected (${context})`);
  // (Dashboard pages may show what was asked for, escaped: a search's words, the slug of a missing workflow.)
  if (isDashboard(target)) return;
  assert.ok(!answer.text.includes(MARKER.slice(0, 120)), `the request's text is not echoed (${context})`);
  if (answer.status < 400 || method === "HEAD") return;
  assert.match(String(answer.headers["content-type"]), /^application\/json/, context);
  const body = JSON.parse(answer.text) as { code?: unknown; message?: unknown };
  assert.equal(typeof body.message, "string", context);
  const entry = API_ERRORS[body.code as keyof typeof API_ERRORS];
  assert.ok(entry, `code ${String(body.code)} is in the catalogue (${context})`);
  assert.equal(answer.status, entry.status, `status is the catalogue's for ${String(body.code)} (${context})`);
}

/** Runs `tasks` a few at a time (the server is shared with the test's own event loop). */
async function inBatches<T>(tasks: (() => Promise<T>)[], size = 8): Promise<T[]> {
  const results: T[] = [];
  for (let i = 0; i < tasks.length; i += size)
    results.push(...(await Promise.all(tasks.slice(i, i + size).map((t) => t()))));
  return results;
}

// ---------------------------------------------------------------------------------------------- tests

test("every route × method × generated path value: no 5xx, the catalogue's JSON errors, nothing echoed", async () => {
  const routes = routesOf(app);
  assert.ok(
    routes.some((r) => r.path === "/v1/job/:id/status"),
    "the route tree was read",
  );
  assert.equal((await send("GET", "/dashboard/jobs", { headers: { cookie: session } })).status, 200, "signed in");
  // Each route's own methods, and methods it lacks (a 404 in the catalogue's shape).
  const extraMethods = ["GET", "POST", "DELETE", "PATCH", "OPTIONS"];
  const values = pathValues();
  // Bodies in turn: JSON cut short, JSON of the wrong shape, and media types the routes do not read.
  const bodies = [
    { text: `{"name":"${MARKER}"`, headers: { "content-type": "application/json" } },
    { text: `[{"name":"${MARKER}"}, 1e999, null]`, headers: { "content-type": "application/json" } },
    { text: `name=${MARKER}`, headers: { "content-type": "application/x-www-form-urlencoded" } },
    { text: MARKER, headers: { "content-type": "text/plain; charset=utf-8" } },
    { text: `--b\r\n\r\n${MARKER}`, headers: { "content-type": "multipart/form-data; boundary=b" } },
    { text: MARKER, headers: { "content-type": "application/json; charset=utf-7" } },
    { text: MARKER, headers: {} },
  ];
  const tasks: (() => Promise<void>)[] = [];
  for (const route of routes) {
    const concrete = (value: string) => route.path.replace(/:[\w-]+|\*/g, value);
    const targets = /[:*]/.test(route.path) ? values.map(concrete) : [route.path];
    for (const method of new Set([...route.methods, ...extraMethods])) {
      for (const target of targets) {
        // The dashboard refuses a request with an API key: its pages get the session alone.
        const headers: Record<string, string> = isDashboard(target) ? { cookie: session } : { authorization: apiKey };
        const body = ["POST", "PUT", "PATCH", "DELETE"].includes(method)
          ? bodies[tasks.length % bodies.length]
          : undefined;
        // Framed explicitly: node:http sends a DELETE body with neither Content-Length nor chunking.
        if (body) Object.assign(headers, body.headers, { "content-length": String(Buffer.byteLength(body.text)) });
        tasks.push(async () =>
          check(
            `${method} ${target.slice(0, 80)}`,
            method,
            target,
            await send(method, target, { headers, body: body?.text }),
          ),
        );
      }
    }
  }
  assert.ok(tasks.length > 1000, `${tasks.length} requests`);
  await inBatches(tasks);
});

test("page and size at the edges, on every documented list under both prefixes: 400 naming the limit, or 200", async () => {
  const document = JSON.parse((await send("GET", "/openapi.json")).text) as {
    paths: Record<string, Record<string, { parameters?: { in: string; name: string }[] }>>;
  };
  const lists = Object.entries(document.paths)
    .filter(([, methods]) => methods.get?.parameters?.some((p) => p.in === "query" && p.name === "page"))
    .flatMap(([documented]) => [documented, documented.replace(/^\/v1\//, "/api/")]);
  assert.ok(lists.length >= 4, `lists found: ${lists}`);
  const tasks: (() => Promise<void>)[] = [];
  for (const list of lists) {
    for (const name of ["page", "size"]) {
      for (const number of edgeNumbers()) {
        const target = `${list}?${name}=${encodeURIComponent(number)}`;
        tasks.push(async () => {
          const answer = await send("GET", target, { headers: { authorization: apiKey } });
          check(target, "GET", target, answer);
          if (answer.status === 400) {
            const body = JSON.parse(answer.text);
            assert.equal(body.code, "INVALID_REQUEST", target);
            assert.ok(
              body.details.some((d: { field: string }) => d.field === name),
              `${target}: ${answer.text}`,
            );
          } else assert.equal(answer.status, 200, target);
        });
      }
    }
  }
  await inBatches(tasks);
  const beyond = JSON.parse((await send("GET", "/v1/job?page=1e20", { headers: { authorization: apiKey } })).text);
  assert.match(beyond.message, /page must be <= 1000000/);
});

test("malformed HTTP on a raw socket: the catalogue's JSON error, then the connection closes", async () => {
  const line = (target = "/healthz", method = "GET", version = "HTTP/1.1") => `${method} ${target} ${version}\r\n`;
  const requests: string[] = [];
  for (const method of ["FOO", "GETT", "get", "G\tET", "PRI", "ÄÖ"])
    requests.push(`${line("/v1/job", method)}host: x\r\n\r\n`);
  for (const version of ["HTTP/2.0", "HTTP/9.9", "HTTX/1.1", "HTTP/1.1.1", ""]) {
    requests.push(`${line("/healthz", "GET", version)}host: x\r\n\r\n`);
  }
  for (const size of [17_000, 100_000]) requests.push(`${line(`/${"a".repeat(size)}`)}host: x\r\n\r\n`);
  for (const [count, size] of [
    [1, 40_000],
    [2000, 20],
  ] as const) {
    requests.push(
      `${line()}host: x\r\n${Array.from({ length: count }, (_, i) => `x-${i}: ${"v".repeat(size)}\r\n`).join("")}\r\n`,
    );
  }
  for (const framing of [
    "content-length: 5\r\ntransfer-encoding: chunked",
    "content-length: -1",
    "content-length: abc",
    "content-length: 1, 2",
    "transfer-encoding: chunked\r\n\r\nzz\r\n",
    `content-length: ${"9".repeat(30)}`,
  ]) {
    requests.push(`${line("/v1/job", "POST")}host: x\r\n${framing}\r\n\r\n`);
  }
  for (const header of ["no-colon-here", "bad name: v", "x: a\u0000b", ": empty", " leading: space"]) {
    requests.push(`${line()}host: x\r\n${header}\r\n\r\n`);
  }
  requests.push("GET\r\n\r\n", "GET /\r\n\r\n", `GET / HTTP/1.1\r\nhost: x\r\n\r\n${"\u0000".repeat(10)}`);
  for (const raw of requests) {
    const reply = await new Promise<string>((resolve) => {
      const socket = net.connect(port, "127.0.0.1");
      let received = "";
      socket.on("data", (data) => {
        received += data.toString("latin1");
      });
      socket.on("error", () => undefined);
      socket.on("close", () => resolve(received));
      socket.write(raw, "latin1");
      socket.setTimeout(3000, () => socket.destroy());
    });
    const what = JSON.stringify(raw.slice(0, 60));
    const [head = "", ...rest] = reply.split("\r\n\r\n");
    const status = Number(/^HTTP\/1\.1 (\d{3}) /.exec(head)?.[1]);
    assert.ok(status, `${what}: an HTTP answer (${JSON.stringify(reply.slice(0, 200))})`);
    const headers = Object.fromEntries(
      head
        .split("\r\n")
        .slice(1)
        .map((h) => [h.slice(0, h.indexOf(":")).toLowerCase(), h.slice(h.indexOf(":") + 1).trim()]),
    );
    const text = rest.join("\r\n\r\n");
    check(what, "GET", "/", { status, headers, text });
    // (A request whose route answers before the parser reaches the bad part is answered as usual.)
    if (status >= 400 && PARSER_CODES.includes(JSON.parse(text).code)) assert.equal(headers.connection, "close", what);
  }
});

test("Authorization: the key alone or after Bearer; anything else a 401 that says how to send it", async () => {
  for (const header of [apiKey, `Bearer ${apiKey}`, `bearer  ${apiKey}`]) {
    assert.equal((await send("GET", "/v1/application", { headers: { authorization: header } })).status, 200, header);
  }
  const refused = async (header: string | undefined) => {
    const answer = await send(
      "GET",
      "/v1/application",
      header === undefined ? {} : { headers: { authorization: header } },
    );
    assert.equal(answer.status, 401, String(header));
    assert.equal(JSON.parse(answer.text).code, "UNAUTHORIZED");
    return JSON.parse(answer.text).message as string;
  };
  assert.match(await refused(undefined), /Missing API key/);
  assert.match(await refused(`Basic ${Buffer.from(`x:${apiKey}`).toString("base64")}`), /without a scheme/);
  assert.match(await refused(`Token ${apiKey}`), /without a scheme/);
  assert.match(await refused(`Bearer ${apiKey}x`), /Invalid or revoked API key/);
});

test("job URLs: generated forms are refused at creation (422 naming the param) or run to a job error that is not INTERNAL_ERROR", async () => {
  const post = (workflow: string, params: Record<string, unknown>) =>
    send("POST", "/v1/job", {
      headers: { authorization: apiKey, "content-type": "application/json" },
      body: JSON.stringify({ name: "fuzz", workflow, params }),
    });
  const created: { id: string; url: string }[] = [];
  const ok = `${fixture.url}/song.wav`;
  for (const url of urlForms(fixture.port)) {
    for (const [workflow, params, field] of [
      ["mixdown/probe", { inputUrl: url }, "params.inputUrl"],
      ["fuzz/two-inputs", { song: ok, backing: url }, "params.backing"],
    ] as const) {
      const answer = await post(workflow, params);
      check(`POST /job ${workflow} ${url.slice(0, 80)}`, "POST", "/v1/job", answer);
      const body = JSON.parse(answer.text);
      if (answer.status === 200) created.push({ id: body.id, url });
      else {
        assert.equal(answer.status, 422, `${url}: ${answer.text}`);
        assert.ok(
          body.details.some((d: { field: string }) => d.field === field),
          `${url}: ${answer.text}`,
        );
      }
    }
  }
  // The fuzzer's three, and an optional URL param left out: refused, each naming what is wrong.
  for (const [url, reason] of [
    ["http://", /must name a host/],
    ["https://", /must name a host/],
    ["http://127.0.0.1:99999/", /invalid port/],
    ["http://127.0.0.1:0/x", /invalid port/],
  ] as const) {
    for (const [workflow, params] of [
      ["mixdown/probe", { inputUrl: url }],
      ["fuzz/two-inputs", { song: url, backing: ok }],
    ] as const) {
      const body = JSON.parse((await post(workflow, params)).text);
      assert.equal(body.code, "INVALID_WORKFLOW_PARAMS", url);
      assert.match(body.message, reason, url);
    }
  }
  const missing = JSON.parse((await post("fuzz/two-inputs", { song: ok })).text);
  assert.deepEqual(missing.details, [
    { field: "params.backing", message: "is required (a step reads the input file from it)" },
  ]);

  // URLs no check at creation can see: a redirect to a bad URL, and an empty file.
  const redirected = (to: string) => `${fixture.url}/redirect?to=${encodeURIComponent(to)}`;
  const special: Record<string, RegExp> = {
    [`${fixture.url}/empty`]: /The input file is empty/,
    [redirected("http://")]: /redirects to an unusable URL: it .*host/,
    [redirected("http://127.0.0.1:99999/")]: /redirects to an unusable URL: it has an invalid port/,
    [redirected("ftp://example.invalid/x")]: /redirects to an unusable URL: it must be an http or https URL/,
    [redirected(`http://127.0.0.1:${fixture.port}/empty`)]: /The input file is empty/,
  };
  const expected = new Map<string, RegExp>();
  for (const [url, reason] of Object.entries(special)) {
    const answer = await post("mixdown/probe", { inputUrl: url });
    assert.equal(answer.status, 200, `${url}: ${answer.text}`);
    const { id } = JSON.parse(answer.text);
    created.push({ id, url });
    expected.set(id, reason);
  }
  assert.ok(created.length >= 20, `${created.length} jobs created`);

  const deadline = Date.now() + 90_000;
  for (const { id, url } of created) {
    let job: { status: string; error: { code: string; message: string } | null } | undefined;
    while (Date.now() < deadline) {
      job = JSON.parse((await send("GET", `/v1/job/${id}`, { headers: { authorization: apiKey } })).text);
      if (job?.status === "SUCCEEDED" || job?.status === "FAILED") break;
      await delay(100);
    }
    const what = `${url.slice(0, 100)}: ${JSON.stringify(job)}`;
    assert.ok(job?.status === "SUCCEEDED" || job?.status === "FAILED", `finished: ${what}`);
    assert.notEqual(job.error?.code, "INTERNAL_ERROR", what);
    const reason = expected.get(id);
    if (reason) {
      assert.equal(job.error?.code, "BAD_INPUT", what);
      assert.match(job.error.message, reason, what);
    }
  }
});
