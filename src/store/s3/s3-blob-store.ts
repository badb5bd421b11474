import type { Readable } from "node:stream";
import { Transform } from "node:stream";
import {
  DeleteObjectCommand,
  DeleteObjectsCommand,
  GetObjectCommand,
  HeadObjectCommand,
  ListObjectsV2Command,
  type S3Client,
} from "@aws-sdk/client-s3";
import { Upload } from "@aws-sdk/lib-storage";
import { type BlobInfo, type BlobStore, BlobTooLargeError } from "../blob-store.ts";
import { streamToFile } from "../stream-to-file.ts";

/** Blobs as objects in one bucket of any S3-compatible store. */
export class S3BlobStore implements BlobStore {
  private readonly client: S3Client;
  private readonly bucket: string;

  constructor(client: S3Client, bucket: string) {
    this.client = client;
    this.bucket = bucket;
  }

  async put(key: string, body: Readable, info: { contentType: string; maxBytes?: number }): Promise<BlobInfo> {
    let size = 0;
    const limit = info.maxBytes ?? Number.MAX_SAFE_INTEGER;
    const counter = new Transform({
      transform(chunk: Buffer, _encoding, callback) {
        size += chunk.length;
        if (size > limit) callback(new BlobTooLargeError(limit));
        else callback(null, chunk);
      },
    });
    body.on("error", (error) => counter.destroy(error));
    const upload = new Upload({
      client: this.client,
      params: { Bucket: this.bucket, Key: key, Body: body.pipe(counter), ContentType: info.contentType },
    });
    try {
      await upload.done();
    } catch (error) {
      await upload.abort().catch(() => undefined);
      throw counter.errored ?? error;
    }
    return { size, contentType: info.contentType };
  }

  async stat(key: string): Promise<BlobInfo | undefined> {
    try {
      const head = await this.client.send(new HeadObjectCommand({ Bucket: this.bucket, Key: key }));
      return { size: head.ContentLength ?? 0, contentType: head.ContentType ?? "application/octet-stream" };
    } catch (error) {
      const status = (error as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode;
      if (status === 404 || (error as Error).name === "NotFound") return undefined;
      throw error;
    }
  }

  read(): Readable {
    throw new Error("S3 blobs are read through presigned URLs or copyToFile");
  }

  async copyToFile(key: string, destination: string): Promise<void> {
    const object = await this.client.send(new GetObjectCommand({ Bucket: this.bucket, Key: key }));
    await streamToFile(object.Body as Readable, destination, { freeChunks: true });
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
}
