import assert from "node:assert/strict";
import http from "node:http";
import { after, before, describe, test } from "node:test";
import { ConfigError, loadConfig } from "../../src/config.ts";
import { fileOrigins } from "../../src/dashboard/file-origins.ts";
import { UrlSigner } from "../../src/services/signed-urls.ts";
import { SignedFileUrls } from "../../src/store/local/signed-file-urls.ts";
import { contentDisposition } from "../../src/store/served-file.ts";
import { sineWav } from "../helpers/audio.ts";
import { startForwardingProxy } from "../helpers/http-fixture.ts";
import { type AppInfo, assertNoneRunning, Mixdown } from "../helpers/mixdown.ts";

/** What an attacker uploads: a page whose script would act as the operator if it ran on the dashboard's origin. */
const PAGE = Buffer.from("<!doctype html><title>x</title><script>document.title = 'ran'</script>");
const SANDBOX = "sandbox; default-src 'none'";
const MEDIA_SANDBOX = "sandbox; default-src 'none'; media-src 'self'; style-src 'unsafe-inline'";
const IMAGE_SANDBOX = "sandbox; default-src 'none'; style-src 'unsafe-inline'";

/** Types a browser could render as a page, run as script or apply as style, or that have no business inline. */
const DOWNLOADED = [
  "text/html",
  "text/html; charset=utf-8",
  "TEXT/HTML",
  "image/svg+xml",
  "application/xhtml+xml",
  "text/xml",
  "application/xml",
  "application/rss+xml",
  "text/xsl",
  "application/javascript",
  "text/javascript",
  "text/css",
  "application/pdf",
  "text/plain",
  "multipart/x-mixed-replace; boundary=x",
  "application/octet-stream",
];

/** Shown in place: with their own type, still sandboxed. */
const INLINE: [type: string, csp: string][] = [
  ["audio/wav", MEDIA_SANDBOX],
  ["audio/ogg; codecs=opus", MEDIA_SANDBOX],
  ["video/mp4", MEDIA_SANDBOX],
  ["image/png", IMAGE_SANDBOX],
  ["image/jpeg", IMAGE_SANDBOX],
  ["image/gif", IMAGE_SANDBOX],
  ["image/webp", IMAGE_SANDBOX],
  ["application/json", SANDBOX],
];

interface Answer {
  status: number;
  headers: Headers;
  bytes: Buffer;
}

async function get(url: string, init: RequestInit = {}): Promise<Answer> {
  const response = await fetch(url, init);
  return { status: response.status, headers: response.headers, bytes: Buffer.from(await response.arrayBuffer()) };
}

/** The headers no file answer may lack, whatever it is. */
function assertGuarded(answer: Answer, csp: string, label: string): void {
  assert.equal(answer.headers.get("x-content-type-options"), "nosniff", label);
  assert.equal(answer.headers.get("content-security-policy"), csp, label);
}

const lastSegment = (url: string) => new URL(url).pathname.split("/").pop() ?? "";

