import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { type Browser, chromium, type Page } from "playwright-core";

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
