import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import type { Browser, Page } from "playwright-core";
import { describeOrSkip, TEST_S3 } from "../helpers/backends.ts";
import { startFixture } from "../helpers/http-fixture.ts";
import { type AppInfo, BACKENDS, Mixdown } from "../helpers/mixdown.ts";
import { composePiece, encodeWav as encodePiece, renderPiece } from "../midi/piece.ts";
import { encodeWav as encodeTrack, generateTrack, suiteSpecs, type TrackSpec } from "../music/generator.ts";
import { encodeWav as encodeSpeech, programme, silence, speak } from "../speech/speech-audio.ts";
import { assertAccessible, chromiumUnavailable, closeBrowserAndServer, openPage, screenshot } from "./browser.ts";
import { addOperator, OPERATOR_PASSWORD } from "./operator-session.ts";

const XSS_NAME = "<img src=x onerror=alert(1)>";
const SPOKEN = "the weather is nice today";

/** A few seconds of each kind of input: a band track, a melody, a spoken sentence. */
async function inputs() {
  const track = generateTrack({ ...(suiteSpecs()[5] as TrackSpec), durationSeconds: 8 });
  const piece = composePiece(4, 3);
  const speech = programme([silence(0.5), { text: SPOKEN, audio: await speak(SPOKEN) }, silence(0.5)]);
  return {
    music: encodeTrack(track),
    melody: encodePiece(renderPiece(piece, 22050), 22050),
    speech: encodeSpeech(speech.samples),
  };
}

/** True when some pixel of some canvas under `selector` (wavesurfer draws in a shadow root) is not transparent. */
function canvasDrawn(page: Page, selector: string): Promise<boolean> {
  return page.locator(selector).evaluate((container) => {
    const canvases = [...(container.firstElementChild?.shadowRoot?.querySelectorAll("canvas") ?? [])];
    return canvases.some((canvas) => {
      if (canvas.width === 0 || canvas.height === 0) return false;
      const pixels = canvas.getContext("2d")?.getImageData(0, 0, canvas.width, canvas.height).data ?? [];
      for (let i = 3; i < pixels.length; i += 4) if ((pixels[i] ?? 0) > 0) return true;
      return false;
    });
  });
}