describe("file answers never make a page: types, dispositions and headers [embedded]", () => {
  let server: Mixdown;
  let app: AppInfo;

  before(async () => {
    server = await Mixdown.start();
    app = await server.createApp("files");
  });
  after(async () => {
    await server.dispose();
    assertNoneRunning();
  });

  test("a page, SVG, XML, script, style sheet, PDF or text upload is an attachment of bytes: GET, HEAD and Range alike", async () => {
    for (const type of DOWNLOADED) {
      const url = await server.upload(app.apiKey, PAGE, type);
      const id = lastSegment(url);
      const whole = await get(url);
      const head = await get(url, { method: "HEAD" });
      const part = await get(url, { headers: { range: "bytes=0-14" } });
      for (const [answer, status, label] of [
        [whole, 200, "GET"],
        [head, 200, "HEAD"],
        [part, 206, "Range"],
      ] as const) {
        assert.equal(answer.status, status, `${type} ${label}`);
        assert.equal(answer.headers.get("content-type"), "application/octet-stream", `${type} ${label}`);
        assert.equal(answer.headers.get("content-disposition"), `attachment; filename="${id}"`, `${type} ${label}`);
        assertGuarded(answer, SANDBOX, `${type} ${label}`);
        assert.equal(answer.headers.get("access-control-allow-origin"), "*");
      }
      assert.ok(whole.bytes.equals(PAGE), `${type}: the bytes are served unchanged`);
      assert.equal(head.bytes.length, 0);
      assert.equal(head.headers.get("content-length"), String(PAGE.length));
      assert.equal(part.headers.get("content-range"), `bytes 0-14/${PAGE.length}`);
      assert.ok(part.bytes.equals(PAGE.subarray(0, 15)));
    }
  });

  test("an upload with no Content-Type at all is an attachment of bytes too", async () => {
    const pair = (await server.api("GET", "/v1/upload", { key: app.apiKey })).body;
    const put = await new Promise<number>((resolve, reject) => {
      const request = http.request(pair.uploadUrl, { method: "PUT", headers: { "content-length": PAGE.length } });
      request.on("response", (response) => {
        response.resume();
        resolve(response.statusCode ?? 0);
      });
      request.on("error", reject);
      request.end(PAGE);
    });
    assert.equal(put, 200);
    const answer = await get(pair.downloadUrl);
    assert.equal(answer.headers.get("content-type"), "application/octet-stream");
    assert.match(answer.headers.get("content-disposition") ?? "", /^attachment; /);
    assertGuarded(answer, SANDBOX, "untyped");
  });

  test("media, PNG/JPEG/GIF/WebP images and JSON are inline with their own type, sandboxed all the same", async () => {
    for (const [type, csp] of INLINE) {
      // The uploader chose the type: the bytes may be anything, and nosniff keeps them that type.
      const url = await server.upload(app.apiKey, PAGE, type);
      for (const init of [{}, { method: "HEAD" }, { headers: { range: "bytes=1-" } }]) {
        const answer = await get(url, init);
        assert.equal(answer.headers.get("content-type"), type);
        assert.equal(answer.headers.get("content-disposition"), `inline; filename="${lastSegment(url)}"`, type);
        assertGuarded(answer, csp, type);
      }
    }
  });

  test("error answers (bad signature, missing file, unsatisfiable range) are guarded JSON with no file headers", async () => {
    const url = await server.upload(app.apiKey, PAGE, "text/html");
    const forged = new URL(url);
    forged.searchParams.set("signature", "A".repeat(43));
    const missing = url.replace(/uploads\/[^?]+/, "uploads/00000000-0000-4000-8000-000000000000");
    const answers: [Answer, number][] = [
      [await get(forged.toString()), 403],
      [await get(missing), 403], // the signature covers the path: another id is a bad signature
      [await get(url, { headers: { range: `bytes=${PAGE.length}-` } }), 416],
    ];
    // A signed URL of a file that is not there (an upload URL never used).
    const unused = (await server.api("GET", "/v1/upload", { key: app.apiKey })).body.downloadUrl;
    answers.push([await get(unused), 404]);
    for (const [answer, status] of answers) {
      assert.equal(answer.status, status);
      assert.match(answer.headers.get("content-type") ?? "", /^application\/json/);
      assert.equal(answer.headers.get("content-disposition"), null);
      assertGuarded(answer, SANDBOX, `${status}`);
    }
    assert.equal(answers[2]?.[0].headers.get("content-range"), `bytes */${PAGE.length}`);
  });

  test("result files: inline with their type and named by their key; guarded on GET, HEAD and Range", async () => {
    const inputUrl = await server.upload(app.apiKey, sineWav(1), "audio/wav");
    const converted = await server.runJob(app.apiKey, "mixdown/convert", { inputUrl, format: "mp3" });
    const drawn = await server.runJob(app.apiKey, "mixdown/waveform", { inputUrl, width: 64, height: 32 });
    const files: [url: string, type: string, name: string, csp: string][] = [
      [converted.result.output, "audio/mpeg", "output.mp3", MEDIA_SANDBOX],
      [drawn.result.image, "image/png", "image.png", IMAGE_SANDBOX],
      [drawn.result.peaks, "application/json", "peaks.json", SANDBOX],
    ];
    for (const [url, type, name, csp] of files) {
      for (const init of [{}, { method: "HEAD" }, { headers: { range: "bytes=0-3" } }]) {
        const answer = await get(url, init);
        assert.ok([200, 206].includes(answer.status), `${name}: ${answer.status}`);
        assert.equal(answer.headers.get("content-type"), type);
        assert.equal(answer.headers.get("content-disposition"), `inline; filename="${name}"`);
        assertGuarded(answer, csp, name);
      }
    }
  });
});

