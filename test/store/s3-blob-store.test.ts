import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { Readable } from "node:stream";
import { after, before, test } from "node:test";
import { BlobTooLargeError } from "../../src/store/blob-store.ts";
import type { S3BlobStore } from "../../src/store/s3/s3-blob-store.ts";
import { describeOrSkip, distributedUnavailable, openTestS3 } from "../helpers/backends.ts";

describeOrSkip("S3 blob store: put with and without a known size", distributedUnavailable, () => {
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "mixdown-s3-put-"));
  const bucket = `mixdown-t-put-${randomBytes(4).toString("hex")}`;
  let blobs: S3BlobStore;
  before(async () => {
    ({ blobs } = await openTestS3(bucket));
  });
  after(async () => {
    await blobs?.deletePrefix("");
    fs.rmSync(tmp, { recursive: true, force: true });
  });

  /** What is stored under key, read back through the store. */
  const readBack = async (key: string): Promise<Buffer> => {
    const file = path.join(tmp, `back-${randomBytes(4).toString("hex")}`);
    await blobs.copyToFile(key, file);
    return fs.readFileSync(file);
  };

  test("a file of known size (one PUT) and a stream of unknown size (multipart, over 5 MiB) are stored exactly", async () => {
    const bytes = randomBytes(12 * 1024 * 1024 + 5);
    const file = path.join(tmp, "known.bin");
    fs.writeFileSync(file, bytes);
    const known = await blobs.put("results/known.bin", fs.createReadStream(file, { highWaterMark: 1 << 20 }), {
      contentType: "audio/wav",
      size: bytes.length,
    });
    assert.deepEqual(known, { size: bytes.length, contentType: "audio/wav" });
    assert.ok((await readBack("results/known.bin")).equals(bytes));
    assert.equal((await blobs.stat("results/known.bin"))?.contentType, "audio/wav");

    const unknown = await blobs.put(
      "results/unknown.bin",
      Readable.from([bytes.subarray(0, 7e6), bytes.subarray(7e6)]),
      {
        contentType: "application/octet-stream",
      },
    );
    assert.equal(unknown.size, bytes.length);
    assert.ok((await readBack("results/unknown.bin")).equals(bytes));
  });

  test("a known size over the limit is refused before sending; a body shorter than its size stores nothing", async () => {
    const file = path.join(tmp, "big.bin");
    fs.writeFileSync(file, randomBytes(4096));
    await assert.rejects(
      blobs.put("results/big.bin", fs.createReadStream(file), { contentType: "audio/wav", size: 4096, maxBytes: 1000 }),
      BlobTooLargeError,
    );
    assert.equal(await blobs.stat("results/big.bin"), undefined);

    await assert.rejects(
      blobs.put("results/short.bin", Readable.from([randomBytes(1000)]), { contentType: "audio/wav", size: 4096 }),
      /1000 bytes, not 4096/,
    );
    assert.equal(await blobs.stat("results/short.bin"), undefined);
  });

  test("usage sums the listed objects' sizes", async () => {
    const earlier = await blobs.usage();
    await blobs.put("usage/a", Readable.from([Buffer.from("abc")]), { contentType: "text/plain" });
    await blobs.put("usage/b", Readable.from([randomBytes(1000)]), { contentType: "application/octet-stream" });
    assert.deepEqual(await blobs.usage(), { bytes: earlier.bytes + 1003, blobs: earlier.blobs + 2 });
  });

  test("copyToFile of a key with no object answers false and writes nothing", async () => {
    const file = path.join(tmp, "never.bin");
    assert.equal(await blobs.copyToFile("uploads/never-uploaded", file), false);
    assert.equal(fs.existsSync(file), false);
  });
});
