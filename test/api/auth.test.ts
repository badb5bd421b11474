import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { describeOrSkip } from "../helpers/backends.ts";
import { tableRows } from "../helpers/inspect.ts";
import { type AppInfo, assertNoneRunning, BACKENDS, Mixdown } from "../helpers/mixdown.ts";

const PREFIXES = ["/v1", "/api"];
const ENDPOINTS: [string, string][] = [
  ["GET", "/upload"],
  ["GET", "/job"],
  ["POST", "/job"],
  ["GET", "/job/00000000-0000-4000-8000-000000000000"],
  ["GET", "/job/00000000-0000-4000-8000-000000000000/status"],
  ["DELETE", "/job/00000000-0000-4000-8000-000000000000"],
  ["GET", "/workflow"],
  ["GET", "/application"],
];

for (const { backend, skip } of BACKENDS)
  describeOrSkip(`authentication and applications [${backend}]`, skip, () => {
    let server: Mixdown;
    let app: AppInfo;
    before(async () => {
      server = await Mixdown.start({}, { backend });
      app = await server.createApp("first");
    });
    after(async () => {
      await server.dispose();
      assertNoneRunning();
    });

    for (const prefix of PREFIXES) {
      for (const [method, path] of ENDPOINTS) {
        test(`${method} ${prefix}${path} without a key or with a wrong one answers 401 JSON`, async () => {
          const last = app.apiKey.at(-1) === "A" ? "B" : "A";
          const oneCharOff = `${app.apiKey.slice(0, -1)}${last}`;
          for (const key of [undefined, "", "mxd_wrong", `Bearer ${oneCharOff}`, `Basic ${app.apiKey}`, oneCharOff]) {
            const response = await server.api(method, `${prefix}${path}`, {
              key,
              body: method === "POST" ? {} : undefined,
            });
            assert.equal(response.status, 401, `key ${key}`);
            assert.equal(response.body.code, "UNAUTHORIZED");
            assert.equal(typeof response.body.message, "string");
          }
        });
      }

      test(`GET ${prefix}/application answers the key's application, the key sent alone or after Bearer`, async () => {
        for (const key of [app.apiKey, `Bearer ${app.apiKey}`]) {
          const response = await server.api("GET", `${prefix}/application`, { key });
          assert.equal(response.status, 200, key);
          assert.deepEqual(response.body, { id: app.id, name: "first" });
        }
        const scheme = await server.api("GET", `${prefix}/application`, { key: `Token ${app.apiKey}` });
        assert.equal(scheme.status, 401);
        assert.match(scheme.body.message, /without a scheme/);
      });
    }

    test("app create --json prints exactly id, name and apiKey; the key is random, prefixed and long", async () => {
      const other = await server.createApp("second");
      assert.deepEqual(Object.keys(other).sort(), ["apiKey", "id", "name"]);
      assert.match(other.apiKey, /^mxd_[A-Za-z0-9_-]{43}$/);
      assert.notEqual(other.apiKey, app.apiKey);
    });

    test("the key is stored only as a hash", async () => {
      const rows = await tableRows(server, "applications");
      assert.ok(rows.some((row) => row.id === app.id));
      const dump = JSON.stringify(rows);
      assert.ok(!dump.includes(app.apiKey));
      assert.ok(!dump.includes(app.apiKey.slice(4)));
    });

    test("app rotate-key replaces the key at once; app revoke disables it; app list shows both", async () => {
      const victim = await server.createApp("victim");
      const rotated = await server.cli(["app", "rotate-key", victim.id, "--json"]);
      assert.equal(rotated.code, 0, rotated.stderr);
      const newKey = JSON.parse(rotated.stdout).apiKey as string;
      assert.equal((await server.api("GET", "/v1/application", { key: victim.apiKey })).status, 401);
      assert.equal((await server.api("GET", "/v1/application", { key: newKey })).status, 200);
      const revoked = await server.cli(["app", "revoke", victim.id]);
      assert.equal(revoked.code, 0, revoked.stderr);
      assert.equal((await server.api("GET", "/v1/application", { key: newKey })).status, 401);
      const list = JSON.parse((await server.cli(["app", "list", "--json"])).stdout) as {
        id: string;
        revokedAt: string | null;
      }[];
      assert.ok(list.find((a) => a.id === victim.id)?.revokedAt);
      assert.equal(list.find((a) => a.id === app.id)?.revokedAt, null);
      const again = await server.cli(["app", "revoke", victim.id]);
      assert.equal(again.code, 2);
      assert.match(again.stderr, /no active application/);
    });

    test("CLI: --help on every command, clear errors for bad usage", async () => {
      for (const args of [["--help"], ["serve", "--help"], ["app", "--help"], ["app", "create", "--help"]]) {
        const result = await server.cli(args);
        assert.equal(result.code, 0);
        assert.match(result.stdout, /Usage: mixdown/);
      }
      const missing = await server.cli(["app", "create"]);
      assert.equal(missing.code, 2);
      assert.match(missing.stderr, /--name/);
      const unknown = await server.cli(["frobnicate"]);
      assert.equal(unknown.code, 2);
      assert.match(unknown.stderr, /unknown command/);
    });

    test("a bad configuration value stops the server with a message naming the variable", async () => {
      for (const [name, value] of [
        ["PORT", "eighty"],
        ["MIXDOWN_ALLOW_PRIVATE_URLS", "maybe"],
        ["MIXDOWN_MAX_UPLOAD_BYTES", "-5"],
        ["MIXDOWN_PUBLIC_URL", "ftp://x"],
        ["MIXDOWN_S3_UPLOAD_URLS", "sometimes"],
      ]) {
        const result = await server.cli(["serve"], { [name as string]: value as string });
        assert.equal(result.code, 2, name);
        assert.match(result.stderr, new RegExp(`configuration error: ${name}`));
      }
    });

    test("a node started on a port already in use stops with a message naming PORT", async () => {
      const role = backend === "embedded" ? "all" : "worker";
      const result = await server.cli(["serve", "--role", role], { PORT: String(server.port) });
      assert.equal(result.code, 2);
      assert.match(result.stderr, new RegExp(`configuration error: PORT ${server.port} is already in use`));
    });

    test("unknown routes answer a JSON 404; /healthz needs no key", async () => {
      const missing = await server.api("GET", "/v1/nothing-here", { key: app.apiKey });
      assert.equal(missing.status, 404);
      assert.equal(missing.body.code, "NOT_FOUND");
      assert.equal((await server.api("GET", "/elsewhere")).status, 404);
      assert.deepEqual((await server.api("GET", "/healthz")).body, { status: "ok" });
    });
  });
