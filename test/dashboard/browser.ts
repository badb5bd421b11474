import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { type Browser, type BrowserContext, type BrowserContextOptions, chromium, type Page } from "playwright-core";
import { assertNoneRunning, type Mixdown } from "../helpers/mixdown.ts";
import { signInFirstOperator } from "./operator-session.ts";

const ROOT = path.resolve(import.meta.dirname, "../..");
export const SCREENSHOTS_DIR = path.join(ROOT, "docs/screenshots");
export const CHROMIUM = process.env.MIXDOWN_TEST_CHROMIUM ?? "/usr/bin/chromium";

/** Why the browser tests cannot run here, or undefined when they can. */
export const chromiumUnavailable: string | undefined = fs.existsSync(CHROMIUM)
  ? undefined
  : `no Chromium at ${CHROMIUM} (Debian: apt-get install chromium; or set MIXDOWN_TEST_CHROMIUM)`;

/** Debian's Chromium, headless; never a downloaded browser. */
export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    args: [
      "--headless",
      "--no-sandbox",
      "--disable-gpu",
      "--disable-quic",
      "--no-first-run",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
    ],
  });
}

/** A browser context's options (a viewport, downloads…) and how long its actions and waits may take, in ms. */
export type PageOptions = BrowserContextOptions & { timeout?: number };

/** Chromium with one page, in a context made with `options`. */
export async function openPage({
  timeout = 10_000,
  ...options
}: PageOptions = {}): Promise<{ browser: Browser; context: BrowserContext; page: Page }> {
  const browser = await launchChromium();
  try {
    const context = await browser.newContext(options);
    context.setDefaultTimeout(timeout);
    return { browser, context, page: await context.newPage() };
  } catch (error) {
    await browser.close();
    throw error;
  }
}

/** Chromium with one page (see openPage), signed in as the server's first operator. */
export async function openSignedInPage(server: Mixdown, options: PageOptions = {}) {
  const opened = await openPage(options);
  try {
    await signInFirstOperator(server, opened.page);
  } catch (error) {
    await opened.browser.close();
    throw error;
  }
  return opened;
}

/** The end of a browser test: the browser closed, the server, then whatever else it started; nothing left running. */
export async function closeBrowserAndServer(
  browser: Browser | undefined,
  server: Mixdown | undefined,
  ...others: ({ close(): Promise<void> } | undefined)[]
): Promise<void> {
  await browser?.close();
  await server?.dispose();
  for (const other of others) await other?.close();
  assertNoneRunning();
}

const AXE_SOURCE = fs.readFileSync(path.join(ROOT, "node_modules/axe-core/axe.min.js"), "utf8");

/** Runs axe-core on the page (evaluated through DevTools, so the page's CSP still forbids inline script). */
export async function assertAccessible(page: Page, label: string): Promise<void> {
  await page.evaluate(AXE_SOURCE);
  const violations = await page.evaluate(async () => {
    const axe = (globalThis as unknown as { axe: { run(): Promise<{ violations: any[] }> } }).axe;
    const result = await axe.run();
    return result.violations.map((v) => ({
      id: v.id,
      impact: v.impact,
      help: v.help,
      nodes: v.nodes.map((n: { target: string[] }) => n.target.join(" ")),
    }));
  });
  const serious = violations.filter((v) => v.impact === "serious" || v.impact === "critical");
  assert.deepEqual(serious, [], `${label}: serious or critical accessibility violations`);
}

/** A full-page screenshot for the README, docs/screenshots/NAME.png. */
export async function screenshot(page: Page, name: string): Promise<void> {
  fs.mkdirSync(SCREENSHOTS_DIR, { recursive: true });
  await page.screenshot({ path: path.join(SCREENSHOTS_DIR, `${name}.png`), fullPage: true });
}
