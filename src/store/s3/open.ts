import { CreateBucketCommand, HeadBucketCommand, S3Client } from "@aws-sdk/client-s3";
import type { S3Config } from "../../config.ts";
import { S3BlobStore } from "./s3-blob-store.ts";
import { S3FileUrls } from "./s3-file-urls.ts";

/** An S3 client for the configured store, its bucket created if missing. */
export async function openS3(
  config: Omit<S3Config, "uploadUrls">,
): Promise<{ blobs: S3BlobStore; fileUrls: S3FileUrls }> {
  const client = new S3Client({
    endpoint: config.endpoint,
    region: config.region,
    forcePathStyle: config.forcePathStyle,
    credentials:
      config.accessKeyId && config.secretAccessKey
        ? { accessKeyId: config.accessKeyId, secretAccessKey: config.secretAccessKey }
        : undefined,
    // Checksums only where S3 requires them: streamed PUTs to other S3 implementations fail otherwise.
    requestChecksumCalculation: "WHEN_REQUIRED",
    responseChecksumValidation: "WHEN_REQUIRED",
  });
  try {
    await client.send(new HeadBucketCommand({ Bucket: config.bucket }));
  } catch {
    await client.send(new CreateBucketCommand({ Bucket: config.bucket })).catch(async (error) => {
      // Another node may have created it meanwhile.
      await client.send(new HeadBucketCommand({ Bucket: config.bucket })).catch(() => {
        throw error;
      });
    });
  }
  const endpoint = (config.endpoint ?? `https://s3.${config.region}.amazonaws.com`).replace(/\/+$/, "");
  const base = config.forcePathStyle
    ? `${endpoint}/${config.bucket}/`
    : `${endpoint.replace("://", `://${config.bucket}.`)}/`;
  return { blobs: new S3BlobStore(client, config.bucket), fileUrls: new S3FileUrls(client, config.bucket, base) };
}
