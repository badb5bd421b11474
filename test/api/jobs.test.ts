import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { after, before, describe, test } from "node:test";
import { sineWav } from "../helpers/audio.ts";
import { describeOrSkip } from "../helpers/backends.ts";
import { type ApiResponse, type AppInfo, assertNoneRunning, BACKENDS, Mixdown } from "../helpers/mixdown.ts";

const PREFIXES = ["/v1", "/api"];
const CONVERT = "mixdown/convert";
const PARAMS = { inputUrl: "https://example.com/song.wav", format: "mp3" };
const MISSING_ID = "00000000-0000-4000-8000-000000000000";
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const ISO_UTC = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/;
const JOB_FIELDS = [
  "app",
  "batchName",
  "completedAt",
  "createdAt",
  "error",
  "id",
  "metadata",
  "name",
  "progress",
  "startedAt",
  "step",
  "status",
  "result",
  "workflow",
  "workflowParams",
].sort();
const BAD_IDS = [
  "not-a-uuid",
  "12345",
  "00000000-0000-4000-8000-00000000000",
  "00000000-0000-4000-8000-0000000000000",
  "g0000000-0000-4000-8000-000000000000",
  "00000000000040008000000000000000",
];

interface Detail {
  field: string;
  message: string;
}

/** A 400 INVALID_REQUEST whose message and `details` name `field` (a detail whose field is it or starts with it). */
/** The routes that take a job id: get, status and delete. */
const jobIdRoutes = (id: string) =>
  [
    ["GET", `/job/${id}`],
    ["GET", `/job/${id}/status`],
    ["DELETE", `/job/${id}`],
  ] as const;

function assertInvalid(response: ApiResponse, field: string, what = ""): void {
  const context = `${what}: ${JSON.stringify(response.body)}`;
  assert.equal(response.status, 400, context);
  assert.equal(response.body.code, "INVALID_REQUEST", context);
  assert.equal(typeof response.body.message, "string", context);
  const details = response.body.details as Detail[];
  assert.ok(Array.isArray(details) && details.length > 0, `details is a non-empty list (${context})`);
  for (const detail of details) {
    assert.deepEqual(Object.keys(detail).sort(), ["field", "message"], context);
    assert.equal(typeof detail.field, "string", context);
    assert.equal(typeof detail.message, "string", context);
    assert.ok(detail.message.length > 0, context);
  }
  assert.ok(
    details.some((d) => d.field === field || d.field.startsWith(`${field}.`)),
    `a detail for ${field} (${context})`,
  );
  assert.ok(response.body.message.includes(field), `the message names ${field} (${context})`);
}

/** The Link header as rel → URL. */
function links(response: ApiResponse): Map<string, URL> {
  const header = response.headers.get("link") ?? "";
  const result = new Map<string, URL>();
  for (const match of header.matchAll(/<([^>]*)>\s*;\s*rel="([^"]+)"/g)) {
    result.set(match[2] as string, new URL(match[1] as string));
  }
  return result;
}

function totalCount(response: ApiResponse): number {
  const header = response.headers.get("x-total-count");
  assert.ok(header !== null && /^\d+$/.test(header), `X-Total-Count is a count, got ${header}`);
  return Number(header);
}

function ids(response: ApiResponse): string[] {
  assert.equal(response.status, 200, JSON.stringify(response.body));
  assert.ok(Array.isArray(response.body), `a bare array, got ${JSON.stringify(response.body)}`);
  return (response.body as { id: string }[]).map((job) => job.id);
}

function assertJobShape(job: Record<string, unknown>): void {
  assert.deepEqual(Object.keys(job).sort(), JOB_FIELDS);
  assert.match(job.id as string, UUID);
  assert.match(job.createdAt as string, ISO_UTC);
  for (const field of ["startedAt", "completedAt"]) {
    if (job[field] !== null) assert.match(job[field] as string, ISO_UTC, field);
  }
}

