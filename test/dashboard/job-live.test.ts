import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { after, before, test } from "node:test";
import type { Browser, Page } from "playwright-core";
import { sineWav } from "../helpers/audio.ts";
import { describeOrSkip } from "../helpers/backends.ts";
import { type AppInfo, assertNoneRunning, BACKENDS, MIXDOWN_BIN, Mixdown } from "../helpers/mixdown.ts";
import { chromiumUnavailable, launchChromium } from "./browser.ts";
import { OPERATOR_PASSWORD } from "./operator-session.ts";

function addOperator(server: Mixdown, name: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = execFile(MIXDOWN_BIN, ["user", "add", name, "--password-stdin"], {
      env: { ...process.env, ...server.env },
    });
    child.on("exit", (code) => (code === 0 ? resolve() : reject(new Error(`user add exited with ${code}`))));
    child.stdin?.end(`${OPERATOR_PASSWORD}\n`);
  });
}

// A job's page follows the job while it waits and runs, and shows its results once it ends, with nobody reloading.
for (const { backend, skip } of BACKENDS)
  describeOrSkip(`dashboard job page, live [${backend}]`, skip ?? chromiumUnavailable, () => {
    let server: Mixdown;
    let browser: Browser;
    let page: Page;
    let app: AppInfo;

    before(async () => {
      // No worker at first, so the job stays queued while the page is open.
      server = await Mixdown.start({ MIXDOWN_WORKERS: "0" }, { backend, workers: 0 });
      await addOperator(server, "admin");
      app = await server.createApp("Live");
      browser = await launchChromium();
      page = await browser.newPage();
      page.setDefaultTimeout(10_000);
      await page.goto(`${server.url}/dashboard/sign-in`);
      await page.getByLabel("Name").fill("admin");
      await page.getByLabel("Password").fill(OPERATOR_PASSWORD);
      await page.getByRole("button", { name: "Sign in" }).click();
      await page.waitForURL("**/dashboard/applications");
    });
    after(async () => {
      await browser?.close();
      await server?.dispose();
      assertNoneRunning();
    });

    test("a queued job's page turns into its results when a worker has run it", async () => {
      const input = await server.upload(app.apiKey, sineWav(1), "audio/wav");
      const id = await server.createJob(app.apiKey, "mixdown/convert", { inputUrl: input, format: "mp3" });
      await page.goto(`${server.url}/dashboard/jobs/${id}`);
      assert.equal((await page.locator(".facts .status").innerText()).trim(), "QUEUED");
      assert.equal(await page.locator("[data-live-src]").count(), 1);
      assert.equal(await page.locator("#results-heading").count(), 0);

      if (backend === "embedded") {
        server.env.MIXDOWN_WORKERS = "1";
        await server.stop();
        await server.launch();
      } else {
        await server.startWorker({ MIXDOWN_WORKERS: "1" });
      }

      await page.locator("#results-heading").waitFor({ timeout: 60_000 });
      assert.equal((await page.locator(".facts .status").innerText()).trim(), "SUCCEEDED");
      // Finished: the page no longer polls.
      assert.equal(await page.locator("[data-live-src]").count(), 0);
      assert.match(await page.locator(".job-results").innerText(), /output/);
    });

    test("the live fragment needs a session like every dashboard route", async () => {
      const response = await fetch(`${server.url}/dashboard/jobs/00000000-0000-4000-8000-000000000000/state`, {
        redirect: "manual",
      });
      assert.equal(response.status, 303);
      assert.match(response.headers.get("location") ?? "", /\/dashboard\/sign-in/);
    });
  });
