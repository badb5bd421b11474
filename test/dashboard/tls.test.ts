import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import fs from "node:fs";
import { after, before, test } from "node:test";
import type { Browser } from "playwright-core";
import { describeOrSkip } from "../helpers/backends.ts";
import { assertNoneRunning, MIXDOWN_BIN, type Mixdown } from "../helpers/mixdown.ts";
import { startTlsMixdown, type TestCertificate, testCertificate } from "../helpers/tls.ts";
import { chromiumUnavailable, launchChromium } from "./browser.ts";

const PASSWORD = "correct horse battery";

describeOrSkip("dashboard over HTTPS", chromiumUnavailable, () => {
  let certificate: TestCertificate;
  let server: Mixdown;
  let browser: Browser;
  before(async () => {
    certificate = testCertificate();
    server = await startTlsMixdown(certificate, { MIXDOWN_WORKERS: "0" });
    await new Promise<void>((resolve, reject) => {
      const child = execFile(MIXDOWN_BIN, ["user", "add", "admin", "--password-stdin"], {
        env: { ...process.env, ...server.env },
      });
      child.on("exit", (code) => (code === 0 ? resolve() : reject(new Error(`user add: ${code}`))));
      child.stdin?.end(`${PASSWORD}\n`);
    });
    browser = await launchChromium();
  });
  after(async () => {
    await browser?.close();
    await server?.dispose();
    fs.rmSync(certificate.dir, { recursive: true, force: true });
    assertNoneRunning();
  });

  test("cookies are Secure, HSTS is sent and the CSP upgrades insecure requests", async () => {
    const context = await browser.newContext({ ignoreHTTPSErrors: true });
    context.setDefaultTimeout(5000);
    const page = await context.newPage();
    const response = await page.goto(`${server.url}/dashboard/sign-in`);
    const headers = response?.headers() ?? {};
    assert.match(headers["strict-transport-security"] ?? "", /max-age=\d+/);
    assert.match(headers["content-security-policy"] ?? "", /upgrade-insecure-requests/);
    await page.getByLabel("Name").fill("admin");
    await page.getByLabel("Password").fill(PASSWORD);
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.waitForURL("**/dashboard/applications");
    const cookies = await context.cookies(`${server.url}/dashboard/`);
    assert.deepEqual(cookies.map((c) => [c.name, c.secure, c.httpOnly, c.sameSite, c.path]).sort(), [
      ["mixdown_csrf", true, true, "Strict", "/dashboard"],
      ["mixdown_session", true, true, "Strict", "/dashboard"],
    ]);
    await context.close();
  });
});
