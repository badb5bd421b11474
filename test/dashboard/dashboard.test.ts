import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { describeOrSkip } from "../helpers/backends.ts";
import { BACKENDS, Mixdown } from "../helpers/mixdown.ts";
import { assertAccessible, chromiumUnavailable, closeBrowserAndServer, openPage, screenshot } from "./browser.ts";

const PASSWORD = "correct horse battery";
const XSS_NAME = "<img src=x onerror=alert(1)>";

/** Every page and form of the dashboard, as a visitor without a session would reach them. */
const ROUTES: [string, string][] = [
  ["GET", "/dashboard"],
  ["GET", "/dashboard/applications"],
  ["POST", "/dashboard/applications"],
  ["GET", "/dashboard/applications/00000000-0000-4000-8000-000000000000"],
  ["POST", "/dashboard/applications/00000000-0000-4000-8000-000000000000/name"],
  ["GET", "/dashboard/applications/00000000-0000-4000-8000-000000000000/rotate-key"],
  ["POST", "/dashboard/applications/00000000-0000-4000-8000-000000000000/rotate-key"],
  ["GET", "/dashboard/applications/00000000-0000-4000-8000-000000000000/key"],
  ["GET", "/dashboard/applications/00000000-0000-4000-8000-000000000000/webhooks/secret"],
  ["GET", "/dashboard/applications/00000000-0000-4000-8000-000000000000/revoke"],
  ["POST", "/dashboard/applications/00000000-0000-4000-8000-000000000000/revoke"],
  ["GET", "/dashboard/jobs"],
  ["GET", "/dashboard/jobs?fragment=results"],
  ["GET", "/dashboard/jobs/00000000-0000-4000-8000-000000000000"],
  ["GET", "/dashboard/jobs/00000000-0000-4000-8000-000000000000/delete"],
  ["POST", "/dashboard/jobs/00000000-0000-4000-8000-000000000000/delete"],
  ["POST", "/dashboard/sign-out"],
  ["GET", "/dashboard/system"],
  ["GET", "/dashboard/system/storage"],
  ["GET", "/dashboard/no-such-page"],
];

