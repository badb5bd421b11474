import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { after, before, test } from "node:test";
import type { Browser, Page } from "playwright-core";
import { describeOrSkip } from "../helpers/backends.ts";
import { type AppInfo, Mixdown } from "../helpers/mixdown.ts";
import {
  assertAccessible,
  chromiumUnavailable,
  closeBrowserAndServer,
  openSignedInPage,
  screenshot,
} from "./browser.ts";
import { csrfTokenOf } from "./operator-session.ts";

const BROKEN = `slug: test/double-up
name: Double up
description: Converts twice, mixes the copies, measures the mix.
inputSchema: { type: object, required: [inputUrl], properties: { inputUrl: { type: string } } }
steps:
  - { id: input, module: fetch, inputs: { url: $params.inputUrl } }
  - { id: left, module: no-such-module, inputs: { audio: $steps.input.file } }
  - { id: right, module: convert, params: { format: flac }, inputs: { audio: $steps.input.file } }
  - { id: sum, module: mix, inputs: { a: $steps.left.audio, b: $steps.right.audio } }
  - { id: loudness, module: loudness, inputs: { audio: $steps.sum.audio } }
outputs: { mixed: $steps.sum.audio, loudness: $steps.nowhere.integratedLoudness }
`;
const VALID = BROKEN.replace("module: no-such-module", "module: convert, params: { format: wav }").replace(
  "$steps.nowhere.",
  "$steps.loudness.",
);

/** A valid custom workflow that cannot run here: its step needs a model file the server does not have. */
const NEEDS_MODEL = {
  slug: "test/needs-model",
  name: "Needs a model",
  description: "Separation with a model that is not installed.",
  inputSchema: { type: "object", required: ["inputUrl"], properties: { inputUrl: { type: "string" } } },
  steps: [
    { id: "input", module: "fetch", inputs: { url: "$params.inputUrl" } },
    {
      id: "separate",
      module: "stems-vocals",
      params: { method: "model", model: "absent.onnx" },
      inputs: { audio: "$steps.input.file" },
    },
  ],
  outputs: { vocals: "$steps.separate.vocals" },
};

const apiSlugs = async (server: Mixdown, app: AppInfo) =>
  ((await server.api("GET", "/v1/workflow?size=100", { key: app.apiKey })).body.workflows as { slug: string }[]).map(
    (wf) => wf.slug,
  );

