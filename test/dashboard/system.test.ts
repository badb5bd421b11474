import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, before, test } from "node:test";
import { setTimeout as delay } from "node:timers/promises";
import { ListObjectsV2Command, S3Client } from "@aws-sdk/client-s3";
import type { Browser, Page } from "playwright-core";
import { sineWav } from "../helpers/audio.ts";
import { describeOrSkip } from "../helpers/backends.ts";
import { startStallingFixture } from "../helpers/http-fixture.ts";
import { tableRows } from "../helpers/inspect.ts";
import { BACKENDS, Mixdown } from "../helpers/mixdown.ts";
import { assertAccessible, chromiumUnavailable, closeBrowserAndServer, openPage, screenshot } from "./browser.ts";
import { addOperator, OPERATOR_PASSWORD } from "./operator-session.ts";

/** Secrets the page must never show, in any form. */
const DB_PASSWORD = `pw-${randomBytes(9).toString("hex")}`;
/** A loopback port nothing listens on: such an input fails at once (BAD_INPUT). */
const REFUSED_INPUT = "http://127.0.0.1:9/refused.wav";

/** What the blob store holds, counted independently of Mixdown: every file under blobs/, or every object. */
async function storedBytes(server: Mixdown): Promise<number> {
  if (server.backend === "embedded") {
    const root = path.join(server.dataDir, "blobs");
    const files = fs.readdirSync(root, { recursive: true, withFileTypes: true }).filter((entry) => entry.isFile());
    return files.reduce((sum, entry) => sum + fs.statSync(path.join(entry.parentPath, entry.name)).size, 0);
  }
  const s3 = new S3Client({
    endpoint: server.env.MIXDOWN_S3_ENDPOINT,
    region: "us-east-1",
    forcePathStyle: true,
    credentials: {
      accessKeyId: server.env.MIXDOWN_S3_ACCESS_KEY_ID as string,
      secretAccessKey: server.env.MIXDOWN_S3_SECRET_ACCESS_KEY as string,
    },
  });
  const listed = await s3.send(new ListObjectsV2Command({ Bucket: server.env.MIXDOWN_S3_BUCKET }));
  return (listed.Contents ?? []).reduce((sum, object) => sum + (object.Size ?? 0), 0);
}

/**
 * Restarts the API node with a password in its database URL, in the user part and as a parameter (the test server's
 * trust authentication ignores both): the database is made when the deployment starts, so its URL is known only then.
 */
async function givePassword(server: Mixdown): Promise<void> {
  const url = new URL(server.env.MIXDOWN_DATABASE_URL as string);
  url.password = DB_PASSWORD;
  url.searchParams.set("password", DB_PASSWORD);
  await server.apiNode.stop();
  server.env.MIXDOWN_DATABASE_URL = url.toString();
  await server.apiNode.start(server.env, `${server.url}/healthz`);
}

