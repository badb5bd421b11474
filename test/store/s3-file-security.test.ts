import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { Readable } from "node:stream";
import { after, before, test } from "node:test";
import { GetObjectCommand, S3Client } from "@aws-sdk/client-s3";
import { getSignedUrl } from "@aws-sdk/s3-request-presigner";
import type { S3BlobStore } from "../../src/store/s3/s3-blob-store.ts";
import type { S3FileUrls } from "../../src/store/s3/s3-file-urls.ts";
import { describeOrSkip, distributedUnavailable, openTestS3, TEST_S3 } from "../helpers/backends.ts";

const PAGE = Buffer.from("<!doctype html><script>document.title = 'ran'</script>");

/**
 * What Mixdown can make the object store say about a file: a presigned GET may set the answer's
 * Content-Disposition (signed into the URL) and an object keeps the Content-Disposition it was stored with; the store
 * sends no nosniff and no CSP (no presigned URL or object metadata can add them). A presigned GET is signed for GET
 * alone (HEAD is another request), so only GET and its ranges are checked.
 */
describeOrSkip(
  "S3: files the store serves are attachments unless a browser may show them",
  distributedUnavailable,
  () => {
    const bucket = `mixdown-t-files-${randomBytes(4).toString("hex")}`;
    let blobs: S3BlobStore;
    let fileUrls: S3FileUrls;
    before(async () => {
      ({ blobs, fileUrls } = await openTestS3(bucket));
    });
    after(async () => {
      await blobs?.deletePrefix("");
    });

    test("an upload's presigned download URL makes it an attachment, whatever type its client PUT", async () => {
      for (const type of ["text/html", "image/svg+xml", "audio/wav"]) {
        const id = randomBytes(8).toString("hex");
        const pair = await fileUrls.uploadPair(id, 600);
        const put = await fetch(pair.uploadUrl, { method: "PUT", body: PAGE, headers: { "content-type": type } });
        assert.equal(put.status, 200, type);
        assert.equal(
          new URL(pair.downloadUrl).searchParams.get("response-content-disposition"),
          `attachment; filename="${id}"`,
        );
        for (const init of [{}, { headers: { range: "bytes=0-9" } }]) {
          const answer = await fetch(pair.downloadUrl, init);
          assert.ok([200, 206].includes(answer.status), `${type}: ${answer.status}`);
          assert.equal(answer.headers.get("content-disposition"), `attachment; filename="${id}"`, type);
        }
        assert.ok(Buffer.from(await (await fetch(pair.downloadUrl)).arrayBuffer()).equals(PAGE));
        // Still recognised as the store's own URL (a job reads it with the SDK), signed afresh the same way.
        assert.deepEqual(await fileUrls.keyOf(pair.downloadUrl, Date.now()), { key: `uploads/${id}` });
        const again = await fileUrls.downloadUrl(`uploads/${id}`, 600);
        assert.equal((await fetch(again)).headers.get("content-disposition"), `attachment; filename="${id}"`);
      }
    });

    test("a download URL whose disposition was changed is refused by the store and not taken as ours", async () => {
      const id = randomBytes(8).toString("hex");
      const pair = await fileUrls.uploadPair(id, 600);
      await fetch(pair.uploadUrl, { method: "PUT", body: PAGE, headers: { "content-type": "text/html" } });
      for (const disposition of ["inline", undefined]) {
        const changed = new URL(pair.downloadUrl);
        if (disposition) changed.searchParams.set("response-content-disposition", disposition);
        else changed.searchParams.delete("response-content-disposition");
        assert.equal((await fetch(changed)).status, 403, String(disposition));
        assert.equal(await fileUrls.keyOf(changed.toString(), Date.now()), "invalid", String(disposition));
      }
    });

    test("an upload's download URL signed before uploads had a disposition is still recognised as the store's own", async () => {
      const client = new S3Client({
        endpoint: TEST_S3.endpoint,
        region: "us-east-1",
        forcePathStyle: true,
        credentials: { accessKeyId: TEST_S3.accessKeyId, secretAccessKey: TEST_S3.secretAccessKey },
        // As openS3 makes its client, which signed such URLs.
        requestChecksumCalculation: "WHEN_REQUIRED",
        responseChecksumValidation: "WHEN_REQUIRED",
      });
      const key = `uploads/${randomBytes(8).toString("hex")}`;
      const old = await getSignedUrl(client, new GetObjectCommand({ Bucket: bucket, Key: key }), { expiresIn: 600 });
      client.destroy();
      assert.equal(new URL(old).searchParams.get("response-content-disposition"), null);
      assert.deepEqual(await fileUrls.keyOf(old, Date.now()), { key });
    });

    test("a stored file keeps its disposition: inline for media, PNG and JSON, attachment otherwise, named safely", async () => {
      const prefix = `results/${randomBytes(8).toString("hex")}/`;
      const cases: [name: string, type: string, disposition: string][] = [
        ["output.mp3", "audio/mpeg", 'inline; filename="output.mp3"'],
        ["image.png", "image/png", 'inline; filename="image.png"'],
        ["peaks.json", "application/json", 'inline; filename="peaks.json"'],
        ["page.html", "text/html", 'attachment; filename="page.html"'],
        ["drawing.svg", "image/svg+xml", 'attachment; filename="drawing.svg"'],
        ["voix é.wav", "audio/wav", `inline; filename="voix _.wav"; filename*=UTF-8''voix%20%C3%A9.wav`],
      ];
      for (const [name, type, disposition] of cases) {
        await blobs.put(`${prefix}${name}`, Readable.from([PAGE]), { contentType: type, size: PAGE.length });
        const url = await fileUrls.downloadUrl(`${prefix}${name}`, 600);
        for (const init of [{}, { headers: { range: "bytes=0-9" } }]) {
          const answer = await fetch(url, init);
          assert.ok([200, 206].includes(answer.status), `${name}: ${answer.status}`);
          assert.equal(answer.headers.get("content-disposition"), disposition, name);
          assert.equal(answer.headers.get("content-type"), type, `${name}: the store serves the stored type`);
        }
        assert.equal((await blobs.stat(`${prefix}${name}`))?.contentType, type, "stat still gives the type put");
      }
    });
  },
);