for (const { backend, skip } of BACKENDS)
  describeOrSkip(`jobs API (no workers: jobs stay QUEUED) [${backend}]`, skip, () => {
    let server: Mixdown;
    let app: AppInfo;

    before(async () => {
      server = await Mixdown.start({ MIXDOWN_WORKERS: "0" }, { backend });
      app = await server.createApp("jobs-app");
    });
    after(async () => {
      await server?.dispose();
      assertNoneRunning();
    });

    const post = (prefix: string, body: unknown, key = app.apiKey) =>
      server.api("POST", `${prefix}/job`, { key, body });

    for (const prefix of PREFIXES) {
      describe(`POST ${prefix}/job`, () => {
        test("creates a job: exactly 200 and {id} with a UUID; the job shows what was given", async () => {
          const metadata = { customer: "acme", take: 3, ratio: 0.5, final: true, empty: "" };
          const params = { ...PARAMS, sampleRate: 44100, channels: 1 };
          const created = await post(prefix, {
            name: "first take",
            workflow: CONVERT,
            params,
            metadata,
            batchName: "batch-1",
          });
          assert.equal(created.status, 200, JSON.stringify(created.body));
          assert.deepEqual(Object.keys(created.body), ["id"]);
          assert.match(created.body.id, UUID);

          const got = await server.api("GET", `${prefix}/job/${created.body.id}`, { key: app.apiKey });
          assert.equal(got.status, 200);
          assertJobShape(got.body);
          assert.deepEqual(
            { ...got.body, createdAt: "<ts>" },
            {
              id: created.body.id,
              app: "jobs-app",
              name: "first take",
              batchName: "batch-1",
              metadata,
              workflow: CONVERT,
              workflowParams: params,
              status: "QUEUED",
              result: null,
              error: null,
              createdAt: "<ts>",
              startedAt: null,
              completedAt: null,
              progress: 0,
              step: null,
            },
          );
          const age = Date.now() - Date.parse(got.body.createdAt);
          assert.ok(age >= -60_000 && age < 3_600_000, `createdAt is about now: ${got.body.createdAt}`);
        });

        test("without metadata and batchName the job has metadata {} and batchName null", async () => {
          const created = await post(prefix, { name: "bare", workflow: CONVERT, params: PARAMS });
          assert.equal(created.status, 200, JSON.stringify(created.body));
          const job = (await server.api("GET", `${prefix}/job/${created.body.id}`, { key: app.apiKey })).body;
          assertJobShape(job);
          assert.deepEqual(job.metadata, {});
          assert.equal(job.batchName, null);
          assert.equal(job.name, "bare");
          assert.deepEqual(job.workflowParams, PARAMS);
        });

        test("every create gets a new id", async () => {
          const a = await post(prefix, { name: "a", workflow: CONVERT, params: PARAMS });
          const b = await post(prefix, { name: "a", workflow: CONVERT, params: PARAMS });
          assert.equal(a.status, 200);
          assert.equal(b.status, 200);
          assert.notEqual(a.body.id, b.body.id);
        });
      });
    }

    describe("POST /job with invalid fields answers 400 INVALID_REQUEST with field-level details", () => {
      const valid = { name: "n", workflow: CONVERT, params: PARAMS };
      const without = (field: keyof typeof valid) =>
        Object.fromEntries(Object.entries(valid).filter(([k]) => k !== field));
      const cases: [string, unknown, string][] = [
        ["missing name", without("name"), "name"],
        ["missing workflow", without("workflow"), "workflow"],
        ["missing params", without("params"), "params"],
        ["numeric name", { ...valid, name: 42 }, "name"],
        ["null name", { ...valid, name: null }, "name"],
        ["numeric workflow", { ...valid, workflow: 7 }, "workflow"],
        ["string params", { ...valid, params: "inputUrl=https://example.com/a.wav" }, "params"],
        ["array params", { ...valid, params: [PARAMS] }, "params"],
        ["null params", { ...valid, params: null }, "params"],
        ["string metadata", { ...valid, metadata: "customer=acme" }, "metadata"],
        ["array metadata", { ...valid, metadata: ["acme"] }, "metadata"],
        ["null metadata", { ...valid, metadata: null }, "metadata"],
        ["metadata with a nested object", { ...valid, metadata: { ok: "yes", nested: { a: 1 } } }, "metadata.nested"],
        ["metadata with a null value", { ...valid, metadata: { gone: null } }, "metadata.gone"],
        ["metadata with an array value", { ...valid, metadata: { tags: ["a", "b"] } }, "metadata.tags"],
        ["numeric batchName", { ...valid, batchName: 5 }, "batchName"],
        ["boolean batchName", { ...valid, batchName: true }, "batchName"],
        ["null batchName", { ...valid, batchName: null }, "batchName"],
        ["unknown top-level field", { ...valid, priority: "high" }, "priority"],
        ["a JSON array body", [valid], "body"],
        ["a JSON string body", JSON.stringify(JSON.stringify(valid)), "body"],
        ["a JSON null body", null, "body"],
      ];
      let key: string;
      before(async () => {
        key = (await server.createApp("invalid-fields")).apiKey;
      });

      for (const prefix of PREFIXES) {
        for (const [what, body, field] of cases) {
          test(`${prefix}: ${what} → 400 naming ${field}`, async () => {
            assertInvalid(await post(prefix, body, key), field, what);
          });
        }

        test(`${prefix}: an empty object names every missing field`, async () => {
          const response = await post(prefix, {}, key);
          for (const field of ["name", "workflow", "params"]) assertInvalid(response, field, "{}");
        });

        for (const text of ["", '{"name": "x", "workflow": ', "name=x&workflow=y", "{'name': 'x'}"]) {
          test(`${prefix}: a body that is not JSON (${JSON.stringify(text)}) → 400 INVALID_REQUEST with details`, async () => {
            const response = await server.api("POST", `${prefix}/job`, { key, body: text });
            assert.equal(response.status, 400, JSON.stringify(response.body));
            assert.equal(response.body.code, "INVALID_REQUEST");
            assertInvalid(response, "body", `non-JSON ${text}`);
          });
        }

        test(`${prefix}: a non-string batchName is refused even with a valid workflow and params`, async () => {
          const response = await post(prefix, { ...valid, batchName: { id: 1 } }, key);
          assertInvalid(response, "batchName");
          assert.ok(!response.body.details.some((d: Detail) => d.field.startsWith("params")));
        });
      }

      test("no refused request created a job", async () => {
        const list = await server.api("GET", "/v1/job", { key });
        assert.deepEqual(ids(list), []);
        assert.equal(totalCount(list), 0);
      });
    });

    describe("GET /job/:id, /job/:id/status and DELETE /job/:id", () => {
      let jobId: string;
      before(async () => {
        jobId = await server.createJob(app.apiKey, CONVERT, PARAMS, { name: "lookup", batchName: "lookups" });
      });

      for (const prefix of PREFIXES) {
        test(`${prefix}: a non-UUID id → 400 INVALID_JOB_ID on get, status and delete`, async () => {
          for (const id of BAD_IDS) {
            for (const [method, path] of jobIdRoutes(id)) {
              const response = await server.api(method, `${prefix}${path}`, { key: app.apiKey });
              assert.equal(response.status, 400, `${method} ${path}: ${JSON.stringify(response.body)}`);
              assert.equal(response.body.code, "INVALID_JOB_ID", `${method} ${path}`);
              assert.equal(typeof response.body.message, "string");
            }
          }
        });

        test(`${prefix}: an unknown UUID → 404 JOB_NOT_FOUND on get, status and delete`, async () => {
          for (const id of [MISSING_ID, crypto.randomUUID()]) {
            for (const [method, path] of jobIdRoutes(id)) {
              const response = await server.api(method, `${prefix}${path}`, { key: app.apiKey });
              assert.equal(response.status, 404, `${method} ${path}: ${JSON.stringify(response.body)}`);
              assert.equal(response.body.code, "JOB_NOT_FOUND");
              assert.equal(typeof response.body.message, "string");
            }
          }
        });

        test(`${prefix}: the status body is exactly {id, status}`, async () => {
          const response = await server.api("GET", `${prefix}/job/${jobId}/status`, { key: app.apiKey });
          assert.equal(response.status, 200);
          assert.deepEqual(response.body, { id: jobId, status: "QUEUED", progress: 0, step: null });
        });

        test(`${prefix}: the job is the same under both prefixes`, async () => {
          const here = await server.api("GET", `${prefix}/job/${jobId}`, { key: app.apiKey });
          const there = await server.api("GET", `${prefix === "/v1" ? "/api" : "/v1"}/job/${jobId}`, {
            key: app.apiKey,
          });
          assert.equal(here.status, 200);
          assertJobShape(here.body);
          assert.deepEqual(here.body, there.body);
          assert.equal(here.body.name, "lookup");
        });

        test(`${prefix}: DELETE answers 200 {id}; then the job is gone everywhere`, async () => {
          const id = await server.createJob(app.apiKey, CONVERT, PARAMS, {
            name: "doomed",
            batchName: `doomed${prefix}`,
          });
          const keep = await server.createJob(app.apiKey, CONVERT, PARAMS, {
            name: "kept",
            batchName: `doomed${prefix}`,
          });
          const before = await server.api("GET", `${prefix}/job?batchName=doomed${encodeURIComponent(prefix)}`, {
            key: app.apiKey,
          });
          assert.deepEqual(ids(before), [keep, id]);

          const deleted = await server.api("DELETE", `${prefix}/job/${id}`, { key: app.apiKey });
          assert.equal(deleted.status, 200, JSON.stringify(deleted.body));
          assert.deepEqual(deleted.body, { id });

          for (const p of PREFIXES) {
            for (const [method, path] of jobIdRoutes(id)) {
              const response = await server.api(method, `${p}${path}`, { key: app.apiKey });
              assert.equal(response.status, 404, `${method} ${p}${path} after delete`);
              assert.equal(response.body.code, "JOB_NOT_FOUND");
            }
          }
          const after = await server.api("GET", `${prefix}/job?batchName=doomed${encodeURIComponent(prefix)}`, {
            key: app.apiKey,
          });
          assert.deepEqual(ids(after), [keep]);
          assert.equal(totalCount(after), 1);
          const all = await server.api("GET", `${prefix}/job?size=1000`, { key: app.apiKey });
          assert.ok(!ids(all).includes(id));
          assert.ok(ids(all).includes(keep));
          assert.equal((await server.api("GET", `${prefix}/job/${keep}`, { key: app.apiKey })).status, 200);
        });

        test(`${prefix}: an upper-case UUID names the same job`, async () => {
          const response = await server.api("GET", `${prefix}/job/${jobId.toUpperCase()}/status`, { key: app.apiKey });
          assert.equal(response.status, 200);
          assert.equal(response.body.status, "QUEUED");
        });
      }
    });

    describe("GET /job: listing, filters and pagination", () => {
      let key: string;
      /** Oldest first: b1 ×3 then b2 ×2. */
      const created: string[] = [];
      before(async () => {
        key = (await server.createApp("lister")).apiKey;
        for (let i = 0; i < 5; i++) {
          created.push(
            await server.createJob(key, CONVERT, PARAMS, { name: `job ${i}`, batchName: i < 3 ? "b1" : "b2" }),
          );
        }
      });
      const newestFirst = () => [...created].reverse();

      for (const prefix of PREFIXES) {
        const list = (query = "") => server.api("GET", `${prefix}/job${query}`, { key });

        test(`${prefix}: a bare array of full jobs, newest first, X-Total-Count = all`, async () => {
          const response = await list();
          assert.deepEqual(ids(response), newestFirst());
          assert.equal(totalCount(response), 5);
          for (const job of response.body) assertJobShape(job);
          assert.deepEqual(
            response.body.map((j: { name: string }) => j.name),
            ["job 4", "job 3", "job 2", "job 1", "job 0"],
          );
          const times = response.body.map((j: { createdAt: string }) => Date.parse(j.createdAt));
          for (let i = 1; i < times.length; i++) assert.ok(times[i - 1] >= times[i], "createdAt descending");
          assert.equal(links(response).has("next"), false);
          assert.equal(links(response).has("prev"), false);
        });

        test(`${prefix}: the listed job equals GET /job/:id`, async () => {
          const listed = (await list()).body[0];
          const single = (await server.api("GET", `${prefix}/job/${listed.id}`, { key })).body;
          assert.deepEqual(listed, single);
        });

        test(`${prefix}: status filter, repeatable`, async () => {
          const queued = await list("?status=QUEUED");
          assert.deepEqual(ids(queued), newestFirst());
          assert.equal(totalCount(queued), 5);
          const either = await list("?status=QUEUED&status=FAILED");
          assert.deepEqual(ids(either), newestFirst());
          assert.equal(totalCount(either), 5);
          for (const query of ["?status=FAILED", "?status=SUCCEEDED&status=STARTED"]) {
            const none = await list(query);
            assert.deepEqual(ids(none), [], query);
            assert.equal(totalCount(none), 0, query);
          }
        });

        test(`${prefix}: workflow filter, repeatable`, async () => {
          const convert = await list(`?workflow=${encodeURIComponent(CONVERT)}`);
          assert.deepEqual(ids(convert), newestFirst());
          const either = await list(`?workflow=nope%2Fnothing&workflow=${encodeURIComponent(CONVERT)}`);
          assert.deepEqual(ids(either), newestFirst());
          assert.equal(totalCount(either), 5);
          const none = await list("?workflow=nope%2Fnothing");
          assert.deepEqual(ids(none), []);
          assert.equal(totalCount(none), 0);
        });

        test(`${prefix}: batchName filter, combined with the others`, async () => {
          const b1 = await list("?batchName=b1");
          assert.deepEqual(ids(b1), newestFirst().slice(2));
          assert.equal(totalCount(b1), 3);
          for (const job of b1.body) assert.equal(job.batchName, "b1");
          const b2 = await list(`?batchName=b2&status=QUEUED&workflow=${encodeURIComponent(CONVERT)}`);
          assert.deepEqual(ids(b2), newestFirst().slice(0, 2));
          assert.equal(totalCount(b2), 2);
          const none = await list("?batchName=b3");
          assert.deepEqual(ids(none), []);
          assert.equal(totalCount(none), 0);
          const b1Failed = await list("?batchName=b1&status=FAILED");
          assert.deepEqual(ids(b1Failed), []);
        });

        test(`${prefix}: page and size; X-Total-Count is the total; Link has next/prev`, async () => {
          const all = newestFirst();
          const pages = [all.slice(0, 2), all.slice(2, 4), all.slice(4)];
          for (const [page, expected] of pages.entries()) {
            const response = await list(`?page=${page}&size=2`);
            assert.deepEqual(ids(response), expected, `page ${page}`);
            assert.equal(totalCount(response), 5);
            const rel = links(response);
            if (page < 2) {
              const next = rel.get("next");
              assert.ok(next, `page ${page} has rel="next": ${response.headers.get("link")}`);
              assert.equal(next.pathname, `${prefix}/job`);
              assert.equal(next.origin, server.url);
              assert.equal(next.searchParams.get("page"), String(page + 1));
              assert.equal(next.searchParams.get("size"), "2");
            } else {
              assert.equal(rel.has("next"), false, `last page has no next: ${response.headers.get("link")}`);
            }
            if (page > 0) {
              const prev = rel.get("prev");
              assert.ok(prev, `page ${page} has rel="prev": ${response.headers.get("link")}`);
              assert.equal(prev.pathname, `${prefix}/job`);
              assert.equal(prev.searchParams.get("page"), String(page - 1));
              assert.equal(prev.searchParams.get("size"), "2");
            } else {
              assert.equal(rel.has("prev"), false, `page 0 has no prev: ${response.headers.get("link")}`);
            }
          }
          const beyond = await list("?page=3&size=2");
          assert.deepEqual(ids(beyond), []);
          assert.equal(totalCount(beyond), 5);
          assert.equal(links(beyond).has("next"), false);
          assert.ok(links(beyond).has("prev"));
        });

        test(`${prefix}: defaults are page 0 and size 100`, async () => {
          const extra = await server.createApp(`many${prefix.replace("/", "-")}`);
          const made: string[] = [];
          for (let i = 0; i < 101; i++) {
            const response = await post(prefix, { name: `m${i}`, workflow: CONVERT, params: PARAMS }, extra.apiKey);
            assert.equal(response.status, 200);
            made.push(response.body.id);
          }
          const expected = made.reverse();
          const first = await server.api("GET", `${prefix}/job`, { key: extra.apiKey });
          assert.deepEqual(ids(first), expected.slice(0, 100));
          assert.equal(totalCount(first), 101);
          const next = links(first).get("next");
          assert.ok(next);
          assert.equal(next.searchParams.get("page"), "1");
          assert.equal(next.searchParams.get("size"), "100");
          const explicit = await server.api("GET", `${prefix}/job?page=0&size=100`, { key: extra.apiKey });
          assert.deepEqual(ids(explicit), ids(first));
          const second = await server.api("GET", `${prefix}/job?page=1`, { key: extra.apiKey });
          assert.deepEqual(ids(second), expected.slice(100));
          const big = await server.api("GET", `${prefix}/job?size=1000`, { key: extra.apiKey });
          assert.deepEqual(ids(big), expected);
        });

        test(`${prefix}: Link URLs keep the filters and can be followed`, async () => {
          const query = `?status=QUEUED&status=FAILED&workflow=${encodeURIComponent(CONVERT)}&batchName=b1&size=1&page=1`;
          const response = await list(query);
          assert.deepEqual(ids(response), [newestFirst()[3]]);
          assert.equal(totalCount(response), 3);
          const rel = links(response);
          for (const [name, page] of [
            ["next", "2"],
            ["prev", "0"],
          ] as const) {
            const url = rel.get(name);
            assert.ok(url, `rel="${name}" in ${response.headers.get("link")}`);
            assert.equal(url.origin, server.url);
            assert.equal(url.pathname, `${prefix}/job`);
            assert.deepEqual(url.searchParams.getAll("status"), ["QUEUED", "FAILED"], name);
            assert.deepEqual(url.searchParams.getAll("workflow"), [CONVERT], name);
            assert.equal(url.searchParams.get("batchName"), "b1", name);
            assert.equal(url.searchParams.get("size"), "1", name);
            assert.equal(url.searchParams.get("page"), page, name);
          }
          const followed = await server.api("GET", `${rel.get("next")?.pathname}${rel.get("next")?.search}`, { key });
          assert.deepEqual(ids(followed), [newestFirst()[4]]);
          assert.equal(links(followed).has("next"), false);
          const back = await server.api("GET", `${rel.get("prev")?.pathname}${rel.get("prev")?.search}`, { key });
          assert.deepEqual(ids(back), [newestFirst()[2]]);
        });

        test(`${prefix}: invalid parameters → 400 INVALID_REQUEST naming the parameter`, async () => {
          const cases: [string, string][] = [
            ["?status=BOGUS", "status"],
            ["?status=QUEUED&status=DONE", "status"],
            ["?page=-1", "page"],
            ["?page=1.5", "page"],
            ["?page=abc", "page"],
            ["?page=1000001", "page"],
            ["?page=1e20", "page"],
            ["?page=99999999999999", "page"],
            ["?page=999999999999999999999999999999", "page"],
            ["?size=0", "size"],
            ["?size=1001", "size"],
            ["?size=2.5", "size"],
            ["?size=ten", "size"],
            ["?size=-3", "size"],
          ];
          for (const [query, field] of cases) assertInvalid(await list(query), field, query);
          assert.match((await list("?page=1e20")).body.message, /page must be <= 1000000/);
        });
      }
    });

    describe("isolation between applications", () => {
      let a: AppInfo;
      let b: AppInfo;
      let jobId: string;
      let original: Record<string, unknown>;
      before(async () => {
        a = await server.createApp("app-a");
        b = await server.createApp("app-b");
        jobId = await server.createJob(a.apiKey, CONVERT, PARAMS, {
          name: "a's job",
          batchName: "shared-batch",
          metadata: { owner: "a" },
        });
        original = (await server.api("GET", `/v1/job/${jobId}`, { key: a.apiKey })).body;
      });

      for (const prefix of PREFIXES) {
        test(`${prefix}: B gets exactly the missing-job 404 on get, status and delete of A's job`, async () => {
          for (const [method, suffix] of [
            ["GET", ""],
            ["GET", "/status"],
            ["DELETE", ""],
          ] as const) {
            const missing = await server.api(method, `${prefix}/job/${MISSING_ID}${suffix}`, { key: b.apiKey });
            const foreign = await server.api(method, `${prefix}/job/${jobId}${suffix}`, { key: b.apiKey });
            assert.equal(missing.status, 404);
            assert.equal(foreign.status, 404, `${method} ${suffix}: ${JSON.stringify(foreign.body)}`);
            assert.equal(foreign.body.code, "JOB_NOT_FOUND");
            assert.deepEqual(foreign.body, missing.body, `${method} ${suffix}`);
            assert.ok(!JSON.stringify(foreign.body).includes(jobId), "the body does not echo the foreign id");
          }
        });

        test(`${prefix}: B never lists A's job, whatever the filters`, async () => {
          for (const query of [
            "",
            "?status=QUEUED",
            "?status=QUEUED&status=STARTED&status=SUCCEEDED&status=FAILED",
            `?workflow=${encodeURIComponent(CONVERT)}`,
            "?batchName=shared-batch",
            `?batchName=shared-batch&status=QUEUED&workflow=${encodeURIComponent(CONVERT)}&size=1000`,
          ]) {
            const response = await server.api("GET", `${prefix}/job${query}`, { key: b.apiKey });
            assert.deepEqual(ids(response), [], query);
            assert.equal(totalCount(response), 0, query);
          }
        });

        test(`${prefix}: A's job is untouched after B's attempts; B's own job stays out of A's list`, async () => {
          const own = await server.createJob(b.apiKey, CONVERT, PARAMS, { batchName: "shared-batch" });
          await server.api("DELETE", `${prefix}/job/${jobId}`, { key: b.apiKey });
          const after = await server.api("GET", `${prefix}/job/${jobId}`, { key: a.apiKey });
          assert.equal(after.status, 200);
          assert.deepEqual(after.body, original);
          assert.equal(after.body.app, "app-a");
          const aList = await server.api("GET", `${prefix}/job?batchName=shared-batch`, { key: a.apiKey });
          assert.deepEqual(ids(aList), [jobId]);
          assert.equal(totalCount(aList), 1);
          const bList = await server.api("GET", `${prefix}/job?batchName=shared-batch`, { key: b.apiKey });
          assert.deepEqual(ids(bList), [own]);
          assert.equal(bList.body[0].app, "app-b");
          assert.equal((await server.api("DELETE", `${prefix}/job/${own}`, { key: a.apiKey })).status, 404);
          assert.equal((await server.api("DELETE", `${prefix}/job/${own}`, { key: b.apiKey })).status, 200);
        });
      }
    });
  });