describe("Content-Disposition names (RFC 6266, RFC 8187)", () => {
  test("a plain name is quoted as is; anything else gets an ASCII fallback and a UTF-8 filename*", () => {
    assert.equal(contentDisposition("audio/wav", "vocals.wav"), 'inline; filename="vocals.wav"');
    assert.equal(
      contentDisposition("audio/wav", "voix é.wav"),
      `inline; filename="voix _.wav"; filename*=UTF-8''voix%20%C3%A9.wav`,
    );
    // Quotes, backslashes, separators and line breaks never reach the header as such.
    const hostile = contentDisposition("text/html", 'a"b\\c;d\r\ne/../f.html');
    assert.equal(
      hostile,
      `attachment; filename="a_b_c_d__e_.._f.html"; filename*=UTF-8''a%22b%5Cc%3Bd%0D%0Ae%2F..%2Ff.html`,
    );
    assert.doesNotMatch(hostile, /[\r\n]/);
    assert.equal(contentDisposition("image/png", "..."), `inline; filename="file"; filename*=UTF-8''...`);
    assert.equal(
      contentDisposition("audio/wav", "(x)*'.wav"),
      `inline; filename="(x)__.wav"; filename*=UTF-8''%28x%29%2A%27.wav`,
    );
  });
});

describe("MIXDOWN_FILES_URL: files on an origin of their own", () => {
  let server: Mixdown;
  let app: AppInfo;
  let files: Awaited<ReturnType<typeof startForwardingProxy>>;

  before(async () => {
    // A load balancer giving the same node a second host name: "localhost", not the 127.0.0.1 of the public URL.
    files = await startForwardingProxy({ hostname: "localhost" });
    server = await Mixdown.start({ MIXDOWN_FILES_URL: files.url });
    files.to(server.url);
    app = await server.createApp("files-origin");
  });
  after(async () => {
    await server.dispose();
    await files.close();
    assertNoneRunning();
  });

  test("downloads and results are signed on the files URL and served there; the public URL's host refuses them", async () => {
    const pair = (await server.api("GET", "/v1/upload", { key: app.apiKey })).body;
    assert.ok(pair.uploadUrl.startsWith(`${server.url}/uploads/`), "uploads stay on the public URL");
    assert.ok(pair.downloadUrl.startsWith(`${files.url}/files/uploads/`), pair.downloadUrl);
    const wav = sineWav(0.5);
    assert.equal((await fetch(pair.uploadUrl, { method: "PUT", body: new Uint8Array(wav) })).status, 200);
    const served = await get(pair.downloadUrl);
    assert.equal(served.status, 200);
    assert.ok(served.bytes.equals(wav));
    assertGuarded(served, SANDBOX, "upload on the files host");

    // The same signed path on the dashboard's host: the signature does not cover the host, so it is refused there.
    const moved = pair.downloadUrl.replace(files.url, server.url);
    const refused = await get(moved);
    assert.equal(refused.status, 404);
    assert.match(JSON.parse(refused.bytes.toString()).message, new RegExp(`served at ${files.url}`));
    assertGuarded(refused, SANDBOX, "refused on the public host");

    // The job reads its input by the files URL as one of Mixdown's own (private addresses stay refused).
    const job = await server.runJob(app.apiKey, "mixdown/convert", { inputUrl: pair.downloadUrl, format: "mp3" });
    assert.ok(job.result.output.startsWith(`${files.url}/files/results/${job.id}/`), job.result.output);
    const result = await get(job.result.output);
    assert.equal(result.status, 200);
    assert.equal(result.headers.get("content-type"), "audio/mpeg");
  });

  test("the files host serves files only: no dashboard, no API, no documentation; health and metrics answer", async () => {
    for (const path of ["/dashboard/sign-in", "/dashboard", "/", "/v1/workflows", "/docs", "/openapi.json"]) {
      const answer = await get(`${files.url}${path}`, { redirect: "manual" });
      assert.equal(answer.status, 404, path);
      assert.equal(answer.headers.get("set-cookie"), null, `${path}: no cookie on the files host`);
      assertGuarded(answer, SANDBOX, path);
    }
    assert.equal((await get(`${files.url}/healthz`)).status, 200);
    assert.equal((await get(`${files.url}/metrics`)).status, 200);
    // The public URL serves the dashboard as before.
    assert.equal((await get(`${server.url}/dashboard/sign-in`)).status, 200);
  });

  test("the dashboard's CSP lets its players and views reach the files origin", async () => {
    const csp = (await get(`${server.url}/dashboard/sign-in`)).headers.get("content-security-policy") ?? "";
    for (const directive of ["img-src", "media-src", "connect-src"])
      assert.match(csp, new RegExp(`${directive} [^;]*${files.url.replace(/[.:/]/g, "\\$&")}`), directive);
  });
});

