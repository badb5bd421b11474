import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import type { Browser, Page } from "playwright-core";
import { sineWav } from "../helpers/audio.ts";
import { describeOrSkip } from "../helpers/backends.ts";
import { startFixture } from "../helpers/http-fixture.ts";
import { type AppInfo, BACKENDS, Mixdown } from "../helpers/mixdown.ts";
import {
  assertAccessible,
  chromiumUnavailable,
  closeBrowserAndServer,
  openSignedInPage,
  screenshot,
} from "./browser.ts";
import { csrfTokenOf, OPERATOR_PASSWORD } from "./operator-session.ts";

const JOB_URL = /\/dashboard\/jobs\/([0-9a-f-]{36})$/;
/** A loopback port nothing listens on: a job fetching it fails at once. */
const REFUSED_INPUT = "http://127.0.0.1:9/song.wav";

/** A custom workflow whose form has a choice with a default and a number with a default. */
const DEFAULTS_WORKFLOW = {
  slug: "test/resample",
  name: "Resample",
  description: "Converts to the chosen format and sample rate.",
  inputSchema: {
    type: "object",
    required: ["inputUrl"],
    additionalProperties: false,
    properties: {
      inputUrl: { type: "string", pattern: "^https?://", description: "The audio to resample" },
      format: { enum: ["wav", "flac"], default: "flac", description: "Output format" },
      sampleRate: { type: "integer", minimum: 8000, maximum: 96000, default: 22050, description: "Hz" },
    },
  },
  steps: [
    { id: "input", module: "fetch", inputs: { url: "$params.inputUrl" } },
    {
      id: "encode",
      module: "convert",
      params: { format: "$params.format", sampleRate: "$params.sampleRate" },
      inputs: { audio: "$steps.input.file" },
    },
  ],
  outputs: { output: "$steps.encode.audio" },
};

/** Waits until the job page shows a final status: the page follows its job by itself (and reloads when it ends). */
async function finalStatus(page: Page): Promise<string> {
  const final = page.locator(".facts .status", { hasText: /^(SUCCEEDED|FAILED)$/ });
  await final.waitFor({ timeout: 90_000 });
  return (await final.innerText()).trim();
}

/** Uploads `bytes` through the drop zone of the field, dropped as a file is; returns the percentages shown. */
async function dropFile(page: Page, fieldId: string, name: string, bytes: Buffer): Promise<string[]> {
  const zone = page.locator(`[data-upload-for="${fieldId}"]`);
  await zone.evaluate((element) => {
    const seen: string[] = [];
    (window as unknown as { percents: string[] }).percents = seen;
    const percent = element.querySelector(".upload-percent") as HTMLElement;
    new MutationObserver(() => seen.push(percent.textContent ?? "")).observe(percent, {
      childList: true,
      characterData: true,
      subtree: true,
    });
  });
  const transfer = await page.evaluateHandle(
    ({ base64, fileName }) => {
      const data = Uint8Array.from(atob(base64), (c) => c.charCodeAt(0));
      const dt = new DataTransfer();
      dt.items.add(new File([data], fileName, { type: "audio/wav" }));
      return dt;
    },
    { base64: bytes.toString("base64"), fileName: name },
  );
  await zone.dispatchEvent("drop", { dataTransfer: transfer });
  await zone.locator(".upload-message", { hasText: `Uploaded ${name}` }).waitFor({ timeout: 30_000 });
  return page.evaluate(() => (window as unknown as { percents: string[] }).percents);
}

