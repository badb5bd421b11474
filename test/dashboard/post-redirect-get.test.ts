import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { describeOrSkip } from "../helpers/backends.ts";
import { Mixdown } from "../helpers/mixdown.ts";
import { assertAccessible, chromiumUnavailable, closeBrowserAndServer, openSignedInPage } from "./browser.ts";
import { addOperator, csrfTokenOf, OPERATOR_PASSWORD } from "./operator-session.ts";

const KEY_PAGE = /\/dashboard\/applications\/([0-9a-f-]{36})\/key$/;

/** Reloads the page and says what the browser sent meanwhile: after post/redirect/get, never a POST. */
async function reload(page: Page): Promise<{ status: number | undefined; posts: string[] }> {
  const posts: string[] = [];
  const listen = (request: { method(): string; url(): string }) => {
    if (request.method() === "POST") posts.push(request.url());
  };
  page.on("request", listen);
  const response = await page.reload();
  page.off("request", listen);
  return { status: response?.status(), posts };
}

describeOrSkip("dashboard forms: post/redirect/get, and keys and secrets shown once", chromiumUnavailable, () => {
  let server: Mixdown;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;

  const appsNamed = async (name: string) =>
    (JSON.parse((await server.cli(["app", "list", "--json"])).stdout) as { id: string; name: string }[]).filter(
      (app) => app.name === name,
    );

  before(async () => {
    server = await Mixdown.start({ MIXDOWN_WORKERS: "0", MIXDOWN_ALLOW_PRIVATE_URLS: "true" }, { workers: 0 });
    ({ browser, context, page } = await openSignedInPage(server, { viewport: { width: 1200, height: 800 } }));
  });
  after(() => closeBrowserAndServer(browser, server));

  test("create an application, then reload: one application, its key shown once", async () => {
    await page.goto(`${server.url}/dashboard/applications`);
    await page.getByLabel("Name").fill("Reloaded");
    await page.getByRole("button", { name: "Create and show key" }).click();
    await page.waitForURL(KEY_PAGE);
    const key = await page.locator("#api-key").inputValue();
    assert.equal((await server.api("GET", "/v1/application", { key })).body.name, "Reloaded");

    for (let i = 0; i < 2; i++) {
      const again = await reload(page);
      assert.deepEqual(again.posts, [], "a reload posts nothing");
      assert.equal(again.status, 410);
      assert.equal(await page.getByRole("heading", { level: 1 }).innerText(), "The key is no longer shown");
      assert.ok(!(await page.content()).includes(key));
      assert.match(await page.locator("main").innerText(), /rotate the key/);
    }
    await assertAccessible(page, "key no longer shown");
    // Back to the form and forward again: still one application, still no key.
    await page.goBack();
    await page.waitForURL("**/dashboard/applications");
    await page.goForward();
    assert.ok(!(await page.content()).includes(key));
    assert.equal((await appsNamed("Reloaded")).length, 1);
  });

  test("rotate a key, then reload: rotated once, the new key shown once", async () => {
    const [app] = await appsNamed("Reloaded");
    assert.ok(app);
    await page.goto(`${server.url}/dashboard/applications/${app.id}/rotate-key`);
    await page.getByRole("button", { name: "Rotate key" }).click();
    await page.waitForURL(KEY_PAGE);
    const key = await page.locator("#api-key").inputValue();
    assert.match(await page.locator(".key-card").innerText(), /The previous key stopped working/);
    const again = await reload(page);
    assert.deepEqual(again.posts, []);
    assert.equal(again.status, 410);
    assert.equal((await server.api("GET", "/v1/application", { key })).status, 200, "not rotated again");
  });

  test("the one-time cookie opens nothing for another session, nor once tampered with", async () => {
    // A key issued in this session, its page not yet opened: the cookie is all there is.
    const response = await page.request.post(`${server.url}/dashboard/applications`, {
      form: { _csrf: await csrfTokenOf(page), name: "Cookie jar" },
      maxRedirects: 0,
    });
    assert.equal(response.status(), 303);
    const location = response.headers().location ?? "";
    assert.match(location, KEY_PAGE);
    const flash = (await context.cookies(`${server.url}/dashboard/`)).find((c) => c.name === "mixdown_flash");
    assert.ok(flash);
    assert.equal(flash.httpOnly, true);
    assert.equal(flash.sameSite, "Strict");
    assert.equal(flash.path, "/dashboard");
    assert.ok(flash.expires > 0 && flash.expires - Date.now() / 1000 <= 120, "short-lived");

    // Another operator, in another browser, with the same cookie: nothing.
    await addOperator(server, "other");
    const elsewhere = await browser.newContext();
    try {
      const other = await elsewhere.newPage();
      await other.goto(`${server.url}/dashboard/sign-in`);
      await other.getByLabel("Name").fill("other");
      await other.getByLabel("Password").fill(OPERATOR_PASSWORD);
      await other.getByRole("button", { name: "Sign in" }).click();
      await other.waitForURL("**/dashboard/applications");
      await elsewhere.addCookies([{ ...flash, sameSite: "Strict" }]);
      const stolen = await other.goto(`${server.url}${location}`);
      assert.equal(stolen?.status(), 410);
      assert.equal(await other.locator("#api-key").count(), 0);
      assert.ok(!(await other.content()).includes("mxd_"));
    } finally {
      await elsewhere.close();
    }

    // This session, with the cookie altered by one character: nothing either (and it is cleared).
    const last = flash.value.at(-2) === "A" ? "B" : "A";
    await context.addCookies([{ ...flash, value: `${flash.value.slice(0, -2)}${last}${flash.value.at(-1)}` }]);
    assert.equal((await page.goto(`${server.url}${location}`))?.status(), 410);
    assert.equal(await page.locator("#api-key").count(), 0);
    assert.equal(
      (await context.cookies(`${server.url}/dashboard/`)).filter((c) => c.name === "mixdown_flash").length,
      0,
    );
    assert.equal((await appsNamed("Cookie jar")).length, 1);
  });

  test("webhooks: adding an endpoint, rotating or showing a secret, then reloading adds, rotates and shows nothing", async () => {
    const [app] = await appsNamed("Reloaded");
    assert.ok(app);
    const webhooks = `${server.url}/dashboard/applications/${app.id}/webhooks`;
    const endpoints = async () =>
      JSON.parse((await server.cli(["app", "webhook", "list", app.id, "--json"])).stdout) as { id: string }[];

    await page.goto(webhooks);
    await page.getByLabel("Endpoint URL").fill("http://127.0.0.1:9/mixdown-events");
    await page.getByRole("button", { name: "Add endpoint" }).click();
    await page.waitForURL(`${webhooks}/secret`);
    const secret = await page.locator("#webhook-secret").inputValue();
    assert.match(secret, /^whsec_/);
    assert.match(
      await page.locator(".key-card").innerText(),
      /Added the endpoint http:\/\/127\.0\.0\.1:9\/mixdown-events/,
    );
    let again = await reload(page);
    assert.deepEqual(again.posts, []);
    assert.equal(again.status, 410);
    assert.equal(await page.getByRole("heading", { level: 1 }).innerText(), "The secret is no longer shown");
    assert.ok(!(await page.content()).includes(secret));
    await assertAccessible(page, "secret no longer shown");
    const [endpoint] = await endpoints();
    assert.ok(endpoint);
    assert.equal((await endpoints()).length, 1, "one endpoint, not two");

    await page.goto(webhooks);
    await page.getByRole("link", { name: "Rotate secret… of http://127.0.0.1:9/mixdown-events" }).click();
    await page.getByRole("button", { name: "Rotate secret" }).click();
    await page.waitForURL(`${webhooks}/secret`);
    const rotated = await page.locator("#webhook-secret").inputValue();
    assert.notEqual(rotated, secret);
    assert.match(
      await page.locator(".key-card").innerText(),
      /The new secret of http:\/\/127\.0\.0\.1:9\/mixdown-events/,
    );
    again = await reload(page);
    assert.deepEqual(again.posts, []);
    const current = await server.cli(["app", "webhook", "secret", app.id, endpoint.id, "--json"]);
    assert.equal(JSON.parse(current.stdout).secret, rotated, "rotated once");

    await page.goto(webhooks);
    await page.getByRole("button", { name: "Show the job-webhook secret" }).click();
    await page.waitForURL(`${webhooks}/secret`);
    const jobSecret = await page.locator("#webhook-secret").inputValue();
    assert.equal(
      JSON.parse((await server.cli(["app", "webhook", "secret", app.id, "--json"])).stdout).secret,
      jobSecret,
    );
    again = await reload(page);
    assert.deepEqual(again.posts, []);
    assert.ok(!(await page.content()).includes(jobSecret));
  });

  test("a workflow saved in the editor and a job started on the run page: a reload posts nothing again", async () => {
    await page.goto(`${server.url}/dashboard/workflow-editor`);
    await page.getByRole("button", { name: "Save workflow" }).click();
    await page.waitForURL("**/dashboard/workflows/my/loudness");
    let again = await reload(page);
    assert.deepEqual(again.posts, []);
    assert.equal(again.status, 200);

    const [app] = await appsNamed("Reloaded");
    assert.ok(app);
    await page.goto(`${server.url}/dashboard/run?app=${app.id}&workflow=my/loudness`);
    await page.getByLabel("or paste a URL").fill("https://example.com/song.wav");
    await page.getByRole("button", { name: "Run" }).click();
    await page.waitForURL(/\/dashboard\/jobs\/[0-9a-f-]{36}$/);
    again = await reload(page);
    assert.deepEqual(again.posts, []);
    const key = (await server.cli(["app", "rotate-key", app.id, "--json"])).stdout;
    const jobs = await server.api("GET", "/v1/job", { key: JSON.parse(key).apiKey });
    assert.equal(jobs.body.length, 1);
  });
});
