import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { describeOrSkip } from "../helpers/backends.ts";
import { type ApiResponse, type AppInfo, assertNoneRunning, BACKENDS, Mixdown } from "../helpers/mixdown.ts";

const PREFIXES = ["/v1", "/api"];
const CONVERT = "mixdown/convert";
const INPUT = "https://example.com/song.wav";
const ISO_UTC = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/;

interface Detail {
  field: string;
  message: string;
}

function assertDetails(response: ApiResponse): Detail[] {
  const details = response.body.details as Detail[];
  assert.ok(Array.isArray(details) && details.length > 0, `details listed: ${JSON.stringify(response.body)}`);
  for (const detail of details) {
    assert.deepEqual(Object.keys(detail).sort(), ["field", "message"]);
    assert.equal(typeof detail.field, "string");
    assert.equal(typeof detail.message, "string");
    assert.ok(detail.message.length > 0);
  }
  return details;
}

for (const { backend, skip } of BACKENDS)
  describeOrSkip(`workflows [${backend}]`, skip, () => {
    let server: Mixdown;
    let app: AppInfo;

    before(async () => {
      server = await Mixdown.start({ MIXDOWN_WORKERS: "0" }, { backend });
      app = await server.createApp("workflows-app");
    });
    after(async () => {
      await server?.dispose();
      assertNoneRunning();
    });

    for (const prefix of PREFIXES) {
      describe(`GET ${prefix}/workflow`, () => {
        const list = (query = "") => server.api("GET", `${prefix}/workflow${query}`, { key: app.apiKey });

        test("answers exactly 200 and {workflows: [...]} listing mixdown/convert with its fields", async () => {
          const response = await list();
          assert.equal(response.status, 200);
          assert.deepEqual(Object.keys(response.body), ["workflows"]);
          assert.ok(Array.isArray(response.body.workflows));
          const convert = response.body.workflows.find((wf: { slug: string }) => wf.slug === CONVERT);
          assert.ok(convert, JSON.stringify(response.body));
          assert.deepEqual(Object.keys(convert).sort(), [
            "createdAt",
            "description",
            "id",
            "name",
            "slug",
            "updatedAt",
          ]);
          assert.equal(typeof convert.id, "string");
          assert.ok(convert.id.length > 0);
          assert.equal(convert.name, "Convert audio");
          assert.equal(typeof convert.description, "string");
          assert.match(convert.description, /mp3/);
          assert.match(convert.createdAt, ISO_UTC);
          assert.match(convert.updatedAt, ISO_UTC);
          assert.ok(Date.parse(convert.updatedAt) >= Date.parse(convert.createdAt));
          for (const wf of response.body.workflows) {
            assert.deepEqual(Object.keys(wf).sort(), ["createdAt", "description", "id", "name", "slug", "updatedAt"]);
          }
          const slugs = response.body.workflows.map((wf: { slug: string }) => wf.slug);
          assert.equal(new Set(slugs).size, slugs.length, "slugs are unique");
        });

        test("is the same under both prefixes and with the defaults spelled out", async () => {
          const other = await server.api("GET", `${prefix === "/v1" ? "/api" : "/v1"}/workflow`, { key: app.apiKey });
          const here = await list();
          assert.deepEqual(here.body, other.body);
          const explicit = await list("?page=0&size=100");
          assert.equal(explicit.status, 200);
          assert.deepEqual(explicit.body, here.body);
        });

        test("page and size paginate", async () => {
          const all = (await list()).body.workflows as { slug: string }[];
          const onePerPage: string[] = [];
          for (let page = 0; page <= all.length; page++) {
            const response = await list(`?page=${page}&size=1`);
            assert.equal(response.status, 200);
            const workflows = response.body.workflows as { slug: string }[];
            if (page < all.length) assert.equal(workflows.length, 1, `page ${page}`);
            else assert.deepEqual(workflows, [], "past the last page");
            onePerPage.push(...workflows.map((wf) => wf.slug));
          }
          assert.deepEqual(
            onePerPage,
            all.map((wf) => wf.slug),
          );
          assert.deepEqual((await list("?size=1000")).body.workflows, all);
          assert.deepEqual((await list("?page=5")).body.workflows, []);
        });

        test("invalid page or size → 400 INVALID_REQUEST naming the parameter", async () => {
          const cases: [string, string][] = [
            ["?page=-1", "page"],
            ["?page=1.5", "page"],
            ["?page=first", "page"],
            ["?page=1000001", "page"],
            ["?page=1e20", "page"],
            ["?page=99999999999999", "page"],
            ["?page=999999999999999999999999999999", "page"],
            ["?size=0", "size"],
            ["?size=1001", "size"],
            ["?size=2.5", "size"],
            ["?size=-1", "size"],
            ["?size=many", "size"],
          ];
          for (const [query, field] of cases) {
            const response = await list(query);
            assert.equal(response.status, 400, `${query}: ${JSON.stringify(response.body)}`);
            assert.equal(response.body.code, "INVALID_REQUEST", query);
            assert.ok(response.body.message.includes(field), `${query}: ${response.body.message}`);
            assert.ok(
              assertDetails(response).some((d) => d.field === field),
              `${query}: ${JSON.stringify(response.body)}`,
            );
          }
          assert.match((await list("?page=1e20")).body.message, /page must be <= 1000000/);
        });
      });

      describe(`POST ${prefix}/job: workflow lookup and input schema`, () => {
        let key: string;
        before(async () => {
          key = (await server.createApp(`schema${prefix.replace("/", "-")}`)).apiKey;
        });
        const post = (workflow: string, params: unknown) =>
          server.api("POST", `${prefix}/job`, { key, body: { name: "wf", workflow, params } });

        test("an unknown workflow slug → 404 WORKFLOW_NOT_FOUND", async () => {
          for (const slug of ["mixdown/nothing", "convert", "MIXDOWN/CONVERT", "mixdown/convert/"]) {
            const response = await post(slug, { inputUrl: INPUT, format: "mp3" });
            assert.equal(response.status, 404, `${slug}: ${JSON.stringify(response.body)}`);
            assert.equal(response.body.code, "WORKFLOW_NOT_FOUND", slug);
            assert.equal(typeof response.body.message, "string");
          }
        });

        test("params that match the schema are accepted with exactly 200", async () => {
          const accepted = [
            { inputUrl: INPUT, format: "mp3" },
            { inputUrl: INPUT, format: "wav", sampleRate: 96000, channels: 6 },
            { inputUrl: "http://example.com/a.flac", format: "flac", sampleRate: 8000 },
            { inputUrl: INPUT, format: "ogg", channels: 1 },
            { inputUrl: INPUT, format: "opus", sampleRate: 48000 },
            { inputUrl: INPUT, format: "opus" },
            { inputUrl: INPUT, format: "m4a", sampleRate: 44100, channels: 2 },
          ];
          for (const params of accepted) {
            const response = await post(CONVERT, params);
            assert.equal(response.status, 200, `${JSON.stringify(params)}: ${JSON.stringify(response.body)}`);
            assert.deepEqual(Object.keys(response.body), ["id"]);
          }
        });

        const rejected: [string, Record<string, unknown>, string][] = [
          ["missing inputUrl", { format: "mp3" }, "params.inputUrl"],
          ["missing format", { inputUrl: INPUT }, "params.format"],
          ["a format outside the enum", { inputUrl: INPUT, format: "aiff" }, "params.format"],
          ["an upper-case format", { inputUrl: INPUT, format: "MP3" }, "params.format"],
          ["a fractional sampleRate", { inputUrl: INPUT, format: "wav", sampleRate: 44100.5 }, "params.sampleRate"],
          ["a string sampleRate", { inputUrl: INPUT, format: "wav", sampleRate: "44100" }, "params.sampleRate"],
          ["opus at 44100 Hz", { inputUrl: INPUT, format: "opus", sampleRate: 44100 }, "params.sampleRate"],
          ["a non-http inputUrl", { inputUrl: "ftp://example.com/a.wav", format: "mp3" }, "params.inputUrl"],
          ["a numeric inputUrl", { inputUrl: 42, format: "mp3" }, "params.inputUrl"],
          ["an inputUrl without a host (http://)", { inputUrl: "http://", format: "mp3" }, "params.inputUrl"],
          ["an inputUrl without a host (https://)", { inputUrl: "https://", format: "mp3" }, "params.inputUrl"],
          ["an inputUrl on port 99999", { inputUrl: "http://127.0.0.1:99999/", format: "mp3" }, "params.inputUrl"],
          ["an inputUrl on port 0", { inputUrl: "http://example.com:0/a.wav", format: "mp3" }, "params.inputUrl"],
          ["zero channels", { inputUrl: INPUT, format: "wav", channels: 0 }, "params.channels"],
          ["an unknown parameter", { inputUrl: INPUT, format: "mp3", bitrate: 320 }, "params.bitrate"],
        ];
        for (const [what, params, field] of rejected) {
          test(`${what} → 422 INVALID_WORKFLOW_PARAMS with a detail for ${field}`, async () => {
            const response = await post(CONVERT, params);
            assert.equal(response.status, 422, JSON.stringify(response.body));
            assert.equal(response.body.code, "INVALID_WORKFLOW_PARAMS");
            assert.equal(typeof response.body.message, "string");
            const details = assertDetails(response);
            assert.ok(
              details.some((d) => d.field === field),
              `a detail with field ${field}: ${JSON.stringify(details)}`,
            );
            assert.ok(response.body.message.includes(field), `the message names ${field}: ${response.body.message}`);
          });
        }

        test("several violations are all listed", async () => {
          const response = await post(CONVERT, { format: "aiff", sampleRate: 1.5, channels: "two" });
          assert.equal(response.status, 422);
          const fields = assertDetails(response).map((d) => d.field);
          for (const field of ["params.inputUrl", "params.format", "params.sampleRate", "params.channels"]) {
            assert.ok(fields.includes(field), `${field} in ${JSON.stringify(fields)}`);
          }
        });

        test("refused params created no job", async () => {
          const list = await server.api("GET", `${prefix}/job?size=1000`, { key });
          assert.equal(list.status, 200);
          assert.equal(list.headers.get("x-total-count"), "7", "only the 7 accepted jobs exist");
          assert.equal(list.body.length, 7);
        });
      });
    }
  });
