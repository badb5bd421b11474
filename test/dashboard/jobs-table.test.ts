import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import type { Browser, Page } from "playwright-core";
import { sineWav } from "../helpers/audio.ts";
import { describeOrSkip } from "../helpers/backends.ts";
import { type AppInfo, BACKENDS, Mixdown } from "../helpers/mixdown.ts";
import { assertAccessible, chromiumUnavailable, closeBrowserAndServer, openPage, screenshot } from "./browser.ts";
import { addOperator, OPERATOR_PASSWORD } from "./operator-session.ts";

const XSS_NAME = "<img src=x onerror=alert(1)>";
/** A loopback input: refused when the job runs (BAD_INPUT), so such jobs fail at once. */
const REFUSED_INPUT = "http://127.0.0.1:9/refused.wav";

for (const { backend, skip } of BACKENDS)
  describeOrSkip(`dashboard jobs table [${backend}]`, skip ?? chromiumUnavailable, () => {
    let server: Mixdown;
    let browser: Browser;
    let page: Page;
    let labelA: AppInfo;
    let labelB: AppInfo;
    const created: string[] = [];
    const dialogs: string[] = [];

    const rowIds = () =>
      page.locator("#results tbody tr").evaluateAll((rows) => rows.map((r) => r.getAttribute("data-job-id")));
    const open = async (query: string) => {
      await page.goto(`${server.url}/dashboard/jobs${query}`);
      return rowIds();
    };
    const job = async (app: AppInfo, name: string, extra: Record<string, unknown> = {}, inputUrl = REFUSED_INPUT) => {
      const id = await server.createJob(app.apiKey, "mixdown/convert", { inputUrl, format: "mp3" }, { name, ...extra });
      created.push(id);
      return id;
    };

    before(async () => {
      server = await Mixdown.start({ MIXDOWN_WORKERS: "1" }, { backend, workers: 1 });
      await addOperator(server, "admin");
      labelA = await server.createApp("Label A");
      labelB = await server.createApp("Label B");
      ({ browser, page } = await openPage({ viewport: { width: 1280, height: 900 } }));
      page.on("dialog", (dialog) => {
        dialogs.push(dialog.message());
        void dialog.dismiss();
      });
      await page.goto(`${server.url}/dashboard/sign-in`);
      await page.getByLabel("Name").fill("admin");
      await page.getByLabel("Password").fill(OPERATOR_PASSWORD);
      await page.getByRole("button", { name: "Sign in" }).click();
      await page.waitForURL("**/dashboard/applications");

      for (let i = 1; i <= 3; i++) await job(labelA, `alpha ${i}`, { batchName: "first" });
      await job(labelB, XSS_NAME);
      const input = await server.upload(labelB.apiKey, sineWav(0.5), "audio/wav");
      await job(labelB, "beta good", {}, input);
      // The first three are Label A's.
      for (const [i, id] of created.entries()) await server.waitForJob((i < 3 ? labelA : labelB).apiKey, id);
    });
    after(() => closeBrowserAndServer(browser, server));

    test("one table across applications, newest first, statuses and errors shown, markup as text", async () => {
      assert.deepEqual(await open(""), [...created].reverse());
      const good = page.locator(`tr[data-job-id="${created[4]}"]`);
      assert.match(await good.innerText(), /beta good\s[\s\S]*SUCCEEDED[\s\S]*Label B[\s\S]*mixdown\/convert/);
      assert.match(await page.locator(`tr[data-job-id="${created[0]}"]`).innerText(), /FAILED\s+BAD_INPUT/);
      assert.equal(await page.locator(".job-name", { hasText: XSS_NAME }).count(), 1);
      assert.equal(await page.locator('img[src="x"]').count(), 0);
      assert.deepEqual(dialogs, []);
      await assertAccessible(page, "jobs");
      if (backend === "embedded") await screenshot(page, "dashboard-jobs");
    });

    test("filters by application, status, workflow and batch, through the form", async () => {
      await page.goto(`${server.url}/dashboard/jobs`);
      await page.getByLabel("Application").selectOption({ label: "Label B" });
      await page.getByRole("button", { name: "Filter" }).click();
      await page.waitForURL(/app=/);
      assert.deepEqual(await rowIds(), [created[4], created[3]]);

      assert.deepEqual(await open("?status=SUCCEEDED"), [created[4]]);
      assert.deepEqual(await open(`?status=FAILED&app=${labelA.id}`), [created[2], created[1], created[0]]);
      assert.deepEqual(await open("?workflow=mixdown/convert&batch=first"), [created[2], created[1], created[0]]);
      assert.deepEqual(await open("?workflow=mixdown/probe"), []);
      assert.match(await page.locator("main").innerText(), /No jobs match these filters/);
    });

    test("a filter from a link that names nothing known is shown, said, and removable: never an 'All' that hides it", async () => {
      const gone = "00000000-0000-4000-8000-000000000000";
      assert.deepEqual(await open(`?app=${gone}&batch=first`), []);
      const app = page.getByLabel("Application");
      assert.equal(await app.inputValue(), gone);
      assert.equal(await app.locator("option:checked").innerText(), `(unknown: ${gone})`);
      const notice = page.locator(".notice");
      assert.match(await notice.innerText(), new RegExp(`No application has the id ${gone}`));
      await notice.getByRole("link", { name: "Remove this filter" }).click();
      await page.waitForURL((url) => !url.search.includes("app="));
      assert.match(page.url(), /\?batch=first$/, "the other filters stay");
      assert.deepEqual(await rowIds(), [created[2], created[1], created[0]]);
      assert.equal(await page.locator(".notice").count(), 0);

      assert.deepEqual(await open("?workflow=my/removed"), []);
      assert.equal(await page.getByLabel("Workflow").inputValue(), "my/removed");
      assert.equal(
        await page.getByLabel("Workflow").locator("option:checked").innerText(),
        "my/removed (not installed)",
      );
      assert.match(await page.locator(".notice").innerText(), /No workflow my\/removed is installed/);

      // A status that is none is not applied, and the page says so.
      assert.equal((await open("?status=DONE")).length, created.length);
      assert.equal(await page.getByLabel("Status").locator("option:checked").innerText(), "(unknown: DONE)");
      assert.match(await page.locator(".notice").innerText(), /There is no job status DONE/);
      await assertAccessible(page, "jobs with unknown filters");
    });

    test("search by name (case-insensitive, wildcards taken literally) or by id", async () => {
      assert.deepEqual(await open("?q=ALPHA%202"), [created[1]]);
      assert.deepEqual(await open(`?q=${created[3]}`), [created[3]]);
      assert.deepEqual(await open("?q=%25"), []);
      assert.deepEqual(await open("?q=alpha_"), []);
      await page.goto(`${server.url}/dashboard/jobs`);
      await page.getByLabel("Name or id").fill("beta");
      await page.getByRole("button", { name: "Filter" }).click();
      await page.waitForURL(/q=beta/);
      assert.deepEqual(await rowIds(), [created[4]]);
    });

    test("paginated by 50, with links that keep the filters", async () => {
      const bulk: string[] = [];
      for (let i = 0; i < 52; i++)
        bulk.push(
          await server.createJob(
            labelA.apiKey,
            "mixdown/convert",
            { inputUrl: REFUSED_INPUT, format: "mp3" },
            { name: `bulk ${i}`, batchName: "bulk" },
          ),
        );
      const first = await open("?batch=bulk");
      assert.deepEqual(first, bulk.slice(2).reverse());
      assert.match(await page.locator(".summary").innerText(), /Jobs 1–50 of 52/);
      await page.getByRole("link", { name: "Older →" }).click();
      await page.waitForURL(/page=2/);
      assert.ok(page.url().includes("batch=bulk"));
      assert.deepEqual(await rowIds(), bulk.slice(0, 2).reverse());
      assert.match(await page.locator(".pager").innerText(), /Page 2 of 2/);
      await page.getByRole("link", { name: "← Newer" }).click();
      await page.waitForURL((url) => !url.search.includes("page="));
      assert.equal((await rowIds()).length, 50);
      for (const id of bulk) await server.waitForJob(labelA.apiKey, id);
    });

    test("a job's page: timeline, error, results to download, parameters; delete after confirmation", async () => {
      await open(`?app=${labelB.id}`);
      await page.getByRole("link", { name: "beta good" }).click();
      await page.getByRole("heading", { name: "beta good" }).waitFor();
      const main = await page.locator("main").innerText();
      assert.match(main, /SUCCEEDED/);
      assert.match(main, /Label B/);
      assert.match(main, /Completed\s+\d{4}-\d\d-\d\d [\d:]+ UTC\s+ran [\d.]+ s/);
      assert.match(main, /"format": "mp3"/);
      const download = page.getByRole("link", { name: "Download" });
      const response = await fetch(String(await download.getAttribute("href")));
      assert.equal(response.status, 200);
      assert.ok((await response.arrayBuffer()).byteLength > 1000);
      await assertAccessible(page, "job");
      if (backend === "embedded") await screenshot(page, "dashboard-job");

      await page.goto(`${server.url}/dashboard/jobs/${created[3]}`);
      assert.equal(await page.getByRole("heading", { name: XSS_NAME }).count(), 1);
      assert.match(await page.locator(".error-card").innerText(), /BAD_INPUT/);
      assert.deepEqual(dialogs, []);

      await page.getByRole("link", { name: "Delete…" }).click();
      await page.getByRole("button", { name: "Delete job" }).click();
      await page.waitForURL("**/dashboard/jobs");
      assert.equal((await server.api("GET", `/v1/job/${created[3]}`, { key: labelB.apiKey })).status, 404);
      assert.equal((await page.goto(`${server.url}/dashboard/jobs/${created[3]}`))?.status(), 404);
    });

    test("rows update live: a new job appears and reaches its end without a reload", async () => {
      await open(`?app=${labelB.id}`);
      await page.evaluate(() => {
        (window as unknown as { notReloaded: boolean }).notReloaded = true;
      });
      const input = await server.upload(labelB.apiKey, sineWav(0.5), "audio/wav");
      const id = await job(labelB, "live one", {}, input);
      const row = page.locator(`tr[data-job-id="${id}"]`);
      await row.waitFor({ timeout: 15_000 });
      await page.locator(`tr[data-job-id="${id}"] .status.succeeded`).waitFor({ timeout: 30_000 });
      assert.equal(await page.evaluate(() => (window as unknown as { notReloaded?: boolean }).notReloaded), true);
    });
  });
