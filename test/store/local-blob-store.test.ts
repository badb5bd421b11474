import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { Readable } from "node:stream";
import { after, test } from "node:test";
import { LocalBlobStore } from "../../src/store/local/local-blob-store.ts";

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "mixdown-local-blobs-"));
after(() => fs.rmSync(tmp, { recursive: true, force: true }));
const blobs = new LocalBlobStore(path.join(tmp, "blobs"));
const put = (key: string, text: string) =>
  blobs.put(key, Readable.from([Buffer.from(text)]), { contentType: "text/plain" });

test("copyToFile links the blob (no bytes copied): the job's file keeps its bytes when the blob is replaced or deleted", async () => {
  await put("uploads/a", "first");
  const file = path.join(tmp, "input-0");
  assert.equal(await blobs.copyToFile("uploads/a", file), true);
  assert.equal(fs.readFileSync(file, "utf8"), "first");
  assert.equal(fs.statSync(file).ino, fs.statSync(path.join(tmp, "blobs/uploads/a")).ino);

  await put("uploads/a", "second");
  assert.equal(fs.readFileSync(file, "utf8"), "first");
  await blobs.delete("uploads/a");
  assert.equal(fs.readFileSync(file, "utf8"), "first");
});

test("copyToFile of a key with no blob answers false and writes nothing", async () => {
  const file = path.join(tmp, "input-1");
  assert.equal(await blobs.copyToFile("uploads/never-uploaded", file), false);
  assert.equal(fs.existsSync(file), false);
});

test("usage counts the blobs, and the bytes of every file the store keeps (content-type sidecars too)", async () => {
  const store = new LocalBlobStore(path.join(tmp, "usage-blobs"));
  assert.deepEqual(await store.usage(), { bytes: 0, blobs: 0 }); // nothing stored yet: no directory
  await store.put("uploads/u1", Readable.from([Buffer.from("abc")]), { contentType: "text/plain" });
  await store.put("results/j1/out.json", Readable.from([Buffer.from("hello")]), { contentType: "application/json" });
  const sidecars = ["uploads/u1", "results/j1/out.json"].reduce(
    (sum, key) => sum + fs.statSync(path.join(tmp, "usage-blobs", `${key}.meta.json`)).size,
    0,
  );
  assert.deepEqual(await store.usage(), { bytes: 3 + 5 + sidecars, blobs: 2 });
  await store.deletePrefix("results/j1/");
  assert.equal((await store.usage()).blobs, 1);
});

test("deletePrefix removes a folder that a worker is still writing into as it stops", async () => {
  for (let round = 0; round < 20; round++) {
    const prefix = `results/racing-${round}/`;
    for (let i = 0; i < 20; i++) await put(`${prefix}stem-${i}`, "x".repeat(1000));
    // The writer goes on for 150 ms, as a step does between its cancel and its stop.
    const until = performance.now() + 150;
    const writer = (async () => {
      for (let i = 100; performance.now() < until; i++) await put(`${prefix}late-${i}`, "y").catch(() => undefined);
    })();
    await blobs.deletePrefix(prefix);
    await writer;
    await blobs.deletePrefix(prefix); // what the worker does once its step has stopped
    assert.equal(fs.existsSync(path.join(tmp, "blobs", prefix)), false);
  }
});
