import path from "node:path";
import type { Readable } from "node:stream";
import { Transform } from "node:stream";
import {
  DeleteObjectCommand,
  DeleteObjectsCommand,
  GetObjectCommand,
  type GetObjectCommandOutput,
  HeadObjectCommand,
  ListObjectsV2Command,
  PutObjectCommand,
  type S3Client,
} from "@aws-sdk/client-s3";
import { Upload } from "@aws-sdk/lib-storage";
import { type BlobInfo, type BlobStore, BlobTooLargeError, type BlobUsage, type PutInfo } from "../blob-store.ts";
import { contentDisposition } from "../served-file.ts";
import { streamToFile } from "../stream-to-file.ts";

/** A 404 answer: HEAD's NotFound, GET's NoSuchKey. */
function isNotFound(error: unknown): boolean {
  const status = (error as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode;
  return status === 404 || ["NotFound", "NoSuchKey"].includes((error as Error).name);
}

/** S3's limit for a single PUT; larger bodies go as a multipart upload. */
const SINGLE_PUT_MAX_BYTES = 5 * 1024 ** 3;

/** Blobs as objects in one bucket of any S3-compatible store. */
export class S3BlobStore implements BlobStore {
  private readonly client: S3Client;
  private readonly bucket: string;

  constructor(client: S3Client, bucket: string) {
    this.client = client;
    this.bucket = bucket;
  }

  async put(key: string, body: Readable, info: PutInfo): Promise<BlobInfo> {
    let size = 0;
    const limit = info.maxBytes ?? Number.MAX_SAFE_INTEGER;
    if (info.size !== undefined && info.size > limit) {
      body.destroy();
      throw new BlobTooLargeError(limit);
    }
    const counter = new Transform({
      transform(chunk: Buffer, _encoding, callback) {
        size += chunk.length;
        if (size > limit) callback(new BlobTooLargeError(limit));
        else callback(null, chunk);
      },
      flush(callback) {
        // A body shorter than its declared size would leave the PUT waiting for bytes that never come.
        if (info.size !== undefined && size !== info.size)
          callback(new Error(`${key}: ${size} bytes, not ${info.size}`));
        else callback();
      },
    });
    body.on("error", (error) => counter.destroy(error));
    const params = {
      Bucket: this.bucket,
      Key: key,
      Body: body.pipe(counter),
      ContentType: info.contentType,
      // The store serves it with every GET: what a browser must not show in place downloads (served-file.ts).
      ContentDisposition: contentDisposition(info.contentType, path.posix.basename(key)),
    };
    if (info.size !== undefined && info.size <= SINGLE_PUT_MAX_BYTES) {
      // A known length goes in one PUT: a multipart upload buffers 5 MiB parts and takes several requests
      // (for 16 MB, ~2.5x the worker's CPU and twice the time, measured here).
      // The SDK does not end a request whose body fails: stop it here, and answer with the body's error.
      const request = new AbortController();
      counter.on("error", () => request.abort());
      await this.client
        .send(new PutObjectCommand({ ...params, ContentLength: info.size }), { abortSignal: request.signal })
        .catch((error: unknown) => {
          throw counter.errored ?? error;
        });
    } else {
      const upload = new Upload({ client: this.client, params });
      try {
        await upload.done();
      } catch (error) {
        await upload.abort().catch(() => undefined);
        throw counter.errored ?? error;
      }
    }
    return { size, contentType: info.contentType };
  }

  async stat(key: string): Promise<BlobInfo | undefined> {
    try {
      const head = await this.client.send(new HeadObjectCommand({ Bucket: this.bucket, Key: key }));
      return { size: head.ContentLength ?? 0, contentType: head.ContentType ?? "application/octet-stream" };
    } catch (error) {
      if (isNotFound(error)) return undefined;
      throw error;
    }
  }

  read(): Readable {
    throw new Error("S3 blobs are read through presigned URLs or copyToFile");
  }

  async copyToFile(key: string, destination: string): Promise<boolean> {
    let object: GetObjectCommandOutput;
    try {
      object = await this.client.send(new GetObjectCommand({ Bucket: this.bucket, Key: key }));
    } catch (error) {
      if (isNotFound(error)) return false;
      throw error;
    }
    await streamToFile(object.Body as Readable, destination, { freeChunks: true });
    return true;
  }

  async delete(key: string): Promise<void> {
    await this.client.send(new DeleteObjectCommand({ Bucket: this.bucket, Key: key }));
  }

  async deletePrefix(prefix: string): Promise<void> {
    for (;;) {
      const listed = await this.client.send(
        new ListObjectsV2Command({ Bucket: this.bucket, Prefix: prefix, MaxKeys: 1000 }),
      );
      const keys = (listed.Contents ?? []).flatMap((object) => (object.Key ? [{ Key: object.Key }] : []));
      if (keys.length === 0) return;
      await this.client.send(new DeleteObjectsCommand({ Bucket: this.bucket, Delete: { Objects: keys, Quiet: true } }));
      if (!listed.IsTruncated) return;
    }
  }

  /** The sizes of every object in the bucket, as listed (1,000 a request). */
  async usage(): Promise<BlobUsage> {
    const usage = { bytes: 0, blobs: 0 };
    let token: string | undefined;
    do {
      const listed = await this.client.send(
        new ListObjectsV2Command({ Bucket: this.bucket, MaxKeys: 1000, ContinuationToken: token }),
      );
      for (const object of listed.Contents ?? []) {
        usage.bytes += object.Size ?? 0;
        usage.blobs++;
      }
      token = listed.IsTruncated ? listed.NextContinuationToken : undefined;
    } while (token);
    return usage;
  }
}
