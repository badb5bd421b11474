import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import fs from "node:fs";
import http from "node:http";
import path from "node:path";
import { Readable } from "node:stream";
import { after, before, describe, test } from "node:test";
import { setTimeout as delay } from "node:timers/promises";
import { type AppInfo, assertNoneRunning, Mixdown } from "../helpers/mixdown.ts";

const DAY = 24 * 3600;
const CAP = 4 * 1024 * 1024;
const CHUNK = 64 * 1024;

interface Pair {
  uploadUrl: string;
  downloadUrl: string;
}

interface RawResponse {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: Buffer;
}

/**
 * A request through node:http, so that exactly the given headers are sent (no Content-Type unless given; no
 * Content-Length means a chunked body). All chunks are written at once (a small body leaves in one write, so a
 * server that answers before reading it cannot make a later write fail). With end: false the request is never
 * ended: the body stops after the chunks (for a body that must be refused by its size alone).
 */
function send(
  url: string,
  options: { method?: string; headers?: Record<string, string | number>; chunks?: Buffer[]; end?: boolean } = {},
): Promise<RawResponse> {
  const { method = "PUT", headers = {}, chunks = [], end = true } = options;
  return new Promise((resolve, reject) => {
    const request = http.request(url, { method, headers }, (response) => {
      const parts: Buffer[] = [];
      response.on("data", (part: Buffer) => parts.push(part));
      response.on("end", () => {
        resolve({ status: response.statusCode ?? 0, headers: response.headers, body: Buffer.concat(parts) });
        request.destroy();
      });
      response.on("error", reject);
    });
    request.on("error", reject);
    for (const chunk of chunks) request.write(chunk);
    if (end) request.end();
    else request.flushHeaders();
  });
}

function split(bytes: Buffer, size = CHUNK): Buffer[] {
  const chunks: Buffer[] = [];
  for (let i = 0; i < bytes.length; i += size) chunks.push(bytes.subarray(i, i + size));
  return chunks;
}

async function download(
  url: string,
  init: RequestInit = {},
): Promise<{ status: number; headers: Headers; bytes: Buffer }> {
  const response = await fetch(url, init);
  return { status: response.status, headers: response.headers, bytes: Buffer.from(await response.arrayBuffer()) };
}

async function errorCode(response: Response): Promise<string> {
  return ((await response.json()) as { code: string }).code;
}

function uploadId(url: string): string {
  const id = new URL(url).pathname.split("/").pop();
  assert.ok(id);
  return id;
}

function blobFile(server: Mixdown, url: string): string {
  return path.join(server.dataDir, "blobs", "uploads", uploadId(url));
}

/** Every file under blobs/uploads belonging to the upload (the blob, its metadata, any partial file). */
function filesOf(server: Mixdown, url: string): string[] {
  const dir = path.join(server.dataDir, "blobs", "uploads");
  if (!fs.existsSync(dir)) return [];
  return fs.readdirSync(dir).filter((name) => name.startsWith(uploadId(url)));
}

/** The URL with one query parameter replaced. */
function withParam(url: string, name: string, value: string | undefined): string {
  const parsed = new URL(url);
  if (value === undefined) parsed.searchParams.delete(name);
  else parsed.searchParams.set(name, value);
  return parsed.toString();
}

/** The signature with one character changed. */
function tamper(signature: string): string {
  const i = Math.floor(signature.length / 2);
  return signature.slice(0, i) + (signature[i] === "A" ? "B" : "A") + signature.slice(i + 1);
}

function param(url: string, name: string): string {
  const value = new URL(url).searchParams.get(name);
  assert.ok(value, `${name} in ${url}`);
  return value;
}

