import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import type { Browser, Page } from "playwright-core";
import { sineWav } from "../helpers/audio.ts";
import { describeOrSkip } from "../helpers/backends.ts";
import { type AppInfo, BACKENDS, Mixdown } from "../helpers/mixdown.ts";
import { chromiumUnavailable, closeBrowserAndServer, openSignedInPage } from "./browser.ts";

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
      app = await server.createApp("Live");
      ({ browser, page } = await openSignedInPage(server));
    });
    after(() => closeBrowserAndServer(browser, server));

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
