import path from "node:path";
import { GetObjectCommand, PutObjectCommand, type S3Client } from "@aws-sdk/client-s3";
import { getSignedUrl } from "@aws-sdk/s3-request-presigner";
import { type FileUrls, uploadKey } from "../file-urls.ts";
import { contentDisposition } from "../served-file.ts";

/** Presigned URLs of the object store itself: uploads and downloads never pass through API nodes. */
export class S3FileUrls implements FileUrls {
  private readonly client: S3Client;
  private readonly bucket: string;
  /** Where the bucket's objects are addressed, e.g. "http://127.0.0.1:7480/mixdown/". */
  private readonly base: string;

  constructor(client: S3Client, bucket: string, base: string) {
    this.client = client;
    this.bucket = bucket;
    this.base = base;
  }

  /** `disposition` is signed into the URL (response-content-disposition): the store answers with it. */
  private get(key: string, ttlSeconds: number, signingDate?: Date, disposition?: string): Promise<string> {
    const command = new GetObjectCommand({ Bucket: this.bucket, Key: key, ResponseContentDisposition: disposition });
    return getSignedUrl(this.client, command, { expiresIn: ttlSeconds, signingDate });
  }

  /**
   * An upload's type is whatever its client PUT, unknown when its URL is signed and not checked by the store: its
   * download URL makes it an attachment whatever it is, so a browser never shows it in place (an HTML or SVG file
   * would run as a page of the store's origin). Results are typed by Mixdown and stored with their disposition.
   */
  private dispositionOf(key: string): string | undefined {
    return key.startsWith(uploadKey(""))
      ? contentDisposition("application/octet-stream", path.posix.basename(key))
      : undefined;
  }

  async uploadPair(uploadId: string, ttlSeconds: number) {
    const key = uploadKey(uploadId);
    const [uploadUrl, downloadUrl] = await Promise.all([
      getSignedUrl(this.client, new PutObjectCommand({ Bucket: this.bucket, Key: key }), { expiresIn: ttlSeconds }),
      this.get(key, ttlSeconds, undefined, this.dispositionOf(key)),
    ]);
    return { uploadUrl, downloadUrl };
  }

  downloadUrl(key: string, ttlSeconds: number): Promise<string> {
    return this.get(key, ttlSeconds, undefined, this.dispositionOf(key));
  }

  /** Our own presigned GET URL: recognised by its address, and its signature recomputed and compared. */
  async keyOf(url: string, at: number) {
    if (!url.startsWith(this.base)) return undefined;
    const parsed = URL.parse(url);
    let key: string;
    try {
      key = decodeURIComponent(url.slice(this.base.length).split("?")[0] ?? "");
    } catch {
      return "invalid" as const; // a percent-encoding that is not UTF-8: no key of ours
    }
    if (!parsed) return "invalid" as const;
    const date = parsed.searchParams.get("X-Amz-Date");
    const expires = Number(parsed.searchParams.get("X-Amz-Expires"));
    const signature = parsed.searchParams.get("X-Amz-Signature");
    if (!key || !date || !signature || !Number.isInteger(expires)) return "invalid" as const;
    const signedAt = new Date(date.replace(/^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z$/, "$1-$2-$3T$4:$5:$6Z"));
    if (Number.isNaN(signedAt.getTime())) return "invalid" as const;
    // The disposition the URL was signed with, if any (URLs signed before there was one have none).
    const disposition = parsed.searchParams.get("response-content-disposition") ?? undefined;
    const expected = new URL(await this.get(key, expires, signedAt, disposition)).searchParams.get("X-Amz-Signature");
    if (expected !== signature) return "invalid" as const;
    return signedAt.getTime() + expires * 1000 < at ? ("expired" as const) : { key };
  }
}
