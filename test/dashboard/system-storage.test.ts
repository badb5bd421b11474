import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { Readable } from "node:stream";
import { after, before, test } from "node:test";
import type { FastifyInstance } from "fastify";
import type { Browser } from "playwright-core";
import { createMetrics } from "../../src/api/metrics.ts";
import { buildServer } from "../../src/api/server.ts";
import { loadConfig } from "../../src/config.ts";
import { createRuntime, type Runtime } from "../../src/runtime.ts";
import type { BlobStore } from "../../src/store/blob-store.ts";
import { describeOrSkip } from "../helpers/backends.ts";
import { freePort } from "../helpers/mixdown.ts";
import { chromiumUnavailable, launchChromium } from "./browser.ts";

const PASSWORD = "correct horse battery";

/**
 * The real blob store, whose count (`usage`) waits until the test lets it go: a store large enough that counting
 * takes a while, without writing a million files. What the count returns is the real store's.
 */
function slowToCount(blobs: BlobStore): { blobs: BlobStore; finish: () => void; started: () => number } {
  let finish = () => {};
  const gate = new Promise<void>((resolve) => {
    finish = resolve;
  });
  let counts = 0;
  const usage = async () => {
    counts++;
    await gate;
    return blobs.usage();
  };
  const wrapped = new Proxy(blobs, {
    get: (target, key) => (key === "usage" ? usage : Reflect.get(target, key, target)),
  });
  return { blobs: wrapped, finish, started: () => counts };
}

describeOrSkip(
  "system page: storage counted from the start, the figure arriving by itself",
  chromiumUnavailable,
  () => {
    let dataDir = "";
    let runtime: Runtime;
    let app: FastifyInstance;
    let browser: Browser;
    let base = "";
    let gate: ReturnType<typeof slowToCount>;

    before(async () => {
      dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "mixdown-storage-"));
      const port = await freePort();
      base = `http://127.0.0.1:${port}`;
      runtime = await createRuntime(
        loadConfig({
          MIXDOWN_DATA_DIR: dataDir,
          PORT: String(port),
          MIXDOWN_PUBLIC_URL: base,
          MIXDOWN_LOG_LEVEL: "silent",
          MIXDOWN_WORKERS: "0",
        }),
      );
      await runtime.blobs.put("uploads/a.wav", Readable.from(Buffer.alloc(12_345, 1)), { contentType: "audio/wav" });
      gate = slowToCount(runtime.blobs);
      runtime.blobs = gate.blobs;
      app = await buildServer(runtime, createMetrics(runtime.store, runtime.queue));
      await app.listen({ port, host: "127.0.0.1" });
      await runtime.operators.add("admin", PASSWORD);
      browser = await launchChromium();
    });
    after(async () => {
      gate?.finish();
      await browser?.close();
      await app?.close();
      await runtime?.close();
      fs.rmSync(dataDir, { recursive: true, force: true });
    });

    test("the count starts with the server; while it runs the page says so, then shows the figure without a reload", async () => {
      assert.equal(gate.started(), 1, "counting began at start, before any visit");
      const page = await browser.newPage();
      await page.goto(`${base}/dashboard/sign-in`);
      await page.getByLabel("Name").fill("admin");
      await page.getByLabel("Password").fill(PASSWORD);
      await page.getByRole("button", { name: "Sign in" }).click();
      await page.waitForURL("**/dashboard/applications");

      await page.goto(`${base}/dashboard/system`);
      const storage = page.locator(".storage");
      assert.match(
        await storage.innerText(),
        /^Counting the stored files \(every file, one by one\) since \d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC\. The figure appears here when the count ends, without a reload\.$/,
      );
      assert.equal(gate.started(), 1, "a visit does not start a second count");
      await page.evaluate(() => Object.assign(window, { samePage: true }));

      gate.finish();
      await storage.locator("[data-storage-bytes]").waitFor({ timeout: 10_000 });
      assert.equal(await page.evaluate(() => "samePage" in window), true, "the figure came into the open page");
      const stored = fs
        .readdirSync(path.join(dataDir, "blobs"), { recursive: true, withFileTypes: true })
        .filter((entry) => entry.isFile())
        .reduce((sum, entry) => sum + fs.statSync(path.join(entry.parentPath, entry.name)).size, 0);
      assert.ok(stored > 12_345);
      assert.equal(Number(await storage.locator("[data-storage-bytes]").getAttribute("data-storage-bytes")), stored);
      assert.match(await storage.innerText(), /^1 file \(uploads and job results\), counted /m);

      // Once the figure is in, the page stops asking for it.
      await storage.locator("[data-live-done]").waitFor({ state: "attached" });
      const asked: string[] = [];
      page.on("request", (request) => asked.push(request.url()));
      await page.waitForTimeout(4500);
      assert.deepEqual(asked, []);
      await page.close();
    });
  },
);