for (const { backend, skip } of BACKENDS)
  describeOrSkip(`jobs API with workers: FAILED and SUCCEEDED jobs [${backend}]`, skip, () => {
    let server: Mixdown;
    let key: string;
    let failedId: string;
    let succeededId: string;
    let failed: Record<string, unknown>;
    let succeeded: Record<string, unknown>;

    before(async () => {
      server = await Mixdown.start({}, { backend });
      key = (await server.createApp("workers-app")).apiKey;
      const junk = await server.upload(key, randomBytes(4096), "application/octet-stream");
      const wav = await server.upload(key, sineWav(1), "audio/wav");
      failedId = await server.createJob(key, CONVERT, { inputUrl: junk, format: "mp3" }, { name: "junk" });
      succeededId = await server.createJob(key, CONVERT, { inputUrl: wav, format: "mp3" }, { name: "tone" });
      failed = await server.waitForJob(key, failedId);
      succeeded = await server.waitForJob(key, succeededId);
    });
    after(async () => {
      await server?.dispose();
      assertNoneRunning();
    });

    test("random bytes fail with BAD_INPUT; the job has an error object and both timestamps", () => {
      assertJobShape(failed);
      assert.equal(failed.id, failedId);
      assert.equal(failed.status, "FAILED");
      const error = failed.error as Record<string, unknown>;
      assert.deepEqual(Object.keys(error).sort(), ["code", "message", "title"]);
      assert.equal(error.code, "BAD_INPUT");
      assert.equal(error.title, "Invalid input");
      assert.equal(typeof error.message, "string");
      assert.ok((error.message as string).length > 0);
      assert.match(failed.startedAt as string, ISO_UTC);
      assert.match(failed.completedAt as string, ISO_UTC);
      assert.ok(Date.parse(failed.startedAt as string) >= Date.parse(failed.createdAt as string));
      assert.ok(Date.parse(failed.completedAt as string) >= Date.parse(failed.startedAt as string));
    });

    test("a WAV converted to mp3 succeeds: result has URLs, error is null", async () => {
      assertJobShape(succeeded);
      assert.equal(succeeded.status, "SUCCEEDED");
      assert.equal(succeeded.error, null);
      const result = succeeded.result as Record<string, unknown>;
      assert.ok(result && typeof result === "object");
      assert.ok(Object.keys(result).length > 0);
      for (const value of Object.values(result)) assert.match(value as string, /^https?:\/\//);
      assert.match(succeeded.startedAt as string, ISO_UTC);
      assert.match(succeeded.completedAt as string, ISO_UTC);
      assert.ok(Date.parse(succeeded.completedAt as string) >= Date.parse(succeeded.startedAt as string));
    });

    for (const prefix of PREFIXES) {
      test(`${prefix}: status endpoint and status filters see the finished jobs`, async () => {
        const failed = (await server.api("GET", `${prefix}/job/${failedId}/status`, { key })).body;
        // A failed job keeps the progress it had made (here: its first step done).
        assert.ok(failed.progress >= 0 && failed.progress < 1, String(failed.progress));
        assert.deepEqual(
          { ...failed, progress: "<n>" },
          { id: failedId, status: "FAILED", progress: "<n>", step: null },
        );
        assert.deepEqual((await server.api("GET", `${prefix}/job/${succeededId}/status`, { key })).body, {
          id: succeededId,
          status: "SUCCEEDED",
          progress: 1,
          step: null,
        });
        const cases: [string, string[]][] = [
          ["?status=FAILED", [failedId]],
          ["?status=SUCCEEDED", [succeededId]],
          ["?status=SUCCEEDED&status=FAILED", [succeededId, failedId]],
          ["?status=QUEUED&status=FAILED", [failedId]],
          ["?status=QUEUED", []],
          ["?status=STARTED", []],
          ["", [succeededId, failedId]],
        ];
        for (const [query, expected] of cases) {
          const response = await server.api("GET", `${prefix}/job${query}`, { key });
          assert.deepEqual(ids(response), expected, query);
          assert.equal(totalCount(response), expected.length, query);
          for (const job of response.body) assertJobShape(job);
        }
        const page = await server.api("GET", `${prefix}/job?status=SUCCEEDED&status=FAILED&size=1`, { key });
        assert.deepEqual(ids(page), [succeededId]);
        assert.equal(totalCount(page), 2);
        const next = links(page).get("next");
        assert.ok(next);
        assert.deepEqual(next.searchParams.getAll("status"), ["SUCCEEDED", "FAILED"]);
      });
    }

    test("a finished job can be deleted; it is then gone", async () => {
      const wav = await server.upload(key, sineWav(1), "audio/wav");
      const id = await server.createJob(key, CONVERT, { inputUrl: wav, format: "wav" }, { name: "to delete" });
      const done = await server.waitForJob(key, id);
      assert.equal(done.status, "SUCCEEDED");
      const deleted = await server.api("DELETE", `/api/job/${id}`, { key });
      assert.equal(deleted.status, 200);
      assert.deepEqual(deleted.body, { id });
      assert.equal((await server.api("GET", `/v1/job/${id}`, { key })).status, 404);
      assert.ok(!ids(await server.api("GET", "/v1/job", { key })).includes(id));
    });
  });
