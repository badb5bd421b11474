import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { Readable } from "node:stream";
import { after, before, test } from "node:test";
import pg from "pg";
import { loadConfig } from "../../src/config.ts";
import type { NewJob } from "../../src/domain.ts";
import { uuidv7 } from "../../src/ids.ts";
import { RetentionSweeper } from "../../src/jobs/retention-sweeper.ts";
import { openStores, type StoresWithOperators } from "../../src/runtime.ts";
import { ApplicationService } from "../../src/services/applications.ts";
import { UrlSigner } from "../../src/services/signed-urls.ts";
import { UploadService } from "../../src/services/uploads.ts";
import { LocalBlobStore } from "../../src/store/local/local-blob-store.ts";
import { SignedFileUrls } from "../../src/store/local/signed-file-urls.ts";
import { describeOrSkip, postgresUnavailable, provisionDatabase } from "../helpers/backends.ts";

const DAY = 24 * 3600_000;
const WORKER = "retention-test";

for (const backend of ["embedded", "distributed"] as const)
  describeOrSkip(`retention [${backend}]`, backend === "distributed" ? postgresUnavailable : undefined, () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "mixdown-retention-"));
    let database: Awaited<ReturnType<typeof provisionDatabase>> | undefined;
    let stores: StoresWithOperators;
    let blobs: LocalBlobStore;
    let uploads: UploadService;
    let appId: string;

    before(async () => {
      if (backend === "distributed") database = await provisionDatabase();
      const env = { MIXDOWN_DATA_DIR: dir, ...(database ? { MIXDOWN_DATABASE_URL: database.url } : {}) };
      stores = await openStores(loadConfig(env));
      blobs = new LocalBlobStore(path.join(dir, "blobs"));
      const signer = new UrlSigner("x".repeat(32), "http://127.0.0.1:1");
      uploads = new UploadService(stores.store, blobs, new SignedFileUrls(signer), signer, {
        ttlSeconds: 3600,
        maxBytes: 1 << 20,
      });
      appId = (await new ApplicationService(stores.store).create("retention")).app.id;
    });
    after(async () => {
      await stores.close();
      await database?.drop();
      fs.rmSync(dir, { recursive: true, force: true });
    });

    const newJob = (inputUploadIds: string[] = []): NewJob => ({
      id: uuidv7(),
      appId,
      name: "job",
      batchName: null,
      metadata: {},
      workflow: "mixdown/convert",
      params: {},
      createdAt: new Date().toISOString(),
      inputUploadIds,
    });
    const put = (key: string) => blobs.put(key, Readable.from([Buffer.from("bytes")]), { contentType: "audio/wav" });

    /** A job run to its end now (real clock), with a result file. */
    async function finishedJob(outcome: "SUCCEEDED" | "FAILED"): Promise<string> {
      const job = newJob();
      await stores.queue.enqueue(job);
      assert.equal((await stores.queue.claim(WORKER, 60_000))?.id, job.id);
      await put(`results/${job.id}/run/output.wav`);
      const ended =
        outcome === "SUCCEEDED"
          ? await stores.queue.complete(job.id, WORKER, {
              output: { file: `results/${job.id}/run/output.wav`, contentType: "audio/wav" },
            })
          : await stores.queue.fail(job.id, WORKER, { code: "BAD_INPUT", title: "Invalid input", message: "no" });
      assert.ok(ended);
      return job.id;
    }

    async function uploaded(): Promise<string> {
      const id = uuidv7();
      const now = Date.now();
      await stores.store.createUpload({
        id,
        appId,
        state: "COMPLETE",
        contentType: "audio/wav",
        size: 5,
        createdAt: new Date(now).toISOString(),
        expiresAt: now + 3600_000,
      });
      await put(`uploads/${id}`);
      return id;
    }

    const exists = async (key: string) => (await blobs.stat(key)) !== undefined;

    test("finished jobs older than the retention go with their files; younger and unfinished ones stay; expired unread uploads go", async () => {
      const succeeded = await finishedJob("SUCCEEDED");
      const failed = await finishedJob("FAILED");
      const unread = await uploaded();
      const read = await uploaded();
      const running = newJob();
      await stores.queue.enqueue(running);
      assert.equal((await stores.queue.claim(WORKER, 60_000))?.id, running.id);
      const queued = newJob([read]);
      await stores.queue.enqueue(queued);
      const start = Date.now();
      let now = start + 30 * DAY - 60_000;
      const sweeper = new RetentionSweeper(stores.retention, blobs, uploads, { retentionDays: 30, now: () => now });

      assert.deepEqual(await sweeper.sweep(), { jobs: 0, uploads: 1, deliveries: 0 });
      assert.ok(await stores.store.getJob(appId, succeeded), "29.99 days old: kept");
      assert.ok(await exists(`results/${succeeded}/run/output.wav`));
      assert.equal(await stores.store.getUpload(unread), undefined, "expired and read by no job");
      assert.equal(await exists(`uploads/${unread}`), false);
      assert.ok(await stores.store.getUpload(read), "an unfinished job reads it");
      assert.ok(await exists(`uploads/${read}`));

      now = start + 30 * DAY + 60_000;
      assert.deepEqual(await sweeper.sweep(), { jobs: 2, uploads: 0, deliveries: 0 });
      for (const id of [succeeded, failed]) {
        assert.equal(await stores.store.getJob(appId, id), undefined);
        assert.deepEqual(await exists(`results/${id}/run/output.wav`), false);
      }
      assert.equal((await stores.store.getJob(appId, running.id))?.status, "STARTED");
      assert.equal((await stores.store.getJob(appId, queued.id))?.status, "QUEUED");
      // Leave the queue empty for the next tests.
      await stores.queue.complete(running.id, WORKER, {});
      assert.equal((await stores.queue.claim(WORKER, 60_000))?.id, queued.id);
      await stores.queue.complete(queued.id, WORKER, {});
    });

    test("MIXDOWN_JOB_RETENTION_DAYS=0 keeps finished jobs forever", async () => {
      const id = await finishedJob("SUCCEEDED");
      const sweeper = new RetentionSweeper(stores.retention, blobs, uploads, {
        retentionDays: 0,
        now: () => Date.now() + 10_000 * DAY,
      });
      assert.equal((await sweeper.sweep())?.jobs, 0);
      assert.ok(await stores.store.getJob(appId, id));
      assert.ok(await exists(`results/${id}/run/output.wav`));
    });

    if (backend === "distributed")
      test("one node sweeps at a time: while another holds the sweep's lock, a sweep does nothing", async () => {
        const id = await finishedJob("SUCCEEDED");
        const later = () => Date.now() + 31 * DAY;
        const sweeper = new RetentionSweeper(stores.retention, blobs, uploads, { retentionDays: 30, now: later });
        const other = new pg.Client({ connectionString: database?.url });
        await other.connect();
        try {
          await other.query("SELECT pg_advisory_lock($1)", [0x72657465]);
          assert.equal(await sweeper.sweep(), undefined);
          assert.ok(await stores.store.getJob(appId, id));
          await other.query("SELECT pg_advisory_unlock($1)", [0x72657465]);
        } finally {
          await other.end();
        }
        assert.ok(((await sweeper.sweep())?.jobs ?? 0) >= 1);
        assert.equal(await stores.store.getJob(appId, id), undefined);
      });
  });