for (const { backend, skip } of BACKENDS)
  describeOrSkip(`run a workflow from the browser [${backend}]`, skip ?? chromiumUnavailable, () => {
    let server: Mixdown;
    let browser: Browser;
    let page: Page;
    let app: AppInfo;
    const embedded = backend === "embedded";

    before(async () => {
      server = await Mixdown.start({ MIXDOWN_ALLOW_PRIVATE_URLS: "true" }, { backend, workers: 1 });
      app = await server.createApp("Studio");
      ({ browser, page } = await openSignedInPage(server, { viewport: { width: 1200, height: 900 } }));
    });
    after(() => closeBrowserAndServer(browser, server));

    test("drop a file: it goes up through the application's signed upload URL with a progress bar, and the job it feeds succeeds", async () => {
      await page.goto(`${server.url}/dashboard/run`);
      // The only application is chosen already; choosing the workflow shows its form at once, without a reload.
      assert.equal(await page.getByLabel("Application").inputValue(), app.id);
      assert.equal(await page.getByRole("button", { name: "Show the form" }).isVisible(), false);
      await page.evaluate(() => Object.assign(window, { samePage: true }));
      await page.getByLabel("Workflow").selectOption("mixdown/convert");
      await page.getByRole("heading", { name: /Convert audio/ }).waitFor();
      assert.equal(await page.evaluate(() => "samePage" in window), true, "the form came in place, no page load");
      assert.match(page.url(), /\/dashboard\/run\?app=[0-9a-f-]{36}&workflow=mixdown%2Fconvert$/, "a reload keeps it");

      const wav = sineWav(3, { channels: 2 });
      const percents = await dropFile(page, "param-inputUrl", "tone.wav", wav);
      assert.equal(percents.at(-1), "100 %", `progress shown: ${percents.join(", ")}`);
      const numbers = percents.map((p) => Number.parseInt(p, 10));
      assert.deepEqual(
        numbers,
        [...numbers].sort((a, b) => a - b),
        "progress never goes back",
      );
      assert.equal(await page.locator('[data-upload-for="param-inputUrl"] progress').getAttribute("value"), "100");
      const downloadUrl = await page.locator("#param-inputUrl").inputValue();
      // Embedded: Mixdown's own signed URL; distributed: the object store's presigned URL.
      assert.ok(
        downloadUrl.startsWith(embedded ? `${server.url}/files/` : `${server.env.MIXDOWN_S3_ENDPOINT}/`),
        downloadUrl,
      );
      assert.equal(await page.getByLabel("Job name").inputValue(), "tone.wav", "named after the file");
      assert.equal((await fetch(downloadUrl)).status, 200);
      assert.equal(Buffer.from(await (await fetch(downloadUrl)).arrayBuffer()).equals(wav), true, "the bytes arrived");

      await page.getByLabel("format").selectOption("flac");
      if (embedded) await screenshot(page, "dashboard-run");
      await page.getByRole("button", { name: "Run" }).click();
      await page.waitForURL(JOB_URL);
      const id = JOB_URL.exec(page.url())?.[1] ?? "";
      assert.equal(await finalStatus(page), "SUCCEEDED");
      // The job's page came by a redirect: reloading it posts nothing and creates no second job.
      const posts: string[] = [];
      page.on("request", (request) => request.method() === "POST" && posts.push(request.url()));
      await page.reload();
      assert.deepEqual(posts, []);
      assert.equal((await server.api("GET", "/v1/job", { key: app.apiKey })).body.length, 1);

      // The job is the application's own, as if created with its key.
      const job = await server.api("GET", `/v1/job/${id}`, { key: app.apiKey });
      assert.equal(job.status, 200);
      assert.equal(job.body.name, "tone.wav");
      assert.deepEqual(job.body.workflowParams, { inputUrl: downloadUrl, format: "flac" });
      assert.equal(job.body.status, "SUCCEEDED");
    });

    if (!embedded) {
      test("a page opened at another origin than MIXDOWN_PUBLIC_URL is told where uploads work, and keeps its form", async () => {
        const elsewhere = server.url.replace("127.0.0.1", "localhost");
        const context = await browser.newContext();
        const other = await context.newPage();
        try {
          await other.goto(`${elsewhere}/dashboard/sign-in`);
          await other.getByLabel("Name").fill("admin");
          await other.getByLabel("Password").fill(OPERATOR_PASSWORD);
          await other.getByRole("button", { name: "Sign in" }).click();
          await other.waitForURL("**/dashboard/applications");
          await other.goto(`${elsewhere}/dashboard/run?app=${app.id}&workflow=mixdown/convert`);
          await other.getByLabel("Job name").fill("kept");
          await other.locator("#param-inputUrl-file").setInputFiles({
            name: "tone.wav",
            mimeType: "audio/wav",
            buffer: sineWav(0.5),
          });
          const message = other.locator('[data-upload-for="param-inputUrl"] .upload-message');
          await message.filter({ hasText: "did not reach the file store" }).waitFor({ timeout: 20_000 });
          assert.match(await message.innerText(), new RegExp(`Open the dashboard at ${server.url}`));
          assert.equal(await other.getByLabel("Job name").inputValue(), "kept");
          assert.equal(await other.locator("#param-inputUrl").inputValue(), "");
          assert.equal(await other.getByRole("button", { name: "Run" }).isEnabled(), true);
        } finally {
          await context.close();
        }
      });
      return;
    }

    test("the form follows the input schema: choices as selects, defaults filled in, required marks, descriptions", async () => {
      const file = `${server.dataDir}/resample.json`;
      await import("node:fs").then((fs) => fs.writeFileSync(file, JSON.stringify(DEFAULTS_WORKFLOW)));
      assert.equal((await server.cli(["workflow", "add", file])).code, 0);
      await page.goto(`${server.url}/dashboard/run?app=${app.id}&workflow=test/resample`);
      const format = page.getByLabel("format");
      assert.deepEqual(await format.locator("option").allInnerTexts(), ["wav", "flac (default)"]);
      assert.equal(await format.inputValue(), "flac");
      const rate = page.getByLabel("sampleRate");
      assert.equal(await rate.inputValue(), "22050");
      assert.equal(await rate.getAttribute("type"), "number");
      assert.equal(await rate.getAttribute("min"), "8000");
      assert.match(
        await page.locator("#param-sampleRate-help").innerText(),
        /^Hz\. Default: 22050\. Range: 8000 to 96000\.$/,
      );
      assert.match(
        await page.locator("fieldset", { hasText: "inputUrl" }).locator("legend").innerText(),
        /inputUrl\s+required/,
      );
      assert.match(await page.locator("#param-inputUrl-help").innerText(), /The audio to resample/);
      await assertAccessible(page, "run form with defaults");
    });

    test("defaults the input schema leaves out come from the modules: filled in, and left out of the job when unchanged", async () => {
      // mixdown/stems-4 names no default in its input schema; its module's are format wav, method auto, vocals.onnx…
      await page.goto(`${server.url}/dashboard/run?workflow=mixdown/stems-4`);
      const format = page.getByLabel("format");
      assert.equal(await format.inputValue(), "wav");
      assert.equal(await format.locator("option").first().innerText(), "mp3", "no empty choice: a default is set");
      assert.equal(await page.getByLabel("method").inputValue(), "auto");
      assert.equal(await page.getByLabel("vocalsModel").inputValue(), "vocals.onnx");
      await page.goto(`${server.url}/dashboard/workflows/mixdown/stems-4`);
      const row = page.getByRole("row", { name: /^method/ });
      assert.equal((await row.getByRole("cell").allInnerTexts())[3], '"auto"');

      await page.goto(`${server.url}/dashboard/run?workflow=mixdown/stems-4`);
      await page.getByLabel("Job name").fill("defaults kept");
      await page.getByLabel("or paste a URL").fill(REFUSED_INPUT);
      await page.getByLabel("method").selectOption("classical");
      await page.getByRole("button", { name: "Run" }).click();
      await page.waitForURL(JOB_URL);
      const job = await server.api("GET", `/v1/job/${JOB_URL.exec(page.url())?.[1]}`, { key: app.apiKey });
      assert.deepEqual(job.body.workflowParams, { inputUrl: REFUSED_INPUT, method: "classical" });
    });

    test("only audio or video is taken: a text file is refused in the page, and by the server", async () => {
      await page.goto(`${server.url}/dashboard/run?workflow=mixdown/convert`);
      const picker = page.locator("#param-inputUrl-file");
      assert.equal(await picker.getAttribute("accept"), "audio/*,video/*");
      const asked: string[] = [];
      page.on("request", (request) => request.url().includes("/upload-url") && asked.push(request.url()));
      await picker.setInputFiles({ name: "notes.txt", mimeType: "text/plain", buffer: Buffer.from("not a song") });
      const message = page.locator('[data-upload-for="param-inputUrl"] .upload-message');
      assert.equal(
        await message.innerText(),
        "notes.txt is not an audio or video file (text/plain): choose an audio or video file.",
      );
      assert.deepEqual(asked, [], "nothing was uploaded");
      assert.equal(await page.locator("#param-inputUrl").inputValue(), "");

      const token = await csrfTokenOf(page);
      const refused = await page.request.post(`${server.url}/dashboard/run/upload-url`, {
        data: { app: app.id, fileName: "notes.txt", fileType: "text/plain" },
        headers: { "x-csrf-token": token },
      });
      assert.equal(refused.status(), 415);
      assert.match((await refused.json()).message, /notes\.txt is not an audio or video file/);
      // A type the browser does not know, on a media file name, is taken by its name.
      const flac = await page.request.post(`${server.url}/dashboard/run/upload-url`, {
        data: { app: app.id, fileName: "take 3.FLAC", fileType: "" },
        headers: { "x-csrf-token": token },
      });
      assert.equal(flac.status(), 200);
    });

    test("a bad value is refused with the API's own message next to its field, and nothing typed is lost", async () => {
      const jobsBefore = (await server.api("GET", "/v1/job", { key: app.apiKey })).body.length;
      await page.goto(`${server.url}/dashboard/run?app=${app.id}&workflow=mixdown/convert`);
      await page.getByLabel("Job name").fill("my conversion");
      await page.getByLabel("or paste a URL").fill("ftp://example.com/a.wav");
      await page.getByLabel("format").selectOption("mp3");
      await page.getByLabel("sampleRate").fill("100");
      await page.getByRole("button", { name: "Run" }).click();
      await page.getByRole("alert").filter({ hasText: "The job was not created" }).waitFor();
      assert.match(page.url(), /\/dashboard\/run$/);

      // The same request through the API, for its messages.
      const api = await server.api("POST", "/v1/job", {
        key: app.apiKey,
        body: {
          name: "x",
          workflow: "mixdown/convert",
          params: { inputUrl: "ftp://example.com/a.wav", format: "mp3", sampleRate: 100 },
        },
      });
      assert.equal(api.status, 422);
      const byField = new Map(
        (api.body.details as { field: string; message: string }[]).map((d) => [d.field, d.message]),
      );
      assert.equal(
        await page.locator("#param-inputUrl-error").innerText(),
        `inputUrl ${byField.get("params.inputUrl")}`,
      );
      assert.equal(
        await page.locator("#param-sampleRate-error").innerText(),
        `sampleRate ${byField.get("params.sampleRate")}`,
      );
      assert.match(byField.get("params.sampleRate") ?? "", /must be >= 8000/);
      assert.equal(await page.getByLabel("sampleRate").getAttribute("aria-invalid"), "true");

      assert.equal(await page.getByLabel("Job name").inputValue(), "my conversion");
      assert.equal(await page.getByLabel("or paste a URL").inputValue(), "ftp://example.com/a.wav");
      assert.equal(await page.getByLabel("format").inputValue(), "mp3");
      assert.equal(await page.getByLabel("sampleRate").inputValue(), "100");
      await assertAccessible(page, "run form with errors");
      await screenshot(page, "dashboard-run-errors");

      // An empty name, then a missing required choice: the API's words again, in the API's order.
      await page.getByLabel("Job name").fill("");
      await page.getByRole("button", { name: "Run" }).click();
      await page.locator("#job-name-error").waitFor();
      assert.equal(await page.locator("#job-name-error").innerText(), "name must NOT have fewer than 1 characters");
      await page.getByLabel("Job name").fill("my conversion");
      await page.getByLabel("format").selectOption("");
      await page.getByRole("button", { name: "Run" }).click();
      await page.locator("#param-format-error").waitFor();
      assert.equal(await page.locator("#param-format-error").innerText(), "format is required");
      const jobs = await server.api("GET", "/v1/job", { key: app.apiKey });
      assert.equal(jobs.body.length, jobsBefore, "no job was created");
    });

    test("paste a URL instead of uploading: the job fetches it and succeeds", async () => {
      const wav = sineWav(1, { channels: 1 });
      const fixture = await startFixture((_request, response) => {
        response.writeHead(200, { "content-type": "audio/wav", "content-length": String(wav.length) });
        response.end(wav);
      });
      try {
        await page.goto(`${server.url}/dashboard/run?app=${app.id}&workflow=mixdown/convert`);
        await page.getByLabel("Job name").fill("pasted");
        await page.getByLabel("Batch name").fill("evening session");
        await page.getByLabel("or paste a URL").fill(`${fixture.url}/tone.wav`);
        await page.getByLabel("format").selectOption("wav");
        await page.getByRole("button", { name: "Run" }).click();
        await page.waitForURL(JOB_URL);
        assert.equal(await finalStatus(page), "SUCCEEDED");
        const id = JOB_URL.exec(page.url())?.[1] ?? "";
        const job = await server.api("GET", `/v1/job/${id}`, { key: app.apiKey });
        assert.equal(job.body.workflowParams.inputUrl, `${fixture.url}/tone.wav`);
        assert.equal(job.body.batchName, "evening session");
      } finally {
        await fixture.close();
      }
    });

    test("the run page passes axe, and its posts need the session's CSRF token", async () => {
      await page.goto(`${server.url}/dashboard/run?app=${app.id}&workflow=mixdown/convert`);
      await assertAccessible(page, "run");
      await page.goto(`${server.url}/dashboard/run`);
      await assertAccessible(page, "run chooser");
      const before = (await server.api("GET", "/v1/job", { key: app.apiKey })).body.length;
      const form = {
        app: app.id,
        workflow: "mixdown/convert",
        name: "forged",
        "param.inputUrl": "https://example.com/a.wav",
        "param.format": "wav",
      };
      for (const token of [undefined, "A".repeat(43)]) {
        const post = await page.request.post(`${server.url}/dashboard/run`, {
          form: token ? { ...form, _csrf: token } : form,
          maxRedirects: 0,
        });
        assert.equal(post.status(), 403);
        const upload = await page.request.post(`${server.url}/dashboard/run/upload-url`, {
          data: { app: app.id },
          headers: token ? { "x-csrf-token": token } : {},
          maxRedirects: 0,
        });
        assert.equal(upload.status(), 403);
      }
      assert.equal((await server.api("GET", "/v1/job", { key: app.apiKey })).body.length, before);
      // With the token, the upload URL is given for an active application only.
      const token = await csrfTokenOf(page);
      const good = await page.request.post(`${server.url}/dashboard/run/upload-url`, {
        data: { app: app.id, fileName: "tone.wav", fileType: "audio/wav" },
        headers: { "x-csrf-token": token },
      });
      assert.equal(good.status(), 200);
      assert.match((await good.json()).uploadUrl, /\/uploads\//);
      const unknown = await page.request.post(`${server.url}/dashboard/run/upload-url`, {
        data: { app: "00000000-0000-4000-8000-000000000000", fileName: "tone.wav", fileType: "audio/wav" },
        headers: { "x-csrf-token": token },
      });
      assert.equal(unknown.status(), 400);
    });
  });
