import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { isPublicAddress } from "../../src/jobs/download-url.ts";
import { sineWav } from "../helpers/audio.ts";
import { describeOrSkip } from "../helpers/backends.ts";
import { startFixture } from "../helpers/http-fixture.ts";
import { type AppInfo, assertNoneRunning, BACKENDS, Mixdown } from "../helpers/mixdown.ts";

const wav = sineWav(1);

for (const { backend, skip } of BACKENDS)
  describeOrSkip(`inputs fetched over HTTP [${backend}]`, skip, () => {
    let open: Mixdown;
    let guarded: Mixdown;
    let openApp: AppInfo;
    let guardedApp: AppInfo;
    let fixture: Awaited<ReturnType<typeof startFixture>>;
    const requests: string[] = [];

    before(async () => {
      fixture = await startFixture((request, response) => {
        requests.push(request.url ?? "");
        if (request.url === "/song.wav") response.writeHead(200, { "content-type": "audio/wav" }).end(wav);
        else if (request.url === "/redirect") response.writeHead(302, { location: "/song.wav" }).end();
        else if (request.url === "/missing") response.writeHead(404).end("no");
        else if (request.url === "/short") {
          response.writeHead(200, { "content-length": String(wav.length) });
          response.write(wav.subarray(0, 1000));
          setTimeout(() => response.destroy(), 50);
        }
        // /hang: never answers.
      });
      [open, guarded] = await Promise.all([
        Mixdown.start({ MIXDOWN_ALLOW_PRIVATE_URLS: "true", MIXDOWN_FETCH_TIMEOUT_MS: "700" }, { backend, workers: 1 }),
        Mixdown.start({}, { backend, workers: 1 }),
      ]);
      [openApp, guardedApp] = await Promise.all([open.createApp(), guarded.createApp()]);
    });
    after(async () => {
      await Promise.all([open.dispose(), guarded.dispose()]);
      await fixture.close();
      assertNoneRunning();
    });

    const run = async (server: Mixdown, app: AppInfo, inputUrl: string) =>
      server.waitForJob(app.apiKey, await server.createJob(app.apiKey, "mixdown/convert", { inputUrl, format: "mp3" }));

    test("any http URL is downloaded (redirects followed) and converted", async () => {
      for (const url of [`${fixture.url}/song.wav`, `${fixture.url}/redirect`]) {
        const job = await run(open, openApp, url);
        assert.equal(job.status, "SUCCEEDED", JSON.stringify(job.error));
      }
    });

    test("a server that never answers: FAILED with TIMEOUT after MIXDOWN_FETCH_TIMEOUT_MS", async () => {
      const job = await run(open, openApp, `${fixture.url}/hang`);
      assert.equal(job.status, "FAILED");
      assert.deepEqual({ code: job.error.code, title: job.error.title }, { code: "TIMEOUT", title: "Timeout" });
      assert.match(job.error.message, /Timed out reading the input URL/);
    });

    test("HTTP errors and cut-off downloads: FAILED with BAD_INPUT saying why", async () => {
      const missing = await run(open, openApp, `${fixture.url}/missing`);
      assert.equal(missing.error.code, "BAD_INPUT");
      assert.match(missing.error.message, /HTTP 404/);
      const short = await run(open, openApp, `${fixture.url}/short`);
      assert.equal(short.error.code, "BAD_INPUT");
      assert.match(short.error.message, /incomplete|reset|interrupted|before the file was complete/);
    });

    test("internal addresses are refused by default, without a request reaching them", async () => {
      const before = requests.length;
      for (const host of [
        `127.0.0.1:${fixture.port}`,
        `localhost:${fixture.port}`,
        `[::1]:${fixture.port}`,
        "10.1.2.3",
        "169.254.169.254",
        "[fd00::1]",
      ]) {
        const job = await run(guarded, guardedApp, `http://${host}/song.wav`);
        assert.equal(job.status, "FAILED", host);
        assert.equal(job.error.code, "BAD_INPUT", host);
        assert.match(job.error.message, /internal address/, host);
      }
      assert.equal(requests.length, before, "no request reached the fixture");
    });
  });

test("address classification: only public unicast is public", () => {
  for (const address of [
    "127.0.0.1",
    "10.0.0.1",
    "172.16.5.4",
    "192.168.1.1",
    "169.254.1.1",
    "100.64.0.1",
    "0.0.0.0",
    "::1",
    "fe80::1",
    "fc00::1",
    "::ffff:127.0.0.1",
    "224.0.0.1",
    "255.255.255.255",
  ]) {
    assert.equal(isPublicAddress(address), false, address);
  }
  for (const address of ["93.184.216.34", "8.8.8.8", "2606:4700::1111"])
    assert.equal(isPublicAddress(address), true, address);
});
