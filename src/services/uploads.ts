import { randomUUID } from "node:crypto";
import type { Readable } from "node:stream";
import { ApiError } from "../errors.ts";
import { type BlobInfo, type BlobStore, BlobTooLargeError } from "../store/blob-store.ts";
import { type FileUrls, uploadKey } from "../store/file-urls.ts";
import { UPLOAD_PATH } from "../store/local/signed-file-urls.ts";
import type { MetadataStore } from "../store/metadata-store.ts";
import type { UrlSigner } from "./signed-urls.ts";

export interface UploadPair {
  uploadUrl: string;
  downloadUrl: string;
}

/** Temporary uploads: one signed PUT URL per upload, used once, readable through a signed GET URL. */
export class UploadService {
  private readonly store: MetadataStore;
  private readonly blobs: BlobStore;
  private readonly fileUrls: FileUrls;
  /** Only for the embedded upload server (PUT to Mixdown itself). */
  private readonly signer: UrlSigner;
  private readonly options: { ttlSeconds: number; maxBytes: number };

  constructor(
    store: MetadataStore,
    blobs: BlobStore,
    fileUrls: FileUrls,
    signer: UrlSigner,
    options: { ttlSeconds: number; maxBytes: number },
  ) {
    this.store = store;
    this.blobs = blobs;
    this.fileUrls = fileUrls;
    this.signer = signer;
    this.options = options;
  }

  async createPair(appId: string): Promise<UploadPair> {
    const id = randomUUID();
    const now = Date.now();
    await this.store.createUpload({
      id,
      appId,
      state: "PENDING",
      contentType: null,
      size: null,
      createdAt: new Date(now).toISOString(),
      expiresAt: now + this.options.ttlSeconds * 1000,
    });
    return this.fileUrls.uploadPair(id, this.options.ttlSeconds);
  }

  /** Receives the body of a PUT to an upload URL; the body is streamed to storage, never held whole. */
  async receive(
    id: string,
    query: Record<string, unknown>,
    body: Readable,
    headers: { contentType: string | undefined; contentLength: number | undefined },
  ): Promise<BlobInfo> {
    if (this.signer.verify("PUT", `${UPLOAD_PATH}${id}`, query) !== "valid") throw new ApiError("INVALID_SIGNATURE");
    const upload = await this.store.getUpload(id);
    if (!upload || upload.expiresAt < Date.now()) throw new ApiError("INVALID_SIGNATURE");
    if (headers.contentLength !== undefined && headers.contentLength > this.options.maxBytes) {
      throw new ApiError("PAYLOAD_TOO_LARGE", `The upload is larger than the limit of ${this.options.maxBytes} bytes`);
    }
    // Refused before the URL is taken, so the client can PUT the file to it again.
    if (headers.contentLength === 0) throw new ApiError("EMPTY_UPLOAD");
    if (!(await this.store.beginUpload(id))) throw new ApiError("UPLOAD_ALREADY_USED");
    const contentType = headers.contentType || "application/octet-stream";
    try {
      const info = await this.blobs.put(uploadKey(id), body, {
        contentType,
        maxBytes: this.options.maxBytes,
        size: headers.contentLength,
      });
      // A chunked body that turned out empty: nothing kept, and the URL free again.
      if (info.size === 0) {
        await this.blobs.delete(uploadKey(id));
        throw new ApiError("EMPTY_UPLOAD");
      }
      await this.store.finishUpload(id, info);
      return info;
    } catch (error) {
      await this.store.finishUpload(id, null);
      if (error instanceof BlobTooLargeError) {
        throw new ApiError(
          "PAYLOAD_TOO_LARGE",
          `The upload is larger than the limit of ${this.options.maxBytes} bytes`,
        );
      }
      throw error;
    }
  }

  /** The upload ids among a job's params that are our own download URLs (kept until the job ends). */
  async uploadIdsIn(params: Record<string, unknown>): Promise<string[]> {
    const urls: string[] = [];
    const visit = (value: unknown): void => {
      if (typeof value === "string") urls.push(value);
      else if (value && typeof value === "object") for (const inner of Object.values(value)) visit(inner);
    };
    visit(params);
    const ids = new Set<string>();
    for (const url of urls) {
      const own = await this.fileUrls.keyOf(url, Date.now());
      if (typeof own === "object" && own.key.startsWith(uploadKey(""))) ids.add(own.key.slice(uploadKey("").length));
    }
    return [...ids];
  }

  /** Deletes uploads expired by `nowMs` that no unfinished job reads; returns how many. */
  async collectGarbage(nowMs = Date.now()): Promise<number> {
    const ids = await this.store.takeExpiredUploads(nowMs);
    for (const id of ids) await this.blobs.delete(uploadKey(id));
    return ids.length;
  }
}
