import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import type { Browser, Page } from "playwright-core";
import {
  assertAccessible,
  chromiumUnavailable,
  closeBrowserAndServer,
  openSignedInPage,
  screenshot,
} from "../dashboard/browser.ts";
import { sineWav } from "../helpers/audio.ts";
import { describeOrSkip } from "../helpers/backends.ts";
import { type AppInfo, Mixdown } from "../helpers/mixdown.ts";
import { startReceiver, verify } from "./receiver.ts";

describeOrSkip("dashboard: an application's webhooks", chromiumUnavailable, () => {
  let server: Mixdown;
  let browser: Browser;
  let page: Page;
  let app: AppInfo;
  let receiver: Awaited<ReturnType<typeof startReceiver>>;

  before(async () => {
    receiver = await startReceiver();
    server = await Mixdown.start({ MIXDOWN_ALLOW_PRIVATE_URLS: "true", MIXDOWN_WEBHOOK_RETRY_SCHEDULE: "0.2" });
    app = await server.createApp("Studio");
    ({ browser, page } = await openSignedInPage(server, { viewport: { width: 1200, height: 900 } }));
  });
  after(() => closeBrowserAndServer(browser, server, receiver));

  const webhooksPage = async () => {
    await page.goto(`${server.url}/dashboard/applications/${app.id}`);
    await page.getByRole("link", { name: "Webhooks", exact: true }).click();
    await page.waitForURL(`**/applications/${app.id}/webhooks`);
  };

  test("add an endpoint, get its secret once, see its deliveries verify, rotate and remove it", async () => {
    await webhooksPage();
    await page.getByLabel("Endpoint URL").fill("ftp://example.com/hook");
    await page.getByRole("button", { name: "Add endpoint" }).click();
    assert.match((await page.getByRole("alert").textContent()) ?? "", /must be an http or https URL/);

    await page.getByLabel("Endpoint URL").fill(`${receiver.url}/dash`);
    await page.getByRole("button", { name: "Add endpoint" }).click();
    const secret = await page.locator("#webhook-secret").inputValue();
    assert.match(secret, /^whsec_/);
    await assertAccessible(page, "webhook secret");

    const wav = await server.upload(app.apiKey, sineWav(0.5), "audio/wav");
    const id = await server.createJob(app.apiKey, "mixdown/convert", { inputUrl: wav, format: "wav" });
    const [delivered] = await receiver.waitFor("/dash", id, "job.succeeded");
    assert.equal(verify(secret, delivered as never).data.id, id);
    await receiver.waitFor("/dash", id, "job.started");

    await webhooksPage();
    const rows = page.locator("#deliveries-heading + p + table tbody tr");
    for (let i = 0; i < 50 && (await rows.count()) < 2; i++) await page.reload();
    assert.equal(await rows.count(), 2);
    assert.deepEqual((await rows.locator(".badge").allTextContents()).sort(), ["delivered", "delivered"]);
    assert.match((await rows.first().textContent()) ?? "", /200/);
    await assertAccessible(page, "webhooks");
    await screenshot(page, "dashboard-webhooks");

    await page.getByRole("button", { name: `Show secret of ${receiver.url}/dash` }).click();
    assert.equal(await page.locator("#webhook-secret").inputValue(), secret);

    await webhooksPage();
    await page.getByRole("link", { name: `Rotate secret… of ${receiver.url}/dash` }).click();
    await page.getByRole("button", { name: "Rotate secret" }).click();
    const rotated = await page.locator("#webhook-secret").inputValue();
    assert.notEqual(rotated, secret);
    assert.match((await page.locator(".key-card").textContent()) ?? "", /old one also signs them until/);

    await webhooksPage();
    await page.getByRole("link", { name: `Remove… ${receiver.url}/dash` }).click();
    await page.getByRole("button", { name: "Remove endpoint" }).click();
    await page.waitForURL(`**/applications/${app.id}/webhooks`);
    assert.match((await page.locator("#endpoints-heading + p").textContent()) ?? "", /No endpoints yet/);
    const listed = await server.cli(["app", "webhook", "list", app.id, "--json"]);
    assert.deepEqual(JSON.parse(listed.stdout), []);
  });

  test("the job-webhook secret shown is the one the CLI shows", async () => {
    await webhooksPage();
    await page.getByRole("button", { name: "Show the job-webhook secret" }).click();
    const shown = await page.locator("#webhook-secret").inputValue();
    const cli = await server.cli(["app", "webhook", "secret", app.id, "--json"]);
    assert.equal(JSON.parse(cli.stdout).secret, shown);
  });
});
