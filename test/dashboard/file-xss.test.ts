import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import type { Browser, Page } from "playwright-core";
import { sineWav } from "../helpers/audio.ts";
import { describeOrSkip } from "../helpers/backends.ts";
import { startForwardingProxy } from "../helpers/http-fixture.ts";
import { type AppInfo, BACKENDS, Mixdown } from "../helpers/mixdown.ts";
import { chromiumUnavailable, closeBrowserAndServer, openPage, openSignedInPage } from "./browser.ts";
import { signInFirstOperator } from "./operator-session.ts";

/**
 * What the attacker's file does if it ever runs on the dashboard's origin with the operator's session: marks the
 * page (synchronously, so it shows by the time the page has loaded), reads the CSRF token from the applications
 * page and creates an application named `name`.
 */
const attack = (name: string) => `(async () => {
  document.title = "ran";
  const page = await (await fetch("/dashboard/applications", { credentials: "include" })).text();
  const token = /name="_csrf" value="([^"]+)"/.exec(page)[1];
  await fetch("/dashboard/applications", {
    method: "POST",
    credentials: "include",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: "_csrf=" + encodeURIComponent(token) + "&name=${name}",
  });
  document.title = "done";
})()`;

const HTML = Buffer.from(`<!doctype html><html><head><title>invoice</title></head><body>
<p>Your invoice</p><script>${attack("pwned-html")}</script></body></html>`);
const SVG = Buffer.from(`<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"><title>logo</title>
<script><![CDATA[${attack("pwned-svg")}]]></script></svg>`);

/** What came of opening a file's URL in the operator's tab: a download, or a document (with its title). */
async function open(page: Page, url: string): Promise<{ download: boolean; title: string; at: string }> {
  await page.goto("about:blank");
  const download = page.waitForEvent("download", { timeout: 10_000 }).then(
    async (d) => {
      await d.cancel();
      return true;
    },
    () => false,
  );
  // A download is no navigation: goto says so ("Download is starting") and the tab keeps its blank page.
  const navigated = await page.goto(url).then(
    () => true,
    (error: Error) => {
      if (!/Download is starting/.test(error.message)) throw error;
      return false;
    },
  );
  return { download: navigated ? false : await download, title: await page.title(), at: page.url() };
}

for (const { backend, skip } of BACKENDS)
  describeOrSkip(`an uploaded page or SVG never runs as the operator [${backend}]`, skip ?? chromiumUnavailable, () => {
    let server: Mixdown;
    let browser: Browser;
    let page: Page;
    let app: AppInfo;
    const embedded = backend === "embedded";
    const applications = async () => {
      const listed = await server.cli(["app", "list", "--json"]);
      assert.equal(listed.code, 0, listed.stderr);
      return (JSON.parse(listed.stdout) as { name: string }[]).map((a) => a.name).sort();
    };

    before(async () => {
      server = await Mixdown.start({ MIXDOWN_WORKERS: "0" }, { backend, workers: 0 });
      app = await server.createApp("Studio");
      ({ browser, page } = await openSignedInPage(server, { acceptDownloads: true, timeout: 15_000 }));
    });
    after(() => closeBrowserAndServer(browser, server));

    test("control: the payload does create an application when it runs on the dashboard's origin", async () => {
      await page.goto(`${server.url}/dashboard/applications`);
      // Evaluated through DevTools (the dashboard's CSP forbids inline script): what the file would do if it ran.
      await page.evaluate(attack("control"));
      assert.deepEqual(await applications(), ["Studio", "control"]);
    });

    test("an HTML and an SVG file uploaded with the API, opened by the operator: downloaded, nothing runs", async () => {
      const before = await applications();
      for (const [bytes, type] of [
        [HTML, "text/html"],
        [HTML, "text/html; charset=utf-8"],
        [SVG, "image/svg+xml"],
        [HTML, "application/xhtml+xml"],
        [SVG, "text/xml"],
      ] as const) {
        const url = await server.upload(app.apiKey, bytes, type);
        const opened = await open(page, url);
        assert.ok(!["ran", "done"].includes(opened.title), `${type}: its script ran`);
        assert.equal(opened.download, true, `${type}: downloaded, not shown`);
        assert.equal(opened.at, "about:blank", type);
      }
      assert.deepEqual(await applications(), before);
    });

    test("a page uploaded under a type shown in place (JSON, PNG, WAV, MP4) renders as that type, or downloads; nothing runs", async () => {
      const before = await applications();
      for (const type of ["application/json", "image/png", "audio/wav", "video/mp4"]) {
        const url = await server.upload(app.apiKey, HTML, type);
        const opened = await open(page, url);
        assert.ok(!["ran", "done"].includes(opened.title), `${type}: its script ran`);
        // Embedded: shown in place as the type it claims (nosniff), sandboxed. S3: downloaded (see the store's URL).
        assert.equal(opened.download, !embedded, type);
        if (embedded) {
          assert.equal(opened.at, url);
          // In a sandbox, the document has an opaque origin: even its own origin's storage is out of reach.
          assert.equal(await page.evaluate(() => self.origin), "null", type);
        }
      }
      assert.deepEqual(await applications(), before);
    });

    test("an HTML and an SVG file dropped on the Run page, then opened from the field: downloaded, nothing runs", async () => {
      const before = await applications();
      // The Run page may refuse files that are not media by name and type; one named as media but typed as a page
      // by the browser still goes up.
      const files = [
        ["invoice.html", "text/html", HTML],
        ["logo.svg", "image/svg+xml", SVG],
        ["track.mp3", "text/html", HTML],
        ["cover.wav", "image/svg+xml", SVG],
      ] as const;
      let uploaded = 0;
      for (const [name, mimeType, buffer] of files) {
        await page.goto(`${server.url}/dashboard/run?app=${app.id}&workflow=mixdown/convert`);
        await page.locator("#param-inputUrl-file").setInputFiles({ name, mimeType, buffer });
        const message = page.locator('[data-upload-for="param-inputUrl"] .upload-message');
        await message
          .filter({ hasText: new RegExp(`Uploaded ${name}|${name} is not an audio or video file`) })
          .waitFor();
        if (!((await message.textContent()) ?? "").startsWith("Uploaded")) continue;
        uploaded++;
        const url = await page.locator("#param-inputUrl").inputValue();
        assert.ok(
          url.startsWith(embedded ? `${server.url}/files/uploads/` : `${server.env.MIXDOWN_S3_ENDPOINT}/`),
          url,
        );
        // The upload kept its bytes and the type the browser gave: the answer, not the upload, is what is made safe.
        const answer = await fetch(url);
        assert.ok(Buffer.from(await answer.arrayBuffer()).equals(buffer), name);
        const opened = await open(page, url);
        assert.ok(!["ran", "done"].includes(opened.title), `${name} (${mimeType}): its script ran`);
        assert.equal(opened.download, true, `${name} (${mimeType}): downloaded, not shown`);
      }
      assert.ok(uploaded >= 2, `${uploaded} of the files went up`);
      assert.deepEqual(await applications(), before);
    });
  });

