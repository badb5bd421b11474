import { randomUUID } from "node:crypto";
import fs from "node:fs";
import fsp from "node:fs/promises";
import path from "node:path";
import type { Readable } from "node:stream";
import { type BlobInfo, type BlobStore, BlobTooLargeError, type BlobUsage, type PutInfo } from "../blob-store.ts";
import { streamToFile } from "../stream-to-file.ts";

const SAFE_KEY = /^[A-Za-z0-9][A-Za-z0-9._-]*(\/[A-Za-z0-9][A-Za-z0-9._-]*)*\/?$/;

/** Blobs as files under a directory; each has a sidecar "<file>.meta.json" with its content type. */
export class LocalBlobStore implements BlobStore {
  private readonly root: string;

  constructor(root: string) {
    this.root = root;
  }

  private file(key: string): string {
    if (!SAFE_KEY.test(key) || key.includes("..")) throw new Error(`invalid blob key "${key}"`);
    return path.join(this.root, key);
  }

  async put(key: string, body: Readable, info: PutInfo): Promise<BlobInfo> {
    const file = this.file(key);
    await fsp.mkdir(path.dirname(file), { recursive: true });
    const partial = `${file}.part-${randomUUID()}`;
    const maxBytes = info.maxBytes ?? Number.MAX_SAFE_INTEGER;
    let size: number;
    try {
      size = await streamToFile(body, partial, {
        maxBytes,
        tooLarge: () => new BlobTooLargeError(maxBytes),
        freeChunks: true,
      });
      await fsp.writeFile(`${file}.meta.json`, JSON.stringify({ contentType: info.contentType }));
      await fsp.rename(partial, file);
    } catch (error) {
      await fsp.rm(partial, { force: true });
      throw error;
    }
    return { size, contentType: info.contentType };
  }

  async stat(key: string): Promise<BlobInfo | undefined> {
    const file = this.file(key);
    try {
      const [stats, meta] = await Promise.all([fsp.stat(file), fsp.readFile(`${file}.meta.json`, "utf8")]);
      return { size: stats.size, contentType: JSON.parse(meta).contentType };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
      throw error;
    }
  }

  read(key: string, range?: { start: number; end: number }): Readable {
    return fs.createReadStream(this.file(key), range);
  }

  async copyToFile(key: string, destination: string): Promise<boolean> {
    const file = this.file(key);
    try {
      // put() renames a new file over a blob, never writes into it: a link is a copy that costs nothing, whatever
      // the size, and keeps its bytes when the blob is replaced or deleted.
      await fsp.link(file, destination);
      return true;
    } catch (error) {
      if (!fs.existsSync(file)) return false;
      if (!["EXDEV", "EPERM", "EMLINK", "ENOTSUP"].includes((error as NodeJS.ErrnoException).code ?? "")) throw error;
    }
    await fsp.copyFile(file, destination, fs.constants.COPYFILE_FICLONE); // another file system, or no links
    return true;
  }

  async delete(key: string): Promise<void> {
    const file = this.file(key);
    await Promise.all([fsp.rm(file, { force: true }), fsp.rm(`${file}.meta.json`, { force: true })]);
  }

  /**
   * Removes the folder. A job's worker may still be writing into it as it stops (a cancel or DELETE removes the
   * results while the step winds down): a file created while the folder is emptied makes its removal fail with
   * ENOTEMPTY, so Node retries, with a linearly growing pause, for about 2 s in all (a step stops within ~0.7 s
   * of its cancel; test/jobs/cancel-any-module.test.ts).
   */
  async deletePrefix(prefix: string): Promise<void> {
    if (!prefix.endsWith("/")) throw new Error(`blob prefix must end with "/": "${prefix}"`);
    await fsp.rm(this.file(prefix), { recursive: true, force: true, maxRetries: 8, retryDelay: 50 });
  }

  /** Every file under the root (sidecars and unfinished uploads too: they take disk space as well). */
  async usage(): Promise<BlobUsage> {
    const usage = { bytes: 0, blobs: 0 };
    const entries = await fsp.readdir(this.root, { recursive: true, withFileTypes: true }).catch((error) => {
      if ((error as NodeJS.ErrnoException).code === "ENOENT") return [];
      throw error;
    });
    for (const entry of entries) {
      if (!entry.isFile()) continue;
      const stats = await fsp.stat(path.join(entry.parentPath, entry.name)).catch(() => undefined); // deleted since
      if (!stats) continue;
      usage.bytes += stats.size;
      if (!entry.name.endsWith(".meta.json") && !entry.name.includes(".part-")) usage.blobs++;
    }
    return usage;
  }
}