/** A sign-in form as a script would post it: the pre-session cookie and its token, then the form. */
async function postSignIn(server: Mixdown, name: string, password: string): Promise<Response> {
  const form = await fetch(`${server.url}/dashboard/sign-in`);
  const cookie = (form.headers.get("set-cookie") ?? "").split(";")[0] ?? "";
  const token = /name="_csrf" value="([\w-]+)"/.exec(await form.text())?.[1] ?? "";
  return fetch(`${server.url}/dashboard/sign-in`, {
    method: "POST",
    redirect: "manual",
    headers: { cookie, "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({ _csrf: token, name, password }),
  });
}

for (const { backend, skip } of BACKENDS)
  describeOrSkip(`dashboard in a browser [${backend}]`, skip ?? chromiumUnavailable, () => {
    let server: Mixdown;
    let browser: Browser;
    let context: BrowserContext;
    let page: Page;
    const dialogs: string[] = [];
    // One set of screenshots, from the embedded run.
    const shoot = (name: string) => (backend === "embedded" ? screenshot(page, name) : Promise.resolve());

    before(async () => {
      // No workers: jobs stay QUEUED, so the applications table's counts are known.
      server = await Mixdown.start({ MIXDOWN_WORKERS: "0" }, { backend, workers: 0 });
      ({ browser, context, page } = await openPage({ viewport: { width: 1200, height: 760 }, timeout: 5000 }));
      await context.grantPermissions(["clipboard-read", "clipboard-write"], { origin: server.url });
      page.on("dialog", (dialog) => {
        dialogs.push(dialog.message());
        void dialog.dismiss();
      });
    });
    after(() => closeBrowserAndServer(browser, server));

    test("/ leads to the dashboard, and every dashboard route without a session redirects to sign-in", async () => {
      const root = await fetch(`${server.url}/`, { redirect: "manual" });
      assert.equal(root.headers.get("location"), "/dashboard");
      for (const [method, path] of ROUTES) {
        const response = await fetch(`${server.url}${path}`, { method, redirect: "manual" });
        assert.equal(response.status, 303, `${method} ${path}`);
        // A page asked for is where sign-in leads back to.
        const next = method === "GET" ? `?next=${encodeURIComponent(path)}` : "";
        assert.equal(response.headers.get("location"), `/dashboard/sign-in${next}`, `${method} ${path}`);
      }
    });

    test("the OpenAPI document is the API's alone: no dashboard page in it", async () => {
      const paths = Object.keys((await (await fetch(`${server.url}/openapi.json`)).json()).paths);
      assert.ok(paths.includes("/v1/job"));
      assert.deepEqual(
        paths.filter((p) => p === "/" || p.startsWith("/dashboard")),
        [],
      );
    });

    test("every page carries the security headers: CSP without inline script, no framing, no referrer", async () => {
      for (const path of ["/dashboard/sign-in", "/dashboard/applications", "/dashboard/setup/x"]) {
        const response = await fetch(`${server.url}${path}`, { redirect: "manual" });
        const csp = response.headers.get("content-security-policy") ?? "";
        assert.match(csp, /script-src 'self'(;|$)/, path);
        assert.doesNotMatch(csp, /unsafe-inline|unsafe-eval/, path);
        assert.match(csp, /frame-ancestors 'none'/, path);
        assert.equal(response.headers.get("x-content-type-options"), "nosniff", path);
        assert.equal(response.headers.get("referrer-policy"), "no-referrer", path);
        assert.equal(response.headers.get("x-frame-options"), "DENY", path);
      }
    });

    test("the setup link printed at start creates the first operator, and works once", async () => {
      const line = server.output.split("\n").find((l) => l.includes('"setupUrl"'));
      assert.ok(line, `no setup link in the output:\n${server.output}`);
      const link = JSON.parse(line).setupUrl as string;
      assert.match(link, /^http:\/\/127\.0\.0\.1:\d+\/dashboard\/setup\/[\w-]{43}$/);
      await page.goto(link);
      await assert.doesNotReject(page.getByRole("heading", { name: "Create the first operator" }).waitFor());
      await assertAccessible(page, "setup");
      await shoot("dashboard-setup");
      await page.getByLabel("Name").fill("admin");
      await page.locator("#password").fill(PASSWORD);
      await page.getByLabel("Password again").fill(PASSWORD);
      await page.getByRole("button", { name: "Create and sign in" }).click();
      await page.waitForURL("**/dashboard/applications");
      assert.match(await page.locator("header").innerText(), /Signed in as admin/);
      await assertAccessible(page, "applications (empty)");

      // A second visitor with the same link: refused.
      const other = await browser.newContext();
      const again = await other.newPage();
      const response = await again.goto(link);
      assert.equal(response?.status(), 410);
      assert.match(await again.locator("main").innerText(), /no longer valid/);
      await other.close();
      const list = await server.cli(["user", "list", "--json"]);
      assert.deepEqual(
        JSON.parse(list.stdout).map((o: { name: string }) => o.name),
        ["admin"],
      );
    });

    test("the session cookie is HttpOnly, SameSite=Strict, scoped to /dashboard (Secure only under TLS)", async () => {
      const cookies = await context.cookies(`${server.url}/dashboard/`);
      const session = cookies.find((c) => c.name === "mixdown_session");
      assert.ok(session, JSON.stringify(cookies));
      assert.equal(session.httpOnly, true);
      assert.equal(session.sameSite, "Strict");
      assert.equal(session.path, "/dashboard");
      assert.equal(session.secure, false);
      assert.equal(session.expires, -1, "a browser-session cookie; the server ends idle sessions");
      assert.match(session.value, /^[\w-]{43}$/, "256 random bits, base64url");
    });

    let apiKey = "";
    let appUrl = "";
    test("create an application: its key is shown once, with a copy button, and works on /v1", async () => {
      await page.goto(`${server.url}/dashboard/applications`);
      await page.getByLabel("Name").fill("Studio One");
      await page.getByRole("button", { name: "Create and show key" }).click();
      // Post/redirect/get: the key is shown by a page of its own, reached by a GET.
      await page.waitForURL(/\/dashboard\/applications\/[0-9a-f-]{36}\/key$/);
      const keyField = page.locator("#api-key");
      apiKey = await keyField.inputValue();
      assert.match(apiKey, /^mxd_[\w-]{43}$/);
      await page.getByRole("button", { name: "Copy" }).click();
      await page.getByText("Copied").waitFor();
      assert.equal(await page.evaluate(() => navigator.clipboard.readText()), apiKey);
      await assertAccessible(page, "new key");
      await shoot("dashboard-new-key");

      const me = await server.api("GET", "/v1/application", { key: apiKey });
      assert.equal(me.status, 200);
      assert.equal(me.body.name, "Studio One");

      // A reload creates no second application and shows the key no more.
      const reloaded = await page.reload();
      assert.equal(reloaded?.status(), 410);
      await page.getByRole("heading", { name: "The key is no longer shown" }).waitFor();
      assert.ok(!(await page.content()).includes(apiKey));
      assert.equal(await page.locator("#api-key").count(), 0);
      const listed = JSON.parse((await server.cli(["app", "list", "--json"])).stdout) as { name: string }[];
      assert.deepEqual(
        listed.map((a) => a.name),
        ["Studio One"],
      );
      assert.deepEqual(
        (await context.cookies(`${server.url}/dashboard/`)).filter((c) => c.name === "mixdown_flash"),
        [],
        "the one-time cookie is gone",
      );

      // Never shown again: not on the list, not on the application's page.
      await page.goto(`${server.url}/dashboard/applications`);
      assert.ok(!(await page.content()).includes(apiKey));
      await page.getByRole("link", { name: "Studio One" }).click();
      appUrl = page.url();
      assert.ok(!(await page.content()).includes(apiKey));
    });

    test("rename, rotate and revoke take effect at once on the API", async () => {
      await page.goto(appUrl);
      await assertAccessible(page, "application");
      await shoot("dashboard-application");
      await page.getByRole("textbox", { name: "Name" }).fill("Studio Two");
      await page.getByRole("button", { name: "Rename" }).click();
      await page.getByRole("heading", { name: "Studio Two" }).waitFor();
      assert.equal((await server.api("GET", "/v1/application", { key: apiKey })).body.name, "Studio Two");

      await page.getByRole("link", { name: "Rotate key…" }).click();
      await page.getByRole("button", { name: "Rotate key" }).click();
      await page.waitForURL(`${appUrl}/key`);
      const newKey = await page.locator("#api-key").inputValue();
      assert.match(newKey, /^mxd_[\w-]{43}$/);
      assert.notEqual(newKey, apiKey);
      assert.equal((await server.api("GET", "/v1/application", { key: apiKey })).status, 401);
      assert.equal((await server.api("GET", "/v1/application", { key: newKey })).status, 200);
      // A reload rotates nothing: the key just shown still works, and is not shown again.
      assert.equal((await page.reload())?.status(), 410);
      assert.ok(!(await page.content()).includes(newKey));
      assert.equal((await server.api("GET", "/v1/application", { key: newKey })).status, 200);

      await page.goto(appUrl);
      await page.getByRole("link", { name: "Revoke…" }).click();
      await page.getByRole("heading", { name: "Revoke Studio Two?" }).waitFor();
      await assertAccessible(page, "confirm revoke");
      await shoot("dashboard-confirm-revoke");
      await page.getByRole("button", { name: "Revoke application" }).click();
      await page.waitForURL("**/dashboard/applications");
      assert.equal((await server.api("GET", "/v1/application", { key: newKey })).status, 401);
      const row = page.getByRole("row", { name: /Studio Two/ });
      assert.match(await row.innerText(), /revoked/);
    });

    test("the applications table shows jobs by status, and a name full of markup as text", async () => {
      const hostile = await server.createApp(XSS_NAME);
      const busy = await server.createApp("Busy app");
      await server.createJob(busy.apiKey, "mixdown/convert", { inputUrl: "https://example.com/a.wav", format: "mp3" });
      await server.createJob(busy.apiKey, "mixdown/convert", { inputUrl: "https://example.com/b.wav", format: "mp3" });
      await page.goto(`${server.url}/dashboard/applications`);
      const cells = await page
        .getByRole("row", { name: /Busy app/ })
        .getByRole("cell")
        .allInnerTexts();
      assert.equal(cells[0], `Busy app\n${busy.id.slice(0, 8)}…`, "the name, and the start of the id under it");
      assert.deepEqual(cells.slice(3, 7), ["2", "0", "0", "0"]);
      assert.match(cells[7] ?? "", /^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC$/);

      assert.equal(await page.getByRole("link", { name: XSS_NAME, exact: true }).count(), 1);
      assert.equal(await page.locator('img[src="x"]').count(), 0);
      await page.goto(`${server.url}/dashboard/applications/${hostile.id}`);
      assert.equal(await page.getByRole("heading", { name: XSS_NAME }).count(), 1);
      await page.goto(`${server.url}/dashboard/applications`);
      assert.deepEqual(dialogs, []);
      await assertAccessible(page, "applications");
      // The whole table fits the page: no column (the last job's time) is cut off behind a scroll bar.
      const wrap = page.getByRole("region", { name: "Applications table" });
      const [scrollWidth, clientWidth] = await wrap.evaluate((el) => [el.scrollWidth, el.clientWidth]);
      assert.ok(scrollWidth <= clientWidth, `the table is ${scrollWidth} px wide in ${clientWidth} px`);
      await shoot("dashboard-applications");
    });

    test("a state-changing request without its CSRF token, or with another one, gets 403", async () => {
      const before = (await server.cli(["app", "list", "--json"])).stdout;
      const forms: Record<string, string>[] = [{ name: "forged" }, { name: "forged", _csrf: "A".repeat(43) }];
      for (const form of forms) {
        const response = await page.request.post(`${server.url}/dashboard/applications`, {
          form,
          maxRedirects: 0,
        });
        assert.equal(response.status(), 403);
      }
      assert.equal((await server.cli(["app", "list", "--json"])).stdout, before);
      const signOut = await page.request.post(`${server.url}/dashboard/sign-out`, { maxRedirects: 0 });
      assert.equal(signOut.status(), 403);
      // Before sign-in too: the sign-in form's token is bound to its own cookie.
      const bare = await fetch(`${server.url}/dashboard/sign-in`, {
        method: "POST",
        redirect: "manual",
        headers: { "content-type": "application/x-www-form-urlencoded" },
        body: new URLSearchParams({ name: "admin", password: PASSWORD }),
      });
      assert.equal(bare.status, 403);
    });

    test("an API key is refused on dashboard routes, a session cookie on /v1 and /api", async () => {
      const app = await server.createApp("key holder");
      const dashboardWithKey = await fetch(`${server.url}/dashboard/applications`, {
        headers: { authorization: app.apiKey },
        redirect: "manual",
      });
      assert.equal(dashboardWithKey.status, 401);
      const session = (await context.cookies(`${server.url}/dashboard/`)).find((c) => c.name === "mixdown_session");
      for (const prefix of ["/v1", "/api"]) {
        const withCookie = await fetch(`${server.url}${prefix}/application`, {
          headers: { cookie: `mixdown_session=${session?.value}` },
        });
        assert.equal(withCookie.status, 401, prefix);
        assert.equal((await withCookie.json()).code, "UNAUTHORIZED");
      }
    });

    test("signing out ends the session in the store: its cookie no longer opens anything", async () => {
      const session = (await context.cookies(`${server.url}/dashboard/`)).find((c) => c.name === "mixdown_session");
      await page.goto(`${server.url}/dashboard/applications`);
      await page.getByRole("button", { name: "Sign out" }).click();
      await page.waitForURL("**/dashboard/sign-in");
      const replay = await fetch(`${server.url}/dashboard/applications`, {
        headers: { cookie: `mixdown_session=${session?.value}` },
        redirect: "manual",
      });
      assert.equal(replay.status, 303);
      assert.equal(replay.headers.get("location"), "/dashboard/sign-in?next=%2Fdashboard%2Fapplications");
    });

    test("sign-in: a wrong password and an unknown name get the same message", async () => {
      const messages: string[] = [];
      for (const [name, password] of [
        ["admin", "wrong password!!"],
        ["nobody-here", PASSWORD],
      ] as const) {
        await page.goto(`${server.url}/dashboard/sign-in`);
        await page.getByLabel("Name").fill(name);
        await page.getByLabel("Password").fill(password);
        const [response] = await Promise.all([
          page.waitForResponse((r) => r.request().method() === "POST"),
          page.getByRole("button", { name: "Sign in" }).click(),
        ]);
        assert.equal(response.status(), 401);
        messages.push(await page.getByRole("alert").innerText());
      }
      assert.equal(messages[0], "Wrong name or password.");
      assert.equal(messages[1], messages[0]);
      await assertAccessible(page, "sign-in");
      await shoot("dashboard-sign-in");

      await page.getByLabel("Name").fill("admin");
      await page.getByLabel("Password").fill(PASSWORD);
      await page.getByRole("button", { name: "Sign in" }).click();
      await page.waitForURL("**/dashboard/applications");
    });

    test("after 5 failed sign-ins, attempts get 429 with Retry-After, the right password too, and the wait grows", async () => {
      let attempts = 0;
      let response: Response;
      do {
        response = await postSignIn(server, "admin", "wrong password!!");
        attempts++;
      } while (response.status === 401 && attempts < 10);
      // The address already failed twice above: its fifth failure may come before the account's.
      assert.equal(response.status, 429);
      assert.ok(attempts >= 4 && attempts <= 6, `429 after ${attempts} attempts`);
      const first = Number(response.headers.get("retry-after"));
      assert.ok(first >= 1 && first <= 15, `Retry-After ${first}`);
      assert.match(await response.text(), /Too many failed sign-ins/);
      assert.equal((await postSignIn(server, "admin", PASSWORD)).status, 429, "no way around the wait");

      await new Promise((resolve) => setTimeout(resolve, first * 1000 + 200));
      assert.equal((await postSignIn(server, "admin", "wrong password!!")).status, 401);
      const next = await postSignIn(server, "admin", "wrong password!!");
      assert.equal(next.status, 429);
      assert.ok(Number(next.headers.get("retry-after")) > 15, `then ${next.headers.get("retry-after")} s`);
    });
  });