describe("uploads: GET /upload, PUT uploadUrl, GET downloadUrl", () => {
  let server: Mixdown;
  let app: AppInfo;
  const pair = async (prefix = "/v1"): Promise<Pair> => {
    const response = await server.api<Pair>("GET", `${prefix}/upload`, { key: app.apiKey });
    assert.equal(response.status, 200);
    return response.body;
  };
  /** Uploads bytes (fetch, with a Content-Length) and checks the upload succeeded. */
  const put = async (url: string, bytes: Uint8Array<ArrayBuffer>, contentType?: string): Promise<void> => {
    const response = await fetch(url, {
      method: "PUT",
      body: bytes,
      headers: contentType === undefined ? {} : { "content-type": contentType },
    });
    assert.equal(response.status, 200, await response.text());
  };

  before(async () => {
    server = await Mixdown.start({ MIXDOWN_MAX_UPLOAD_BYTES: String(CAP), MIXDOWN_WORKERS: "0" });
    app = await server.createApp("uploader");
  });
  after(async () => {
    await server.dispose();
    assertNoneRunning();
  });

  for (const prefix of ["/v1", "/api"]) {
    test(`GET ${prefix}/upload returns a signed upload/download pair on Mixdown's own server, valid 24 h`, async () => {
      const issuedFrom = Date.now();
      const first = await pair(prefix);
      const second = await pair(prefix);
      const issuedTo = Date.now();
      assert.deepEqual(Object.keys(first).sort(), ["downloadUrl", "uploadUrl"]);
      const upload = new URL(first.uploadUrl);
      const download = new URL(first.downloadUrl);
      assert.equal(upload.origin, server.url);
      assert.equal(download.origin, server.url);
      assert.match(upload.pathname, /^\/uploads\/[0-9a-f-]{36}$/);
      assert.equal(download.pathname, `/files/uploads/${uploadId(first.uploadUrl)}`);
      for (const url of [upload, download]) {
        const expires = Number(url.searchParams.get("expires"));
        assert.ok(expires >= Math.floor(issuedFrom / 1000) + DAY, `expires ${expires} too early`);
        assert.ok(expires <= Math.ceil(issuedTo / 1000) + DAY, `expires ${expires} too late`);
        assert.match(url.searchParams.get("signature") ?? "", /^[A-Za-z0-9_-]{20,}$/);
      }
      assert.notEqual(upload.searchParams.get("signature"), download.searchParams.get("signature"));
      assert.notEqual(uploadId(first.uploadUrl), uploadId(second.uploadUrl));
    });
  }

  test("PUT stores the body and its Content-Type; GET downloadUrl serves both back exactly", async () => {
    const { uploadUrl, downloadUrl } = await pair();
    const bytes = randomBytes(10_000);
    await put(uploadUrl, bytes, "audio/wav");
    const got = await download(downloadUrl);
    assert.equal(got.status, 200);
    assert.equal(got.headers.get("content-type"), "audio/wav");
    assert.equal(got.headers.get("content-length"), String(bytes.length));
    assert.ok(got.bytes.equals(bytes));
    assert.ok(fs.readFileSync(blobFile(server, uploadUrl)).equals(bytes));
  });

  test("PUT without any Content-Type works and is served as application/octet-stream", async () => {
    const { uploadUrl, downloadUrl } = await pair();
    const bytes = randomBytes(5000);
    const response = await send(uploadUrl, { headers: { "content-length": bytes.length }, chunks: [bytes] });
    assert.equal(response.status, 200, response.body.toString());
    const got = await download(downloadUrl);
    assert.equal(got.status, 200);
    assert.equal(got.headers.get("content-type"), "application/octet-stream");
    assert.ok(got.bytes.equals(bytes));
  });

  test("PUT without Content-Type and with a chunked body (node:http) works", async () => {
    const { uploadUrl, downloadUrl } = await pair();
    const bytes = randomBytes(300_000);
    const response = await send(uploadUrl, { chunks: split(bytes, 10_000) });
    assert.equal(response.status, 200, response.body.toString());
    const got = await download(downloadUrl);
    assert.equal(got.status, 200);
    assert.equal(got.headers.get("content-type"), "application/octet-stream");
    assert.ok(got.bytes.equals(bytes));
  });

  test("PUT without Content-Type and with a streamed body (fetch duplex: half) works", async () => {
    const { uploadUrl, downloadUrl } = await pair();
    const bytes = randomBytes(200_000);
    const body = Readable.toWeb(Readable.from(split(bytes, 16_000))) as ReadableStream<Uint8Array>;
    const response = await fetch(uploadUrl, { method: "PUT", body, duplex: "half" } as RequestInit);
    assert.equal(response.status, 200, await response.text());
    const got = await download(downloadUrl);
    assert.equal(got.headers.get("content-type"), "application/octet-stream");
    assert.ok(got.bytes.equals(bytes));
  });

  test("uploads of a few MB round-trip byte-exact, up to exactly the size cap", async () => {
    const first = await pair();
    const bytes = randomBytes(3 * 1024 * 1024 + 17);
    await put(first.uploadUrl, bytes, "audio/flac");
    const got = await download(first.downloadUrl);
    assert.equal(got.status, 200);
    assert.equal(got.headers.get("content-type"), "audio/flac");
    assert.ok(got.bytes.equals(bytes));

    const second = await pair();
    const full = randomBytes(CAP);
    const response = await send(second.uploadUrl, {
      headers: { "content-type": "video/mp4" },
      chunks: split(full),
    });
    assert.equal(response.status, 200, response.body.toString());
    const gotFull = await download(second.downloadUrl);
    assert.equal(gotFull.headers.get("content-length"), String(CAP));
    assert.ok(gotFull.bytes.equals(full));
  });

  test("a Content-Length over MIXDOWN_MAX_UPLOAD_BYTES → 413; nothing is served; the URL still works", async () => {
    const { uploadUrl, downloadUrl } = await pair();
    const response = await send(uploadUrl, {
      headers: { "content-type": "audio/wav", "content-length": CAP + 1 },
      chunks: [randomBytes(1000)],
      end: false,
    });
    assert.equal(response.status, 413);
    assert.equal(JSON.parse(response.body.toString()).code, "PAYLOAD_TOO_LARGE");
    const got = await download(downloadUrl);
    assert.equal(got.status, 404);
    assert.deepEqual(filesOf(server, uploadUrl), []);

    const bytes = randomBytes(1000);
    await put(uploadUrl, bytes, "audio/ogg");
    const again = await download(downloadUrl);
    assert.equal(again.status, 200);
    assert.equal(again.headers.get("content-type"), "audio/ogg");
    assert.ok(again.bytes.equals(bytes));
  });

  test("a chunked body growing past MIXDOWN_MAX_UPLOAD_BYTES → 413; nothing is kept; the URL still works", async () => {
    const { uploadUrl, downloadUrl } = await pair();
    // One byte too many, and nothing after it: the 413 is the server's answer to the body's size alone.
    const response = await send(uploadUrl, {
      headers: { "content-type": "audio/wav" },
      chunks: split(randomBytes(CAP + 1)),
      end: false,
    });
    assert.equal(response.status, 413);
    assert.equal(JSON.parse(response.body.toString()).code, "PAYLOAD_TOO_LARGE");
    const got = await download(downloadUrl);
    assert.equal(got.status, 404);
    assert.equal(JSON.parse(got.bytes.toString()).code, "FILE_NOT_FOUND");
    assert.deepEqual(filesOf(server, uploadUrl), [], "no blob, metadata or partial file is left");

    const bytes = randomBytes(2000);
    const retry = await send(uploadUrl, { headers: { "content-type": "audio/mpeg" }, chunks: split(bytes, 500) });
    assert.equal(retry.status, 200, retry.body.toString());
    const again = await download(downloadUrl);
    assert.equal(again.status, 200);
    assert.equal(again.headers.get("content-type"), "audio/mpeg");
    assert.ok(again.bytes.equals(bytes));
  });

  test("an empty body, with Content-Length 0 or chunked → 400 EMPTY_UPLOAD; nothing is kept; the URL still works", async () => {
    const { uploadUrl, downloadUrl } = await pair();
    const empty: Record<string, string | number>[] = [
      { "content-type": "audio/wav", "content-length": 0 },
      { "content-type": "audio/wav", "transfer-encoding": "chunked" },
    ];
    for (const headers of empty) {
      const response = await send(uploadUrl, { headers });
      const what = JSON.stringify(headers);
      assert.equal(response.status, 400, what);
      const body = JSON.parse(response.body.toString());
      assert.equal(body.code, "EMPTY_UPLOAD", what);
      assert.match(body.message, /empty/, what);
      assert.equal((await download(downloadUrl)).status, 404, what);
      assert.deepEqual(filesOf(server, uploadUrl), [], what);
    }
    const bytes = randomBytes(1000);
    await put(uploadUrl, bytes, "audio/ogg");
    const got = await download(downloadUrl);
    assert.equal(got.status, 200);
    assert.ok(got.bytes.equals(bytes));
  });

  test("a second PUT to the same upload URL → 403 and the first file is unchanged", async () => {
    const { uploadUrl, downloadUrl } = await pair();
    const bytes = randomBytes(4000);
    await put(uploadUrl, bytes, "audio/wav");
    const second = await fetch(uploadUrl, {
      method: "PUT",
      body: randomBytes(3000),
      headers: { "content-type": "text/plain" },
    });
    assert.equal(second.status, 403);
    assert.equal(await errorCode(second), "UPLOAD_ALREADY_USED");
    const chunked = await send(uploadUrl, { chunks: split(randomBytes(3000), 1000) });
    assert.equal(chunked.status, 403);
    const got = await download(downloadUrl);
    assert.equal(got.status, 200);
    assert.equal(got.headers.get("content-type"), "audio/wav");
    assert.ok(got.bytes.equals(bytes));
  });

  test("two concurrent PUTs to one upload URL: exactly one is stored, the other → 403", async () => {
    const { uploadUrl, downloadUrl } = await pair();
    const bodies = [randomBytes(8000), randomBytes(8000)];
    const responses = await Promise.all(
      bodies.map((body) => send(uploadUrl, { headers: { "content-type": "audio/wav" }, chunks: split(body) })),
    );
    const statuses = responses.map((r) => r.status);
    assert.deepEqual([...statuses].sort(), [200, 403]);
    const winner = bodies[statuses.indexOf(200)];
    assert.ok(winner);
    const got = await download(downloadUrl);
    assert.ok(got.bytes.equals(winner));
  });

  test("an upload aborted by the client mid-body stores nothing; the URL accepts a complete upload later", async () => {
    const { uploadUrl, downloadUrl } = await pair();
    await new Promise<void>((resolve, reject) => {
      const request = http.request(uploadUrl, {
        method: "PUT",
        headers: { "content-type": "audio/wav", "content-length": 500_000 },
      });
      request.on("error", () => resolve());
      request.on("response", () => reject(new Error("the server answered an unfinished upload")));
      request.write(randomBytes(100_000), () => setTimeout(() => request.destroy(), 100));
    });
    // The server notices the abort on its own schedule: retry (bounded) while the upload is still "receiving".
    const bytes = randomBytes(3000);
    let status = 0;
    for (let i = 0; i < 100 && status !== 200; i++) {
      const response = await send(uploadUrl, { headers: { "content-type": "audio/wav" }, chunks: [bytes] });
      status = response.status;
      if (status !== 200) {
        assert.equal(status, 403, response.body.toString());
        assert.equal((await download(downloadUrl)).status, 404, "nothing is served while unfinished");
        await delay(50);
      }
    }
    assert.equal(status, 200);
    const got = await download(downloadUrl);
    assert.ok(got.bytes.equals(bytes));
    assert.deepEqual(filesOf(server, uploadUrl).sort(), [uploadId(uploadUrl), `${uploadId(uploadUrl)}.meta.json`]);
  });

  test("a tampered upload URL (signature, path, expiry) → 403; nothing is stored or overwritten", async () => {
    const target = await pair();
    const victim = await pair();
    const victimBytes = randomBytes(1500);
    await put(victim.uploadUrl, victimBytes, "audio/wav");
    const signature = param(target.uploadUrl, "signature");
    const expires = param(target.uploadUrl, "expires");
    const tampered = [
      withParam(target.uploadUrl, "signature", tamper(signature)),
      withParam(target.uploadUrl, "signature", undefined),
      withParam(target.uploadUrl, "expires", String(Number(expires) + 1)),
      withParam(target.uploadUrl, "expires", String(Number(expires) + 365 * DAY)),
      withParam(target.uploadUrl, "expires", undefined),
      // Another upload's id (already uploaded, then a fresh one) with this URL's signature and expiry.
      target.uploadUrl.replace(uploadId(target.uploadUrl), uploadId(victim.uploadUrl)),
      // The download URL's signature does not authorise a PUT.
      withParam(target.uploadUrl, "signature", param(target.downloadUrl, "signature")),
    ];
    for (const url of tampered) {
      const response = await fetch(url, {
        method: "PUT",
        body: randomBytes(1000),
        headers: { "content-type": "text/plain" },
      });
      assert.equal(response.status, 403, url);
      assert.equal(await errorCode(response), "INVALID_SIGNATURE", url);
    }
    assert.deepEqual(filesOf(server, target.uploadUrl), []);
    assert.equal((await download(target.downloadUrl)).status, 404);
    const victimNow = await download(victim.downloadUrl);
    assert.equal(victimNow.headers.get("content-type"), "audio/wav");
    assert.ok(victimNow.bytes.equals(victimBytes));

    // The genuine URL was not used up by the refused attempts.
    const bytes = randomBytes(800);
    await put(target.uploadUrl, bytes, "audio/aac");
    assert.ok((await download(target.downloadUrl)).bytes.equals(bytes));
  });

  test("GET downloadUrl supports single byte ranges and answers 416 for unsatisfiable ones", async () => {
    const { uploadUrl, downloadUrl } = await pair();
    const bytes = randomBytes(1000);
    await put(uploadUrl, bytes, "audio/wav");
    const whole = await download(downloadUrl);
    assert.equal(whole.headers.get("accept-ranges"), "bytes");

    const cases: [string, number, number][] = [
      ["bytes=0-9", 0, 9],
      ["bytes=100-", 100, 999],
      ["bytes=-10", 990, 999],
      ["bytes=500-500", 500, 500],
      ["bytes=990-5000", 990, 999],
    ];
    for (const [range, start, end] of cases) {
      const got = await download(downloadUrl, { headers: { range } });
      assert.equal(got.status, 206, range);
      assert.equal(got.headers.get("content-range"), `bytes ${start}-${end}/1000`, range);
      assert.equal(got.headers.get("content-length"), String(end - start + 1), range);
      assert.equal(got.headers.get("content-type"), "audio/wav", range);
      assert.ok(got.bytes.equals(bytes.subarray(start, end + 1)), range);
    }

    for (const range of ["bytes=999999999-", "bytes=1000-"]) {
      const got = await download(downloadUrl, { headers: { range } });
      assert.equal(got.status, 416, range);
      assert.equal(got.headers.get("content-range"), "bytes */1000", range);
      assert.equal(JSON.parse(got.bytes.toString()).code, "RANGE_NOT_SATISFIABLE");
    }
  });

  test("HEAD downloadUrl gives Content-Length and Content-Type without a body", async () => {
    const { uploadUrl, downloadUrl } = await pair();
    const bytes = randomBytes(12_345);
    await put(uploadUrl, bytes, "audio/mpeg");
    const response = await send(downloadUrl, { method: "HEAD" });
    assert.equal(response.status, 200);
    assert.equal(response.headers["content-length"], String(bytes.length));
    assert.equal(response.headers["content-type"], "audio/mpeg");
    assert.equal(response.body.length, 0);
  });

  test("a download URL whose upload never happened → 404; with a bad signature → 403", async () => {
    const { uploadUrl, downloadUrl } = await pair();
    const missing = await fetch(downloadUrl);
    assert.equal(missing.status, 404);
    assert.equal(await errorCode(missing), "FILE_NOT_FOUND");

    await put(uploadUrl, randomBytes(100), "audio/wav");
    const other = await pair();
    await put(other.uploadUrl, randomBytes(100), "audio/wav");
    const signature = param(downloadUrl, "signature");
    const expires = param(downloadUrl, "expires");
    const bad = [
      withParam(downloadUrl, "signature", tamper(signature)),
      withParam(downloadUrl, "signature", undefined),
      withParam(downloadUrl, "expires", String(Number(expires) + 1)),
      withParam(downloadUrl, "expires", undefined),
      // The upload URL's signature does not authorise a download.
      withParam(downloadUrl, "signature", param(uploadUrl, "signature")),
      // This URL's signature on another upload's path.
      downloadUrl.replace(uploadId(downloadUrl), uploadId(other.downloadUrl)),
    ];
    for (const url of bad) {
      const response = await fetch(url);
      assert.equal(response.status, 403, url);
      assert.equal(await errorCode(response), "INVALID_SIGNATURE", url);
    }
    assert.equal((await fetch(downloadUrl)).status, 200);
  });

  test("the upload URL cannot download (GET → 404) and the download URL cannot upload (PUT → 404)", async () => {
    const { uploadUrl, downloadUrl } = await pair();
    const bytes = randomBytes(600);

    const viaPut = await fetch(downloadUrl, {
      method: "PUT",
      body: randomBytes(500),
      headers: { "content-type": "audio/wav" },
    });
    assert.equal(viaPut.status, 404);
    assert.equal(await errorCode(viaPut), "NOT_FOUND");
    const viaPutChunked = await send(downloadUrl, { chunks: split(randomBytes(500), 100) });
    assert.equal(viaPutChunked.status, 404);
    assert.deepEqual(filesOf(server, uploadUrl), []);
    assert.equal((await fetch(downloadUrl)).status, 404);

    await put(uploadUrl, bytes, "audio/wav");
    const viaGet = await fetch(uploadUrl);
    assert.equal(viaGet.status, 404);
    assert.equal(await errorCode(viaGet), "NOT_FOUND");
    const viaGetSignature = await fetch(
      `${server.url}/files/uploads/${uploadId(uploadUrl)}${new URL(uploadUrl).search}`,
    );
    assert.equal(viaGetSignature.status, 403);
    assert.equal(await errorCode(viaGetSignature), "INVALID_SIGNATURE");

    const got = await download(downloadUrl);
    assert.equal(got.status, 200);
    assert.ok(got.bytes.equals(bytes));
  });
});