describeOrSkip("workflows in the dashboard [embedded]", chromiumUnavailable, () => {
  let server: Mixdown;
  let browser: Browser;
  let page: Page;
  let app: AppInfo;

  before(async () => {
    server = await Mixdown.start({ MIXDOWN_WORKERS: "0" });
    app = await server.createApp("Studio");
    ({ browser, page } = await openSignedInPage(server, { viewport: { width: 1200, height: 800 } }));
  });
  after(() => closeBrowserAndServer(browser, server));

  test("without a session, every run and workflow route redirects to sign-in, and an API key is refused", async () => {
    const routes: [string, string][] = [
      ["GET", "/dashboard/run"],
      ["POST", "/dashboard/run"],
      ["POST", "/dashboard/run/upload-url"],
      ["GET", "/dashboard/workflows"],
      ["GET", "/dashboard/workflows/mixdown/convert"],
      ["GET", "/dashboard/workflows/solo"],
      ["GET", "/dashboard/workflow-editor"],
      ["POST", "/dashboard/workflow-editor"],
      ["POST", "/dashboard/workflow-editor/validate"],
      ["GET", "/dashboard/workflow-editor/test/x"],
      ["GET", "/dashboard/workflow-delete/test/x"],
      ["POST", "/dashboard/workflow-delete/test/x"],
    ];
    for (const [method, route] of routes) {
      const response = await fetch(`${server.url}${route}`, { method, redirect: "manual" });
      assert.equal(response.status, 303, `${method} ${route}`);
      const next = method === "GET" ? `?next=${encodeURIComponent(route)}` : "";
      assert.equal(response.headers.get("location"), `/dashboard/sign-in${next}`, `${method} ${route}`);
      const withKey = await fetch(`${server.url}${route}`, {
        method,
        redirect: "manual",
        headers: { authorization: app.apiKey },
      });
      assert.equal(withKey.status, 401, `${method} ${route} with an API key`);
    }
  });

  test("the list shows built-in and custom workflows, each runnable or not with the reason", async () => {
    const file = path.join(server.dataDir, "needs-model.json");
    fs.writeFileSync(file, JSON.stringify(NEEDS_MODEL));
    assert.equal((await server.cli(["workflow", "add", file])).code, 0);
    // A broken definition dropped into the directory by hand is listed with its errors.
    fs.mkdirSync(path.join(server.dataDir, "workflows"), { recursive: true });
    fs.writeFileSync(
      path.join(server.dataDir, "workflows", "test~broken.yaml"),
      BROKEN.replace("test/double-up", "test/broken").replace("name: Double up", "name: Broken by hand"),
    );

    await page.goto(`${server.url}/dashboard/workflows`);
    const builtIn = page.getByRole("region", { name: "Built-in workflows" });
    const convert = builtIn.getByRole("row", { name: /mixdown\/convert/ });
    assert.match(await convert.innerText(), /Convert audio\s+mixdown\/convert\s+runnable/);
    const apiBuiltIns = (await apiSlugs(server, app)).filter((slug) => slug.startsWith("mixdown/"));
    assert.equal(await builtIn.locator("tbody tr").count(), apiBuiltIns.length);

    const custom = page.getByRole("region", { name: "Custom workflows" });
    const unavailable = await custom.getByRole("row", { name: /test\/needs-model/ }).innerText();
    assert.match(unavailable, /unavailable/);
    assert.match(
      unavailable,
      /steps\[1\]: module "stems-vocals" cannot run here: model file absent\.onnx is not in the models directory/,
    );
    const broken = await custom.getByRole("row", { name: /test\/broken/ }).innerText();
    assert.match(broken, /\d errors?/);
    assert.match(broken, /unknown module "no-such-module"|no-such-module/);
    assert.match(await page.locator(".notice").innerText(), new RegExp(`${server.dataDir}/workflows`));
    await assertAccessible(page, "workflows");
    await screenshot(page, "dashboard-workflows");
    assert.equal((await server.cli(["workflow", "remove", "test/broken"])).code, 0);

    // The run page offers it disabled, and says why when it is asked for by name.
    await page.goto(`${server.url}/dashboard/run?app=${app.id}&workflow=test/needs-model`);
    assert.equal(await page.locator('#run-workflow option[value="test/needs-model"]').isDisabled(), true);
    assert.match(
      await page.getByRole("alert").innerText(),
      /cannot run on this server:\s+steps\[1\]: module "stems-vocals"/,
    );
    assert.equal(await page.locator("form.run-form").count(), 0);
  });

  test("a workflow page: description, parameters, outputs, and its steps drawn as a graph", async () => {
    await page.goto(`${server.url}/dashboard/workflows`);
    await page.getByRole("link", { name: "Beats and chords" }).click();
    await page.waitForURL("**/dashboard/workflows/mixdown/beats-chords");
    await page.getByRole("heading", { name: "Beats and chords" }).waitFor();
    assert.match(await page.locator(".lead").innerText(), /beat map/);
    const param = await page
      .getByRole("region", { name: "Parameters" })
      .getByRole("row", { name: /inputUrl/ })
      .innerText();
    assert.match(param, /inputUrl\s+string\s+required/);
    // The outputs, as the API describes them.
    const described = await server.api("GET", "/v1/workflow/mixdown/beats-chords", { key: app.apiKey });
    const outputs = await page.getByRole("region", { name: "Outputs" }).locator("tbody tr").allInnerTexts();
    assert.deepEqual(
      outputs.map((row) => row.split("\t")[0]),
      Object.keys(described.body.outputs),
    );
    const steps = await page.getByRole("region", { name: "Steps" }).locator("tbody tr").allInnerTexts();
    assert.deepEqual(
      steps.map((row) => row.split("\t").slice(0, 2).join(" ")),
      (described.body.steps as { id: string; module: string }[]).map((step) => `${step.id} ${step.module}`),
    );
    assert.equal(await page.getByRole("link", { name: "Edit" }).count(), 0, "built-ins are not editable");
    await assertAccessible(page, "workflow");

    // A built-in is a starting point: copied into the editor under a slug of the operator's.
    await page.getByRole("link", { name: "Copy as a new workflow" }).click();
    await page.waitForURL("**/dashboard/workflow-editor?from=mixdown%2Fbeats-chords");
    assert.match(await page.getByLabel("Definition").inputValue(), /^slug: my\/beats-chords$/m);
    await page.locator(".validation.valid", { hasText: "my/beats-chords" }).waitFor();

    // The graph of a known workflow: param → input → separate → result.
    await page.goto(`${server.url}/dashboard/workflows/test/needs-model`);
    const nodes = await page.locator(".graph g.node").evaluateAll((gs) => gs.map((g) => g.getAttribute("data-node")));
    assert.deepEqual(nodes, ["param:inputUrl", "step:input", "step:separate", "output:vocals"]);
    const edges = await page
      .locator(".graph path.edge")
      .evaluateAll((ps) => ps.map((p) => `${p.getAttribute("data-from")}>${p.getAttribute("data-to")}`));
    assert.deepEqual(edges.sort(), [
      "param:inputUrl>step:input",
      "step:input>step:separate",
      "step:separate>output:vocals",
    ]);
    // Each box sits in the column after the one it reads.
    const columns = await page
      .locator(".graph g.node")
      .evaluateAll((gs) => gs.map((g) => Number(/translate\(([\d.]+),/.exec(g.getAttribute("transform") ?? "")?.[1])));
    assert.deepEqual(
      columns,
      [...columns].sort((a, b) => a - b),
      String(columns),
    );
    assert.equal(new Set(columns).size, 4, String(columns));
    assert.match((await page.locator(".graph desc").textContent()) ?? "", /step separate \(stems-vocals\) reads input/);
    assert.equal(await page.getByRole("link", { name: "Edit" }).count(), 1, "custom ones are");
  });

  test("the editor lists the validator's errors as the operator types, the same as `workflow validate`", async () => {
    await page.goto(`${server.url}/dashboard/workflows`);
    await page.getByRole("link", { name: "New custom workflow" }).click();
    await page.waitForURL("**/dashboard/workflow-editor");
    await page.locator(".validation.valid").waitFor(); // the starter text is a valid workflow
    await page.getByLabel("Definition").fill(BROKEN);

    const file = path.join(server.dataDir, "broken.yaml");
    fs.writeFileSync(file, BROKEN);
    const cli = await server.cli(["workflow", "validate", "--json", file]);
    assert.equal(cli.code, 1);
    const expected = (JSON.parse(cli.stdout).errors as { field: string; message: string }[]).map(
      (e) => `${e.field}: ${e.message}`,
    );
    assert.ok(expected.length >= 2, cli.stdout);
    await page
      .locator(".validation-errors li")
      .nth(expected.length - 1)
      .waitFor();
    assert.deepEqual(await page.locator(".validation-errors li").allInnerTexts(), expected);
    assert.equal(
      await page
        .locator("#validation")
        .innerText()
        .then((t) => t.split("\n")[0]),
      `${expected.length} errors:`,
    );
    await assertAccessible(page, "workflow editor with errors");
    await screenshot(page, "dashboard-workflow-editor");

    // Saving anyway is refused, and the text stays as typed.
    await page.getByRole("button", { name: "Save workflow" }).click();
    await page.getByRole("alert").filter({ hasText: "Not saved" }).waitFor();
    assert.equal(await page.getByLabel("Definition").inputValue(), BROKEN);
    assert.ok(!(await apiSlugs(server, app)).includes("test/double-up"));

    // JSON works too: the same definition as JSON, with a syntax error, then fixed.
    await page.getByLabel("Format").selectOption("json");
    await page.getByLabel("Definition").fill('{"slug": "test/x",');
    await page.locator(".validation-errors li", { hasText: /^file: is not valid JSON/ }).waitFor();
  });

  test("a valid definition saves (installs): it is then in the list and in the API; then it is deleted", async () => {
    await page.goto(`${server.url}/dashboard/workflow-editor`);
    await page.getByLabel("Definition").fill(VALID);
    await page.locator(".validation.valid", { hasText: "Valid workflow test/double-up." }).waitFor();
    await page.getByRole("button", { name: "Save workflow" }).click();
    await page.waitForURL("**/dashboard/workflows/test/double-up");
    assert.match(await page.locator(".facts").innerText(), /custom/);
    assert.equal(await page.locator(".graph g.node").count(), 8, "1 param, 5 steps, 2 results");
    assert.equal(await page.locator(".graph path.edge").count(), 8);
    await assertAccessible(page, "custom workflow");
    await screenshot(page, "dashboard-workflow");
    assert.ok((await apiSlugs(server, app)).includes("test/double-up"));
    const listed = JSON.parse((await server.cli(["workflow", "list", "--json"])).stdout) as { slug: string }[];
    assert.ok(
      listed.some((wf) => wf.slug === "test/double-up"),
      "installed where the CLI installs",
    );

    // Its text can be edited again, as saved.
    await page.getByRole("link", { name: "Edit" }).click();
    await page.waitForURL("**/dashboard/workflow-editor/test/double-up");
    assert.equal(await page.getByLabel("Definition").inputValue(), VALID);

    await page.goto(`${server.url}/dashboard/workflows`);
    assert.equal(
      await page
        .getByRole("region", { name: "Custom workflows" })
        .getByRole("row", { name: /test\/double-up/ })
        .count(),
      1,
    );

    await page.goto(`${server.url}/dashboard/workflows/test/double-up`);
    await page.getByRole("link", { name: "Delete…" }).click();
    await page.getByRole("heading", { name: "Delete the workflow test/double-up?" }).waitFor();
    await assertAccessible(page, "confirm delete workflow");
    await page.getByRole("button", { name: "Delete workflow" }).click();
    await page.waitForURL("**/dashboard/workflows");
    assert.equal(await page.getByRole("row", { name: /test\/double-up/ }).count(), 0);
    assert.ok(!(await apiSlugs(server, app)).includes("test/double-up"));
    for (const gone of ["workflows", "workflow-editor", "workflow-delete"]) {
      const response = await page.goto(`${server.url}/dashboard/${gone}/test/double-up`);
      assert.equal(response?.status(), 404, gone);
      assert.match(await page.locator("main").innerText(), /test\/double-up/);
    }
    // Built-ins cannot be edited or deleted here either.
    assert.equal((await page.goto(`${server.url}/dashboard/workflow-editor/mixdown/convert`))?.status(), 404);
  });

  test("the editor's posts need the session's CSRF token", async () => {
    await page.goto(`${server.url}/dashboard/workflows`);
    const definition = VALID.replace("test/double-up", "test/forged");
    for (const token of [undefined, "A".repeat(43)]) {
      const form = { text: definition, format: "yaml", ...(token ? { _csrf: token } : {}) };
      const save = await page.request.post(`${server.url}/dashboard/workflow-editor`, { form, maxRedirects: 0 });
      assert.equal(save.status(), 403);
      const validate = await page.request.post(`${server.url}/dashboard/workflow-editor/validate`, {
        data: { text: definition, format: "yaml" },
        headers: token ? { "x-csrf-token": token } : {},
      });
      assert.equal(validate.status(), 403);
      const remove = await page.request.post(`${server.url}/dashboard/workflow-delete/test/needs-model`, {
        form: token ? { _csrf: token } : {},
        maxRedirects: 0,
      });
      assert.equal(remove.status(), 403);
    }
    const slugs = await apiSlugs(server, app);
    assert.ok(!slugs.includes("test/forged"));
    assert.ok(slugs.includes("test/needs-model"), "not deleted");

    // With the token, the validate endpoint answers as `workflow validate --json` does.
    const answer = await page.request.post(`${server.url}/dashboard/workflow-editor/validate`, {
      data: { text: definition, format: "yaml" },
      headers: { "x-csrf-token": await csrfTokenOf(page) },
    });
    assert.deepEqual(await answer.json(), { slug: "test/forged", valid: true, errors: [] });
  });
});