for (const { backend, skip } of BACKENDS)
  describeOrSkip(`dashboard job result views [${backend}]`, skip ?? chromiumUnavailable, () => {
    let server: Mixdown;
    let browser: Browser;
    let page: Page;
    let app: AppInfo;
    let elsewhere: Awaited<ReturnType<typeof startFixture>>;
    const jobs: Record<string, { id: string; result: Record<string, unknown> }> = {};
    const dialogs: string[] = [];
    const problems: string[] = [];
    const shoot = (name: string) => (backend === "embedded" ? screenshot(page, name) : Promise.resolve());
    const open = async (name: string) => {
      const job = jobs[name];
      assert.ok(job, name);
      await page.goto(`${server.url}/dashboard/jobs/${job.id}`);
      return job;
    };
    const fetchJson = async (url: unknown) => (await fetch(String(url))).json();
    /** A signed URL without its signature (each page signs afresh). */
    const unsigned = (url: unknown) => String(url).split("?")[0];

    before(async () => {
      // Inputs on loopback allowed: one job reads its input from another web server, not from Mixdown.
      server = await Mixdown.start({ MIXDOWN_ALLOW_PRIVATE_URLS: "true" }, { backend });
      await addOperator(server, "admin");
      app = await server.createApp("Studio");
      const { music, melody, speech } = await inputs();
      elsewhere = await startFixture((_request, response) => {
        response.writeHead(200, { "content-type": "audio/wav" });
        response.end(music);
      });
      const [musicUrl, melodyUrl, speechUrl] = await Promise.all([
        server.upload(app.apiKey, music, "audio/wav"),
        server.upload(app.apiKey, melody, "audio/wav"),
        server.upload(app.apiKey, speech, "audio/wav"),
      ]);
      const specs: [string, string, Record<string, unknown>][] = [
        ["convert", "mixdown/convert", { inputUrl: musicUrl, format: "mp3" }],
        ["stems", "mixdown/stems-drums", { inputUrl: musicUrl, method: "classical" }],
        ["beats", "mixdown/beats-chords", { inputUrl: musicUrl }],
        ["tempo", "mixdown/tempo", { inputUrl: `${elsewhere.url}/music.wav` }],
        ["tempo-of-speech", "mixdown/tempo", { inputUrl: speechUrl }],
        ["midi", "mixdown/midi", { inputUrl: melodyUrl }],
        ["transcribe", "mixdown/transcribe", { inputUrl: speechUrl }],
        ["align", "mixdown/align-lyrics", { inputUrl: speechUrl, lyrics: SPOKEN }],
        ["waveform", "mixdown/waveform", { inputUrl: musicUrl }],
        ["spectrogram", "mixdown/spectrogram", { inputUrl: musicUrl, width: 600, height: 200 }],
        [XSS_NAME, "mixdown/probe", { inputUrl: speechUrl }],
      ];
      const ids = await Promise.all(
        specs.map(([name, workflow, params]) => server.createJob(app.apiKey, workflow, params, { name })),
      );
      for (const [i, [name]] of specs.entries()) {
        const job = await server.waitForJob(app.apiKey, ids[i] as string, 180_000);
        assert.equal(job.status, "SUCCEEDED", `${name}: ${JSON.stringify(job.error)}`);
        jobs[name] = job;
      }

      ({ browser, page } = await openPage({ viewport: { width: 1200, height: 900 }, timeout: 15_000 }));
      // CSP violations with where they came from: axe-core, run by the tests through DevTools, copies the
      // waveforms' shadow-root <style> to read it, without the nonce; that one has no source file.
      await page.addInitScript(() =>
        document.addEventListener("securitypolicyviolation", (event) => {
          if (event.sourceFile) console.error(`CSP: ${event.effectiveDirective} blocked in ${event.sourceFile}`);
        }),
      );
      page.on("dialog", (dialog) => {
        dialogs.push(dialog.message());
        void dialog.dismiss();
      });
      // A CSP violation or a failed module shows up here: no view may depend on something the page refuses.
      page.on("console", (message) => {
        const text = message.text();
        if (message.type() === "error" && !text.includes("Content Security Policy"))
          problems.push(`${page.url()}: ${text}`);
      });
      page.on("pageerror", (error) => problems.push(`${page.url()}: ${error.message}`));
      await page.goto(`${server.url}/dashboard/sign-in`);
      await page.getByLabel("Name").fill("admin");
      await page.getByLabel("Password").fill(OPERATOR_PASSWORD);
      await page.getByRole("button", { name: "Sign in" }).click();
      await page.waitForURL("**/dashboard/applications");
    });
    after(async () => {
      await elsewhere?.close();
      await closeBrowserAndServer(browser, server);
    });

    test("the CSP admits result files from their origin only, and styles by this response's nonce", async () => {
      const job = jobs.convert;
      const response = await page.request.get(`${server.url}/dashboard/jobs/${job?.id}`);
      const csp = response.headers()["content-security-policy"] ?? "";
      // Local file URLs are signed on MIXDOWN_PUBLIC_URL, which may name this host otherwise than the page does.
      const files = ` ${new URL(backend === "distributed" ? TEST_S3.endpoint : server.url).origin}`;
      for (const directive of ["media-src 'self'", "img-src 'self' data:", "connect-src 'self'"])
        assert.ok(csp.includes(`${directive}${files};`), `${directive}${files} in ${csp}`);
      assert.match(csp, /script-src 'self';/);
      const nonce = /style-src 'self' 'nonce-([\w+/=]+)';/.exec(csp)?.[1];
      assert.ok(nonce, csp);
      assert.ok((await response.text()).includes(`data-style-nonce="${nonce}"`));
      const again = await page.request.get(`${server.url}/dashboard/jobs/${job?.id}`);
      assert.ok(!(again.headers()["content-security-policy"] ?? "").includes(nonce), "a new nonce each response");

      // The browser modules come from the npm package, and nothing else of node_modules is served.
      const vendor = await fetch(`${server.url}/dashboard/assets/vendor/wavesurfer.esm.js`);
      assert.equal(vendor.status, 200);
      assert.match(vendor.headers.get("content-type") ?? "", /javascript/);
      for (const path of ["vendor/wavesurfer.d.ts", "vendor/package.json", "vendor/wavesurfer.cjs"])
        assert.equal((await fetch(`${server.url}/dashboard/assets/${path}`)).status, 404, path);
    });

    test("an audio output: a player with its waveform drawn, and its download", async () => {
      const job = await open("convert");
      await page.locator("[data-waveform][data-drawn=true]").waitFor();
      assert.equal(await canvasDrawn(page, "[data-waveform]"), true);
      const download = page.getByRole("link", { name: "Download output" });
      assert.equal(unsigned(await download.getAttribute("href")), unsigned(job.result.output));
      await page.locator(".player audio").evaluate((audio: HTMLAudioElement) => audio.play());
      await page.waitForFunction(() => (document.querySelector(".player audio") as HTMLAudioElement).currentTime > 0.2);
      await page.locator(".player audio").evaluate((audio: HTMLAudioElement) => audio.pause());
      await assertAccessible(page, "audio result");
      await shoot("dashboard-result-audio");
    });

    test("stems: a mixer with one channel per stem, in sync, with fader, mute and solo", async () => {
      await open("stems");
      const mixer = page.locator("[data-mixer]");
      await mixer.locator("[data-status]", { hasText: "2 stems ready" }).waitFor({ timeout: 30_000 });
      const channels = mixer.locator(".channel");
      assert.deepEqual(await channels.evaluateAll((list) => list.map((c) => (c as HTMLElement).dataset.stem)), [
        "drums",
        "other",
      ]);
      for (const stem of ["drums", "other"]) {
        await assert.doesNotReject(page.getByLabel(`Volume of ${stem}`).waitFor());
        assert.equal(await canvasDrawn(page, `.channel[data-stem="${stem}"] [data-stem-wave]`), true, stem);
      }
      await page.getByRole("button", { name: "Solo drums" }).click();
      assert.equal(await page.getByRole("button", { name: "Solo drums" }).getAttribute("aria-pressed"), "true");
      assert.deepEqual(await channels.evaluateAll((list) => list.map((c) => (c as HTMLElement).dataset.audible)), [
        "true",
        "false",
      ]);
      await page.getByRole("button", { name: "Mute drums" }).click();
      assert.deepEqual(await channels.evaluateAll((list) => list.map((c) => (c as HTMLElement).dataset.audible)), [
        "false",
        "false",
      ]);
      await page.getByRole("button", { name: "Mute drums" }).click();
      await page.getByRole("button", { name: "Solo drums" }).click();
      await page.getByLabel("Volume of other").fill("0.5");

      const play = mixer.getByRole("button", { name: "Play" });
      await play.click();
      await page.waitForFunction(
        () => Number((document.querySelector("[data-position]") as HTMLInputElement).value) > 0.3,
      );
      await mixer.getByRole("button", { name: "Pause" }).click();
      const stopped = Number(await page.getByLabel("Position").inputValue());
      assert.ok(stopped > 0.3 && stopped < 8, `position ${stopped}`);
      assert.match(await mixer.locator("[data-time]").innerText(), /^0:0\d\.\d \/ 0:08\.0$/);
      await assertAccessible(page, "stem mixer");
      await shoot("dashboard-result-stems");
    });

    test("without script the results still play and download: native players, links, no dead controls", async () => {
      const context = await browser.newContext({ javaScriptEnabled: false });
      await context.addCookies(await page.context().cookies());
      const bare = await context.newPage();
      await bare.goto(`${server.url}/dashboard/jobs/${jobs.stems?.id}`);
      assert.equal(await bare.locator(".channel audio[controls]").count(), 2);
      assert.equal(await bare.getByRole("link", { name: /^Download (drums|other)$/ }).count(), 2);
      assert.equal(await bare.locator(".stem-controls").first().isHidden(), true);
      assert.match(await bare.locator("[data-status]").innerText(), /needs JavaScript/);
      await bare.goto(`${server.url}/dashboard/jobs/${jobs.transcribe?.id}`);
      assert.ok((await bare.locator(".transcript .word").count()) >= 3);
      assert.match(await bare.locator(".transcript").innerText(), /0:00\.\d/);
      await context.close();
    });

    test("beats and chords: one marker a beat, downbeats marked, chord and section labels, bpm and key", async () => {
      const job = await open("beats");
      const beats = (await fetchJson(job.result.beatMap)) as { time: number; beatNum: number }[];
      const chords = (await fetchJson(job.result.chordMap)) as { chord: string }[];
      const lanes = page.locator(".timeline .lanes");
      await lanes.locator(".beat-lane").waitFor();
      assert.equal(await lanes.locator(".beat").count(), beats.length);
      assert.equal(await lanes.locator(".beat.downbeat").count(), beats.filter((b) => b.beatNum === 1).length);
      assert.ok(beats.length >= 8, `${beats.length} beats`);
      assert.deepEqual(
        await lanes.locator(".chord").allInnerTexts(),
        chords.map((c) => (c.chord === "N" ? "N.C." : c.chord)),
      );
      const sections = (await fetchJson(job.result.sections)) as { label: string }[];
      assert.deepEqual(
        await lanes.locator(".section").allInnerTexts(),
        sections.map((s) => `Section ${s.label}`),
      );
      const values = await page.locator(".values").innerText();
      assert.match(values, new RegExp(`bpm\\s+${Number((job.result.bpm as number).toFixed(2))}`));
      assert.match(values, new RegExp(`key\\s+${job.result.key}`));
      await page.locator(".timeline [data-waveform][data-drawn=true]").waitFor();

      // The chord under the playhead is lit, and follows it.
      const last = chords.length - 1;
      await lanes.locator(".chord").nth(last).click();
      await page.waitForFunction(() => !(document.getElementById("source-audio") as HTMLAudioElement).paused);
      // Waited for, not read once: on a loaded machine the playhead can pass the last chord's end before a read.
      await page.waitForFunction(
        (index) => document.querySelectorAll(".timeline .lanes .chord")[index]?.classList.contains("current"),
        last,
      );
      await page.locator("#source-audio").evaluate((audio: HTMLAudioElement) => audio.pause());
      await assertAccessible(page, "beats and chords");
      await shoot("dashboard-result-beats-chords");
    });

    test("beats of an input stored elsewhere: the grid without audio, and why there is none", async () => {
      const job = await open("tempo");
      const beats = (await fetchJson(job.result.beatMap)) as { beatNum: number }[];
      assert.match(await page.locator(".no-source").innerText(), /not a file stored by Mixdown/);
      await page.locator(".beat-lane").waitFor();
      assert.equal(await page.locator(".beat").count(), beats.length);
      assert.equal(await page.locator(".beat.downbeat").count(), beats.filter((b) => b.beatNum === 1).length);
      assert.equal(await page.locator(".chord").count(), 0);
      assert.equal(await page.locator("audio, [data-waveform]").count(), 0);
      assert.match(await page.locator(".values").innerText(), /bpm\s+\d/);
      await assertAccessible(page, "beats without audio");
    });

    test("speech has no tempo: bpm null in the API, 'none found' on the page, and no beats drawn", async () => {
      const job = await open("tempo-of-speech");
      assert.equal(job.result.bpm, null);
      assert.ok((job.result.confidence as number) < 0.5, `confidence ${job.result.confidence}`);
      assert.deepEqual(await fetchJson(job.result.beatMap), []);
      assert.match(await page.locator(".values").innerText(), /bpm\s+none found/);
      assert.equal(await page.locator(".beat").count(), 0);
    });

    test("MIDI: a piano roll with one bar a note, and the .mid to download", async () => {
      const job = await open("midi");
      const notes = (await fetchJson(job.result.notes)) as unknown[];
      assert.ok(notes.length > 0);
      await page.locator(".roll svg").waitFor();
      assert.equal(await page.locator(".roll .note").count(), notes.length);
      assert.equal(
        unsigned(await page.getByRole("link", { name: "Download midi" }).getAttribute("href")),
        unsigned(job.result.midi),
      );
      await assertAccessible(page, "piano roll");
      await shoot("dashboard-result-midi");
    });

    test("transcript: the words with their times; a word plays the audio from there", async () => {
      const job = await open("transcribe");
      const segments = (await fetchJson(job.result.transcript)) as { words: { word: string; start: number }[] }[];
      const words = segments.flatMap((s) => s.words);
      assert.ok(words.length >= 3, JSON.stringify(segments));
      const shown = page.locator(".transcript .word");
      assert.equal(await shown.count(), words.length);
      const second = words[1] as { word: string; start: number };
      const button = shown.nth(1);
      assert.equal(await button.getAttribute("data-start"), String(second.start));
      assert.match(await button.innerText(), new RegExp(`^${second.word}\\s+0:0${second.start.toFixed(1)}$`));
      await button.click();
      await page.waitForFunction(() => !(document.getElementById("source-audio") as HTMLAudioElement).paused);
      const at = await page.locator("#source-audio").evaluate((audio: HTMLAudioElement) => {
        audio.pause();
        return audio.currentTime;
      });
      assert.ok(at >= second.start && at < second.start + 1.5, `played from ${at}, word at ${second.start}`);
      await assertAccessible(page, "transcript");
      await shoot("dashboard-result-transcript");

      const aligned = await open("align");
      const alignment = (await fetchJson(aligned.result.alignment)) as { word: string; start: number | null }[];
      assert.deepEqual(
        await page.locator(".transcript .word").evaluateAll((list) => list.map((w) => w.firstChild?.textContent)),
        alignment.map((w) => w.word),
      );
      assert.equal(
        await page.locator(".transcript button.word").count(),
        alignment.filter((w) => w.start !== null).length,
      );
      await assertAccessible(page, "word timings");
    });

    test("PNG outputs shown as images; other JSON formatted", async () => {
      for (const name of ["waveform", "spectrogram"]) {
        const job = await open(name);
        const image = page.locator(".result.image img");
        await page.waitForFunction(() => {
          const img = document.querySelector(".result.image img") as HTMLImageElement | null;
          return img?.complete && img.naturalWidth > 0;
        });
        assert.equal(unsigned(await image.getAttribute("src")), unsigned(job.result.image));
        assert.ok((await image.evaluate((img: HTMLImageElement) => img.naturalWidth)) > 0, name);
        await assertAccessible(page, name);
        await shoot(`dashboard-result-${name}`);
      }
      await open("waveform");
      assert.match(await page.locator(".result.json pre").innerText(), /^\{\n/);
    });

    test("a job named with markup is shown as text; its JSON result formatted; no script ran from it", async () => {
      await open(XSS_NAME);
      assert.equal(await page.getByRole("heading", { name: XSS_NAME }).count(), 1);
      assert.equal(await page.locator('img[src="x"]').count(), 0);
      assert.match(await page.locator(".result.json pre").innerText(), /"format"|"duration"/);
      assert.deepEqual(dialogs, []);
      await assertAccessible(page, "probe");
    });

    test("no view broke the page's CSP or threw", () => {
      assert.deepEqual(problems, []);
    });
  });
