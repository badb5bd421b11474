import { type FileUrls, uploadKey } from "../file-urls.ts";
import type { SignedFileUrls } from "../local/signed-file-urls.ts";
import type { S3FileUrls } from "./s3-file-urls.ts";

/**
 * MIXDOWN_S3_UPLOAD_URLS=mixdown: clients PUT uploads to Mixdown's own upload URL (the API node streams the
 * body into the bucket), and read them and every result through the store's presigned URLs. For clients
 * that send bodies of unknown length (chunked), which S3 refuses on a presigned PUT.
 */
export class UploadThroughApiUrls implements FileUrls {
  private readonly uploads: SignedFileUrls;
  private readonly store: S3FileUrls;

  constructor(uploads: SignedFileUrls, store: S3FileUrls) {
    this.uploads = uploads;
    this.store = store;
  }

  async uploadPair(uploadId: string, ttlSeconds: number) {
    return {
      uploadUrl: this.uploads.uploadUrl(uploadId, ttlSeconds),
      downloadUrl: await this.store.downloadUrl(uploadKey(uploadId), ttlSeconds),
    };
  }

  downloadUrl(key: string, ttlSeconds: number): Promise<string> {
    return this.store.downloadUrl(key, ttlSeconds);
  }

  keyOf(url: string, at: number) {
    return this.store.keyOf(url, at);
  }
}