describe("uploads: expiry (MIXDOWN_URL_TTL_SECONDS) and garbage collection", () => {
  let server: Mixdown;
  let app: AppInfo;

  /** A pair issued just after a second boundary (expiry is whole seconds), so that a 1 s URL lives ~1 s. */
  const freshPair = async (): Promise<Pair> => {
    const intoSecond = Date.now() % 1000;
    if (intoSecond > 100) await delay(1000 - intoSecond + 5);
    const response = await server.api<Pair>("GET", "/v1/upload", { key: app.apiKey });
    assert.equal(response.status, 200);
    return response.body;
  };
  /** Uploads through a fresh pair; on a slow machine the 1 s URL may expire first, so a few tries. */
  const uploadFresh = async (bytes: Uint8Array<ArrayBuffer>): Promise<Pair> => {
    for (let attempt = 0; attempt < 5; attempt++) {
      const fresh = await freshPair();
      const response = await fetch(fresh.uploadUrl, {
        method: "PUT",
        body: bytes,
        headers: { "content-type": "audio/wav" },
      });
      if (response.status === 200) return fresh;
      assert.equal(response.status, 403, await response.text());
    }
    throw new Error("no upload succeeded within its 1 s lifetime");
  };
  /** Waits until the URL's expiry, and the upload's own (at most 1 s later), have passed. */
  const waitUntilExpired = async (url: string): Promise<void> => {
    const expiresMs = Number(param(url, "expires")) * 1000;
    await delay(Math.max(0, expiresMs + 1500 - Date.now()));
  };
  /** Waits (bounded) until the file is gone; the collection at start runs alongside the server's startup. */
  /** Waits until every file of the upload is gone: the blob goes first, its metadata a moment later. */
  const waitForRemoval = async (url: string): Promise<boolean> => {
    for (let i = 0; i < 200 && filesOf(server, url).length > 0; i++) await delay(50);
    return filesOf(server, url).length === 0;
  };
  const restart = async (): Promise<void> => {
    assert.equal(await server.stop("SIGTERM"), 0);
    await server.launch();
  };

  before(async () => {
    server = await Mixdown.start({ MIXDOWN_URL_TTL_SECONDS: "1", MIXDOWN_WORKERS: "0" });
    app = await server.createApp("short-lived");
  });
  after(async () => {
    await server.dispose();
    assertNoneRunning();
  });

  test("an expired upload URL → 403 and stores nothing; an expired download URL → 403", async () => {
    const uploaded = await uploadFresh(randomBytes(500));
    const unused = await freshPair();
    await waitUntilExpired(unused.uploadUrl);
    await waitUntilExpired(uploaded.uploadUrl);

    const put = await fetch(unused.uploadUrl, {
      method: "PUT",
      body: randomBytes(500),
      headers: { "content-type": "audio/wav" },
    });
    assert.equal(put.status, 403);
    assert.equal(await errorCode(put), "INVALID_SIGNATURE");
    assert.deepEqual(filesOf(server, unused.uploadUrl), []);
    const chunked = await send(unused.uploadUrl, { chunks: split(randomBytes(500), 100) });
    assert.equal(chunked.status, 403);
    assert.deepEqual(filesOf(server, unused.uploadUrl), []);

    const get = await fetch(uploaded.downloadUrl);
    assert.equal(get.status, 403);
    assert.equal(await errorCode(get), "INVALID_SIGNATURE");
  });

  test("expired uploads are deleted at start, except those a queued job reads (until the job is gone)", async () => {
    const loose = await uploadFresh(randomBytes(3000));
    const referenced = await uploadFresh(randomBytes(3000));
    const jobId = await server.createJob(app.apiKey, "mixdown/convert", {
      inputUrl: referenced.downloadUrl,
      format: "wav",
    });
    const looseFile = blobFile(server, loose.uploadUrl);
    const referencedFile = blobFile(server, referenced.uploadUrl);
    assert.ok(fs.existsSync(looseFile));
    assert.ok(fs.existsSync(referencedFile));
    await waitUntilExpired(loose.uploadUrl);
    await waitUntilExpired(referenced.uploadUrl);

    await restart();
    assert.ok(await waitForRemoval(loose.uploadUrl), "the expired, unreferenced upload is deleted");
    assert.ok(!fs.existsSync(looseFile));
    // Both were examined by the same collection: the one a queued job reads is still there.
    assert.ok(fs.existsSync(referencedFile), "the upload read by a queued job is kept");
    assert.ok(fs.existsSync(`${referencedFile}.meta.json`));
    const status = await server.api("GET", `/v1/job/${jobId}/status`, { key: app.apiKey });
    assert.equal(status.body.status, "QUEUED");

    const deleted = await server.api("DELETE", `/v1/job/${jobId}`, { key: app.apiKey });
    assert.ok(deleted.status < 300, JSON.stringify(deleted.body));
    await restart();
    assert.ok(await waitForRemoval(referenced.uploadUrl), "once the job is deleted, the upload is collected");
    assert.ok(!fs.existsSync(referencedFile));
  });
});
