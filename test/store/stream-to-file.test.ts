import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { Readable } from "node:stream";
import { after, test } from "node:test";
import { streamToFile } from "../../src/store/stream-to-file.ts";

const dir = fs.mkdtempSync(path.join(os.tmpdir(), "mixdown-stream-to-file-"));
after(() => fs.rmSync(dir, { recursive: true, force: true }));

/** Chunks of the given sizes, cut from random bytes; returns them and their concatenation. */
function chunks(sizes: number[]): { parts: Buffer[]; whole: Buffer } {
  const whole = randomBytes(sizes.reduce((a, b) => a + b, 0));
  const parts: Buffer[] = [];
  let offset = 0;
  for (const size of sizes) {
    parts.push(whole.subarray(offset, offset + size));
    offset += size;
  }
  return { parts, whole };
}

test("the file holds exactly the bytes streamed, in order, across many large writes", async () => {
  // 64 KiB socket-sized chunks past several MiB batches, odd sizes, an empty chunk and a lone byte.
  const sizes = [...Array.from({ length: 70 }, () => 65536), 1, 0, 12345, 3 * 1024 * 1024 + 7, 1];
  const { parts, whole } = chunks(sizes);
  const file = path.join(dir, "exact.bin");
  const size = await streamToFile(Readable.from(parts), file);
  assert.equal(size, whole.length);
  assert.ok(fs.readFileSync(file).equals(whole));
});

test("an empty body makes an empty file", async () => {
  const file = path.join(dir, "empty.bin");
  assert.equal(await streamToFile(Readable.from([]), file), 0);
  assert.equal(fs.statSync(file).size, 0);
});

test("past the limit it stops reading and rejects with the caller's error", async () => {
  const { parts } = chunks(Array.from({ length: 40 }, () => 65536));
  let read = 0;
  const body = Readable.from(
    (function* () {
      for (const part of parts) {
        read++;
        yield part;
      }
    })(),
  );
  const tooLarge = () => new Error("too large");
  const file = path.join(dir, "limited.bin");
  await assert.rejects(streamToFile(body, file, { maxBytes: 10 * 65536, tooLarge }), /too large/);
  assert.ok(read <= 12, `read ${read} chunks after the limit`);
});

test("a body that fails midway rejects with its error", async () => {
  const body = new Readable({ read() {} });
  body.push(randomBytes(1000));
  setImmediate(() => body.destroy(new Error("connection reset")));
  await assert.rejects(streamToFile(body, path.join(dir, "broken.bin")), /connection reset/);
});

test("a file that cannot be created rejects", async () => {
  const file = path.join(dir, "no-such-dir", "x.bin");
  await assert.rejects(streamToFile(Readable.from([Buffer.from("x")]), file), { code: "ENOENT" });
});

test("with freeChunks, a written chunk that owns its memory is freed; a view into shared memory is left alone", async () => {
  const owned = Buffer.from(randomBytes(65536));
  const shared = randomBytes(8192);
  const view = shared.subarray(0, 4096);
  const copy = Buffer.concat([owned, view]);
  const file = path.join(dir, "freed.bin");
  await streamToFile(Readable.from([owned, view]), file, { freeChunks: true });
  assert.ok(fs.readFileSync(file).equals(copy));
  assert.equal(owned.length, 0, "the owned chunk is detached (its memory freed)");
  assert.equal(view.length, 4096);
  assert.ok(view.equals(copy.subarray(65536)));
});

test("without freeChunks the caller's chunks are untouched", async () => {
  const chunk = Buffer.from(randomBytes(65536));
  await streamToFile(Readable.from([chunk]), path.join(dir, "kept.bin"));
  assert.equal(chunk.length, 65536);
});