for (const { backend, skip } of BACKENDS)
  describeOrSkip(`dashboard system page [${backend}]`, skip ?? chromiumUnavailable, () => {
    let server: Mixdown;
    let browser: Browser;
    let page: Page;
    let fixture: Awaited<ReturnType<typeof startStallingFixture>>;
    let html = "";

    before(async () => {
      fixture = await startStallingFixture(sineWav(1));
      const secret = randomBytes(24).toString("hex");
      server = await Mixdown.start(
        {
          MIXDOWN_WORKERS: "1",
          MIXDOWN_ALLOW_PRIVATE_URLS: "true",
          MIXDOWN_FETCH_TIMEOUT_MS: "60000",
          MIXDOWN_SECRET: secret,
        },
        { backend, workers: 1 },
      );
      if (backend === "distributed") await givePassword(server);
      await addOperator(server, "admin");

      const { apiKey } = await server.createApp("Label A");
      const convert = (inputUrl: string) => server.createJob(apiKey, "mixdown/convert", { inputUrl, format: "mp3" });
      const failed = [await convert(REFUSED_INPUT), await convert(REFUSED_INPUT), await convert(REFUSED_INPUT)];
      const input = await server.upload(apiKey, sineWav(0.5), "audio/wav");
      const good = await convert(input);
      for (const id of [...failed, good]) await server.waitForJob(apiKey, id);
      // One job runs (its input stalls) while the page is looked at.
      const running = await convert(`${fixture.url}/slow.wav`);
      for (let i = 0; ; i++) {
        const { body } = await server.api("GET", `/v1/job/${running}/status`, { key: apiKey });
        if (body.status === "STARTED") break;
        assert.ok(i < 200, "the stalled job did not start");
        await delay(100);
      }

      ({ browser, page } = await openPage({ viewport: { width: 1280, height: 900 } }));
      await page.goto(`${server.url}/dashboard/sign-in`);
      await page.getByLabel("Name").fill("admin");
      await page.getByLabel("Password").fill(OPERATOR_PASSWORD);
      await page.getByRole("button", { name: "Sign in" }).click();
      await page.waitForURL("**/dashboard/applications");
      // The first visit shows the figure, however late: counted since the server started, or arriving on the page
      // by itself while it is open (never "reload in a moment").
      await page.goto(`${server.url}/dashboard/system`);
      await page.locator("[data-storage-bytes]").waitFor({ timeout: 20_000 });
      html = await page.content();
    });
    after(async () => {
      fixture?.resume();
      await closeBrowserAndServer(browser, server, fixture);
    });

    test("jobs by status, queue depth, running per worker and failures match the store", async () => {
      const jobs = await tableRows(server, "jobs");
      const shown = async (selector: string) => Number((await page.locator(selector).textContent())?.replace(/,/g, ""));
      for (const status of ["QUEUED", "STARTED", "SUCCEEDED", "FAILED"]) {
        const stored = jobs.filter((job) => job.status === status).length;
        assert.equal(await shown(`td[data-status="${status}"]`), stored, status);
      }
      assert.deepEqual([await shown('td[data-status="SUCCEEDED"]'), await shown('td[data-status="FAILED"]')], [1, 3]);
      assert.equal(await shown('td[data-status="ALL"]'), jobs.length);
      assert.equal(await shown("td[data-queue-depth]"), 0);

      const worker = jobs.find((job) => job.status === "STARTED")?.worker_id as string;
      assert.match(worker, new RegExp(`^${os.hostname()}:\\d+:[0-9a-f]{8}$`));
      const workers = await page
        .locator("tr[data-worker]")
        .evaluateAll((rows) => rows.map((row) => [row.getAttribute("data-worker"), row.lastElementChild?.textContent]));
      assert.deepEqual(workers, [[worker, "1"]]);

      const failures = await page
        .locator("tr[data-error-code]")
        .evaluateAll((rows) => rows.map((row) => [row.getAttribute("data-error-code"), row.children[1]?.textContent]));
      assert.deepEqual(failures, [["BAD_INPUT", "3"]]);
    });

    test("storage used is what the blob store holds", async () => {
      // A figure is the count of a moment, which the page gives; a visit counts again once it is stale (5 s for a
      // store this small): the figure reaches what the store holds.
      const stored = await storedBytes(server);
      let shown = 0;
      for (let i = 0; i < 30 && shown !== stored; i++) {
        if (i > 0) await delay(1000);
        await page.goto(`${server.url}/dashboard/system`);
        await page.locator(".storage [data-live-done]").waitFor({ state: "attached", timeout: 20_000 });
        shown = Number(await page.locator("[data-storage-bytes]").getAttribute("data-storage-bytes"));
      }
      assert.ok(shown > 0);
      assert.equal(shown, stored);
      assert.match(
        await page.locator(".storage").innerText(),
        /\d+ files? \(uploads and job results\), counted \d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC in \d+ ms; counted again at a visit once \d+ (s|min) old\./,
      );
    });

    test("version, mode and configuration are shown; no secret appears anywhere", async () => {
      const text = await page.locator("main").innerText();
      const version = JSON.parse(fs.readFileSync(new URL("../../package.json", import.meta.url), "utf8")).version;
      assert.match(text, new RegExp(`Mixdown ${version.replaceAll(".", "\\.")}`));
      assert.match(text, backend === "embedded" ? /Mode\s+embedded/ : /Mode\s+distributed/);
      assert.match(text, /MIXDOWN_SECRET\s+set \(hidden\)/);
      assert.match(text, /MIXDOWN_WORKERS\s+1/);
      const secrets = [server.env.MIXDOWN_SECRET];
      if (backend === "distributed") {
        assert.match(text, /MIXDOWN_S3_SECRET_ACCESS_KEY\s+set \(hidden\)/);
        assert.match(text, /MIXDOWN_DATABASE_URL\s+postgres:\/\/postgres:hidden@127\.0\.0\.1/);
        assert.match(text, /MIXDOWN_S3_ACCESS_KEY_ID\s+set \(hidden\)/); // the test server's id is "mixdown": in any page
        secrets.push(DB_PASSWORD, server.env.MIXDOWN_S3_SECRET_ACCESS_KEY);
      }
      for (const secret of secrets) {
        assert.ok(secret && secret.length >= 8);
        assert.ok(!html.includes(secret), "a secret is in the page");
        assert.ok(!html.includes(encodeURIComponent(secret)), "a secret is in the page, URL-encoded");
      }
    });

    test("accessible, in the navigation, and pictured", async () => {
      await page.goto(`${server.url}/dashboard/jobs`);
      await page.getByRole("link", { name: "System" }).click();
      await page.waitForURL("**/dashboard/system");
      assert.equal(await page.getByRole("link", { name: "System" }).getAttribute("aria-current"), "page");
      await assertAccessible(page, "system");
      if (backend === "embedded") await screenshot(page, "dashboard-system");
    });
  });
