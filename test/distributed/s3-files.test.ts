import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { Readable } from "node:stream";
import { after, before, test } from "node:test";
import { sineWav } from "../helpers/audio.ts";
import { describeOrSkip, distributedUnavailable, TEST_S3 } from "../helpers/backends.ts";
import { storedKeys } from "../helpers/inspect.ts";
import { type AppInfo, assertNoneRunning, Mixdown } from "../helpers/mixdown.ts";

/** A request body of unknown length: sent chunked, as the Music.AI JavaScript SDK sends a file. */
const chunked = (bytes: Buffer): RequestInit =>
  ({
    method: "PUT",
    body: Readable.toWeb(Readable.from([bytes.subarray(0, 1000), bytes.subarray(1000)])) as ReadableStream<Uint8Array>,
    duplex: "half",
  }) as RequestInit;

describeOrSkip("distributed mode: files go straight to S3 through presigned URLs", distributedUnavailable, () => {
  let server: Mixdown;
  let app: AppInfo;
  before(async () => {
    server = await Mixdown.start({}, { backend: "distributed" });
    app = await server.createApp();
  });
  after(async () => {
    await server.dispose();
    assertNoneRunning();
  });

  test("GET /upload gives presigned S3 URLs; the PUT lands in the bucket, byte-exact, with its type and Range", async () => {
    const pair = (await server.api("GET", "/v1/upload", { key: app.apiKey })).body;
    for (const url of [pair.uploadUrl, pair.downloadUrl]) {
      assert.ok(url.startsWith(`${TEST_S3.endpoint}/${server.env.MIXDOWN_S3_BUCKET}/uploads/`), url);
      assert.match(url, /X-Amz-Signature=/);
    }
    const bytes = randomBytes(300_000);
    const put = await fetch(pair.uploadUrl, {
      method: "PUT",
      body: new Uint8Array(bytes),
      headers: { "content-type": "audio/flac" },
    });
    assert.equal(put.status, 200);
    const download = await fetch(pair.downloadUrl);
    assert.equal(download.status, 200);
    assert.equal(download.headers.get("content-type"), "audio/flac");
    assert.ok(Buffer.from(await download.arrayBuffer()).equals(bytes));
    const range = await fetch(pair.downloadUrl, { headers: { range: "bytes=10-19" } });
    assert.equal(range.status, 206);
    assert.ok(Buffer.from(await range.arrayBuffer()).equals(bytes.subarray(10, 20)));
  });

  test("a body of unknown length (chunked) is refused by the store with 411: what MIXDOWN_S3_UPLOAD_URLS=mixdown is for", async () => {
    const pair = (await server.api("GET", "/v1/upload", { key: app.apiKey })).body;
    const put = await fetch(pair.uploadUrl, chunked(randomBytes(50_000)));
    assert.equal(put.status, 411);
    assert.match(await put.text(), /MissingContentLength/);
  });

  test("a tampered presigned URL gets 403 from the store and stores nothing", async () => {
    const pair = (await server.api("GET", "/v1/upload", { key: app.apiKey })).body;
    const tamper = (url: string) =>
      url.replace(/(X-Amz-Signature=)(.)/, (_m, p: string, c: string) => `${p}${c === "a" ? "b" : "a"}`);
    const put = await fetch(tamper(pair.uploadUrl), { method: "PUT", body: "x".repeat(100) });
    assert.equal(put.status, 403);
    const key = new URL(pair.uploadUrl).pathname.split("/").slice(2).join("/");
    assert.deepEqual(await storedKeys(server, key), []);
    await fetch(pair.uploadUrl, { method: "PUT", body: "real bytes" });
    assert.equal((await fetch(tamper(pair.downloadUrl))).status, 403);
    assert.equal(await (await fetch(pair.downloadUrl)).text(), "real bytes");
  });

  test("a job reads its S3 input with the SDK (no HTTP fetch of a private address) and its results are S3 URLs", async () => {
    assert.equal(server.env.MIXDOWN_ALLOW_PRIVATE_URLS, undefined, "private URLs stay refused");
    const inputUrl = await server.upload(app.apiKey, sineWav(0.5), "audio/wav");
    const job = await server.waitForJob(
      app.apiKey,
      await server.createJob(app.apiKey, "mixdown/convert", { inputUrl, format: "flac" }),
    );
    assert.equal(job.status, "SUCCEEDED", JSON.stringify(job.error));
    assert.ok(job.result.output.startsWith(`${TEST_S3.endpoint}/${server.env.MIXDOWN_S3_BUCKET}/results/${job.id}/`));
    assert.equal((await fetch(job.result.output)).status, 200);
    // Minted fresh on each read of the job.
    await new Promise((resolve) => setTimeout(resolve, 1100));
    const again = (await server.api("GET", `/v1/job/${job.id}`, { key: app.apiKey })).body;
    assert.notEqual(again.result.output, job.result.output);
    assert.equal((await server.api("DELETE", `/v1/job/${job.id}`, { key: app.apiKey })).status, 200);
    assert.deepEqual(await storedKeys(server, `results/${job.id}/`), []);
  });
});

describeOrSkip(
  "distributed mode with MIXDOWN_S3_UPLOAD_URLS=mixdown: uploads through the API node",
  distributedUnavailable,
  () => {
    let server: Mixdown;
    let app: AppInfo;
    before(async () => {
      server = await Mixdown.start({ MIXDOWN_S3_UPLOAD_URLS: "mixdown" }, { backend: "distributed", workers: 1 });
      app = await server.createApp();
    });
    after(async () => {
      await server.dispose();
      assertNoneRunning();
    });

    test("GET /upload: Mixdown's upload URL, the store's download URL; a chunked PUT lands in the bucket, once", async () => {
      const pair = (await server.api("GET", "/v1/upload", { key: app.apiKey })).body;
      assert.ok(pair.uploadUrl.startsWith(`${server.url}/uploads/`), pair.uploadUrl);
      assert.ok(pair.downloadUrl.startsWith(`${TEST_S3.endpoint}/${server.env.MIXDOWN_S3_BUCKET}/uploads/`));
      const bytes = sineWav(0.5);
      const put = await fetch(pair.uploadUrl, { ...chunked(bytes), headers: { "content-type": "audio/wav" } });
      assert.equal(put.status, 200, await put.clone().text());
      assert.deepEqual(await put.json(), { size: bytes.length, contentType: "audio/wav" });
      const download = await fetch(pair.downloadUrl);
      assert.equal(download.headers.get("content-type"), "audio/wav");
      assert.ok(Buffer.from(await download.arrayBuffer()).equals(bytes));
      const again = await fetch(pair.uploadUrl, { method: "PUT", body: "other bytes" });
      assert.equal(again.status, 403);
      assert.ok(Buffer.from(await (await fetch(pair.downloadUrl)).arrayBuffer()).equals(bytes), "unchanged");
      const job = await server.runJob(app.apiKey, "mixdown/convert", { inputUrl: pair.downloadUrl, format: "flac" });
      assert.ok(job.result.output.startsWith(`${TEST_S3.endpoint}/${server.env.MIXDOWN_S3_BUCKET}/results/`));
    });

    test("Mixdown's own file downloads are not served: files are read from the store", async () => {
      assert.equal((await fetch(`${server.url}/files/uploads/x?expires=1&signature=x`)).status, 404);
    });
  },
);
