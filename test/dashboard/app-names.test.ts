import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import type { Browser, Locator, Page } from "playwright-core";
import { describeOrSkip } from "../helpers/backends.ts";
import { type AppInfo, Mixdown } from "../helpers/mixdown.ts";
import {
  assertAccessible,
  chromiumUnavailable,
  closeBrowserAndServer,
  openSignedInPage,
  screenshot,
} from "./browser.ts";

const LONG_NAME = "Northern Lights Recording Studio Mastering Department";

/** For each word of the element's text, on how many lines the browser laid it out (1: not broken inside). */
const linesPerWord = (element: Locator) =>
  element.evaluate((node) => {
    const text = node.firstChild;
    if (!text || text.nodeType !== Node.TEXT_NODE) throw new Error("no text in the element");
    const words: [string, number][] = [];
    for (const match of (text.textContent ?? "").matchAll(/\S+/g)) {
      const range = document.createRange();
      range.setStart(text, match.index);
      range.setEnd(text, match.index + match[0].length);
      const tops = new Set([...range.getClientRects()].map((rect) => Math.round(rect.top)));
      words.push([match[0], tops.size]);
    }
    return words;
  });

describeOrSkip("dashboard: applications of the same name, long names, the icon", chromiumUnavailable, () => {
  let server: Mixdown;
  let browser: Browser;
  let page: Page;
  let first: AppInfo;

  const appsNamed = async (pattern: RegExp) =>
    (JSON.parse((await server.cli(["app", "list", "--json"])).stdout) as { id: string; name: string }[]).filter((app) =>
      pattern.test(app.name),
    );

  before(async () => {
    server = await Mixdown.start({ MIXDOWN_WORKERS: "0" }, { workers: 0 });
    first = await server.createApp("Label Desk");
    ({ browser, page } = await openSignedInPage(server, { viewport: { width: 1200, height: 800 } }));
  });
  after(() => closeBrowserAndServer(browser, server));

  test("a name already taken is said before a second application gets it, and created only when confirmed", async () => {
    await page.goto(`${server.url}/dashboard/applications`);
    await page.getByLabel("Name").fill("  label   DESK ");
    const [response] = await Promise.all([
      page.waitForResponse((r) => r.request().method() === "POST"),
      page.getByRole("button", { name: "Create and show key" }).click(),
    ]);
    assert.equal(response.status(), 409);
    const warning = page.getByRole("alert");
    const text = await warning.innerText();
    assert.match(text, /An application named label DESK already exists/);
    assert.match(
      text,
      new RegExp(`Label Desk, created \\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d:\\d\\d UTC, id ${first.id.slice(0, 8)}…`),
    );
    assert.equal((await appsNamed(/desk/i)).length, 1, "nothing created yet");
    assert.equal(await page.getByLabel("Name").inputValue(), "label DESK", "the name typed is kept, to change");
    await assertAccessible(page, "name taken");
    await screenshot(page, "dashboard-name-taken");

    // Another name: no warning.
    await page.getByLabel("Name").fill("Label Desk B");
    await page.getByRole("button", { name: "Create and show key" }).click();
    await page.waitForURL(/\/key$/);

    // The same name, confirmed.
    await page.goto(`${server.url}/dashboard/applications`);
    await page.getByLabel("Name").fill("Label Desk");
    await page.getByRole("button", { name: "Create and show key" }).click();
    await page.getByRole("button", { name: "Create another “Label Desk”" }).click();
    await page.waitForURL(/\/key$/);
    assert.match(await page.locator("#api-key").inputValue(), /^mxd_/);
    assert.equal((await appsNamed(/^Label Desk$/)).length, 2);
  });

  test("applications of the same name are told apart: the start of the id, and the date in menus", async () => {
    const twins = await appsNamed(/^Label Desk$/);
    await page.goto(`${server.url}/dashboard/applications`);
    for (const twin of twins) {
      const cell = page.locator(`td.name:has(a[href$="${twin.id}"])`);
      assert.equal(await cell.innerText(), `Label Desk\n${twin.id.slice(0, 8)}… same name as another`);
    }
    const single = page.locator("td.name", { hasText: "Label Desk B" });
    assert.doesNotMatch(await single.innerText(), /same name/);

    const expected = twins.map(
      (twin) => `Label Desk (${new Date().toISOString().slice(0, 10)}, ${twin.id.slice(0, 8)})`,
    );
    await page.goto(`${server.url}/dashboard/run`);
    const runOptions = await page.getByLabel("Application").locator("option").allInnerTexts();
    assert.deepEqual(
      runOptions.filter((o) => o.startsWith("Label Desk (")),
      expected,
    );
    assert.ok(runOptions.includes("Label Desk B"));
    await page.goto(`${server.url}/dashboard/jobs`);
    const jobsOptions = await page.getByLabel("Application").locator("option").allInnerTexts();
    assert.deepEqual(
      jobsOptions.filter((o) => o.startsWith("Label Desk (")),
      expected,
    );
  });

  test("renaming to a name taken asks first too", async () => {
    const [b] = await appsNamed(/^Label Desk B$/);
    assert.ok(b);
    await page.goto(`${server.url}/dashboard/applications/${b.id}`);
    await page.getByRole("textbox", { name: "Name" }).fill("Label Desk");
    await page.getByRole("button", { name: "Rename", exact: true }).click();
    await page.getByRole("alert").filter({ hasText: "2 other applications named Label Desk already exist" }).waitFor();
    assert.equal((await appsNamed(/^Label Desk B$/)).length, 1, "not renamed yet");
    await page.getByRole("button", { name: "Rename to “Label Desk” anyway" }).click();
    await page.getByRole("heading", { name: "Label Desk", exact: true }).waitFor();
    assert.equal((await appsNamed(/^Label Desk$/)).length, 3);
  });

  test("tables wrap between words: a long application name, the parameters of a workflow", async () => {
    await server.createApp(LONG_NAME);
    await page.setViewportSize({ width: 900, height: 800 });
    await page.goto(`${server.url}/dashboard/applications`);
    const link = page.getByRole("link", { name: LONG_NAME });
    const words = await linesPerWord(link);
    assert.deepEqual(
      words.map(([, lines]) => lines),
      words.map(() => 1),
      `every word on one line: ${JSON.stringify(words)}`,
    );
    assert.ok(((await link.boundingBox())?.height ?? 0) > 30, "the name itself wraps, between its words");
    await assertAccessible(page, "applications with a long name");

    await page.goto(`${server.url}/dashboard/workflows/mixdown/stems-4`);
    const names = page.locator('[aria-label="Parameters"] tbody td:first-child code');
    assert.ok((await names.count()) >= 5);
    for (const name of await names.all()) {
      const [[word, lines] = ["", 0]] = await linesPerWord(name);
      assert.equal(lines, 1, `${word} is broken inside`);
    }
    await page.setViewportSize({ width: 1200, height: 800 });
  });

  test("a favicon, as SVG and as .ico, at the root and linked from every page", async () => {
    const ico = await fetch(`${server.url}/favicon.ico`);
    assert.equal(ico.status, 200);
    assert.equal(ico.headers.get("content-type"), "image/x-icon");
    const bytes = Buffer.from(await ico.arrayBuffer());
    assert.deepEqual([...bytes.subarray(0, 4)], [0, 0, 1, 0], "an icon resource");
    const svg = await fetch(`${server.url}/favicon.svg`);
    assert.equal(svg.status, 200);
    assert.equal(svg.headers.get("content-type"), "image/svg+xml");

    await page.goto(`${server.url}/dashboard/applications`);
    const links = await page.locator('link[rel="icon"]').evaluateAll((all) => all.map((l) => l.getAttribute("href")));
    assert.deepEqual(links, ["/favicon.ico", "/favicon.svg"]);
    // Chromium decodes both; the .ico is the tile with its white bars, transparent beyond the rounded corners.
    const drawn = await page.evaluate(async () => {
      const sample = async (src: string) => {
        const image = new Image();
        image.src = src;
        await image.decode();
        const canvas = document.createElement("canvas");
        canvas.width = 32;
        canvas.height = 32;
        const context = canvas.getContext("2d") as CanvasRenderingContext2D;
        context.drawImage(image, 0, 0, 32, 32);
        const at = (x: number, y: number) => [...context.getImageData(x, y, 1, 1).data];
        return { corner: at(0, 0), bar: at(21, 16), tile: at(3, 16) };
      };
      return { ico: await sample("/favicon.ico"), svg: await sample("/favicon.svg") };
    });
    for (const [kind, pixels] of Object.entries(drawn)) {
      assert.equal(pixels.corner[3], 0, `${kind}: the corner is transparent`);
      assert.ok(
        pixels.bar.slice(0, 3).every((c) => c > 230),
        `${kind}: a bar is white: ${pixels.bar}`,
      );
      const [r, g, b] = pixels.tile;
      assert.ok(
        Math.abs((r ?? 0) - 0x1f) < 8 && Math.abs((g ?? 0) - 0x3a) < 8 && Math.abs((b ?? 0) - 0x5f) < 8,
        `${kind}: the tile is navy: ${pixels.tile}`,
      );
    }
  });
});