describeOrSkip(
  "with MIXDOWN_FILES_URL the job page plays and draws files from their own origin",
  chromiumUnavailable,
  () => {
    let server: Mixdown;
    let files: Awaited<ReturnType<typeof startForwardingProxy>>;
    let browser: Browser;
    let page: Page;
    let app: AppInfo;
    const violations: string[] = [];

    before(async () => {
      // A second host name for the same node, as a load balancer gives it (the Host header passes unchanged).
      files = await startForwardingProxy({ hostname: "localhost" });
      server = await Mixdown.start({ MIXDOWN_FILES_URL: files.url, MIXDOWN_WORKERS: "1" });
      files.to(server.url);
      app = await server.createApp("Studio");
      ({ browser, page } = await openPage({ acceptDownloads: true, timeout: 15_000 }));
      page.on("console", (message) => {
        if (/Content Security Policy|CORS/.test(message.text())) violations.push(message.text());
      });
      await signInFirstOperator(server, page);
    });
    after(() => closeBrowserAndServer(browser, server, files));

    test("a result's player loads and its waveform is drawn; an uploaded page on the files origin still downloads", async () => {
      const inputUrl = await server.upload(app.apiKey, sineWav(2), "audio/wav");
      assert.ok(inputUrl.startsWith(`${files.url}/files/`), inputUrl);
      const job = await server.runJob(app.apiKey, "mixdown/convert", { inputUrl, format: "mp3" });
      await page.goto(`${server.url}/dashboard/jobs/${job.id}`);
      const player = page.locator("[data-player] audio");
      assert.ok((await player.getAttribute("src"))?.startsWith(`${files.url}/files/results/`));
      await page.waitForFunction(() => {
        const audio = document.querySelector<HTMLAudioElement>("[data-player] audio");
        return audio !== null && audio.readyState >= 1 && audio.duration > 1.5;
      });
      await page.waitForFunction(() => {
        const host = document.querySelector("[data-waveform]")?.firstElementChild?.shadowRoot;
        return [...(host?.querySelectorAll("canvas") ?? [])].some((canvas) => {
          const pixels = canvas.getContext("2d")?.getImageData(0, 0, canvas.width, canvas.height).data ?? [];
          for (let i = 3; i < pixels.length; i += 4) if ((pixels[i] ?? 0) > 0) return true;
          return false;
        });
      });
      assert.deepEqual(violations, []);

      const url = await server.upload(app.apiKey, HTML, "text/html");
      const opened = await open(page, url);
      assert.ok(!["ran", "done"].includes(opened.title), "its script ran");
      assert.equal(opened.download, true);
      const listed = await server.cli(["app", "list", "--json"]);
      assert.deepEqual(
        (JSON.parse(listed.stdout) as { name: string }[]).map((a) => a.name),
        ["Studio"],
      );
    });
  },
);