describe("file URLs signed before MIXDOWN_FILES_URL was set", () => {
  test("still name their file (a job reads it from storage), while new URLs are on the files URL", async () => {
    const secret = "s".repeat(32);
    const before = new SignedFileUrls(new UrlSigner(secret, "https://api.example.com"));
    const after = new SignedFileUrls(
      new UrlSigner(secret, "https://api.example.com"),
      new UrlSigner(secret, "https://files.example.net"),
    );
    const old = await before.downloadUrl("uploads/u1", 60);
    assert.deepEqual(await after.keyOf(old, Date.now()), { key: "uploads/u1" });
    const fresh = await after.downloadUrl("uploads/u1", 60);
    assert.ok(fresh.startsWith("https://files.example.net/files/uploads/u1?"));
    assert.deepEqual(await after.keyOf(fresh, Date.now()), { key: "uploads/u1" });
    assert.equal(await after.keyOf(fresh.replace(/signature=./, "signature=%"), Date.now()), "invalid");
    assert.equal(
      await after.keyOf("https://elsewhere.example.org/files/uploads/u1?expires=1&signature=x", 0),
      undefined,
    );
  });
});

describe("MIXDOWN_FILES_URL and the object store's origin are checked at start", () => {
  const base = { MIXDOWN_DATA_DIR: "/tmp/unused", MIXDOWN_PUBLIC_URL: "https://mixdown.example.com" };
  const s3 = { MIXDOWN_S3_BUCKET: "b", MIXDOWN_S3_ENDPOINT: "https://s3.example.com" };

  test("a files URL on another origin is taken, and the dashboard's CSP names it beside the public URL", () => {
    const config = loadConfig({ ...base, MIXDOWN_FILES_URL: "https://files.example.net/" });
    assert.equal(config.filesUrl, "https://files.example.net");
    assert.deepEqual(fileOrigins(config), ["https://files.example.net", "https://mixdown.example.com"]);
    assert.equal(loadConfig(base).filesUrl, undefined);
    assert.deepEqual(fileOrigins(loadConfig(base)), ["https://mixdown.example.com"]);
  });

  test("refused: not a URL, the dashboard's own origin, with S3, or a bucket on the dashboard's origin", () => {
    const refusals: [Record<string, string>, RegExp][] = [
      [{ MIXDOWN_FILES_URL: "files.example.net" }, /MIXDOWN_FILES_URL must be an absolute http\(s\) URL/],
      [{ MIXDOWN_FILES_URL: "ftp://files.example.net" }, /MIXDOWN_FILES_URL must use http or https/],
      [{ MIXDOWN_FILES_URL: "https://mixdown.example.com/files" }, /MIXDOWN_FILES_URL must be on another origin/],
      [{ MIXDOWN_FILES_URL: "https://files.example.net", ...s3 }, /MIXDOWN_FILES_URL is for files on local disk/],
      [
        { MIXDOWN_S3_BUCKET: "b", MIXDOWN_S3_ENDPOINT: "https://mixdown.example.com/s3" },
        /MIXDOWN_S3_ENDPOINT addresses the bucket on MIXDOWN_PUBLIC_URL's origin/,
      ],
    ];
    for (const [env, message] of refusals)
      assert.throws(
        () => loadConfig({ ...base, ...env }),
        (error) => error instanceof ConfigError && message.test(error.message),
      );
    assert.doesNotThrow(() => loadConfig({ ...base, ...s3 }));
  });
});
