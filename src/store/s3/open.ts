import { CreateBucketCommand, HeadBucketCommand, S3Client } from "@aws-sdk/client-s3";
import type { S3Config } from "../../config.ts";
import { allowBrowserOrigin } from "./browser-cors.ts";
import { s3PublicBase } from "./public-base.ts";
import { S3BlobStore } from "./s3-blob-store.ts";
import { S3FileUrls } from "./s3-file-urls.ts";

/**
 * An S3 client for the configured store, its bucket created if missing; with `browserOrigin`, the bucket also
 * accepts uploads and reads from pages of that origin (`corsProblem` says why not, when it cannot).
 */
export async function openS3(
  config: Omit<S3Config, "uploadUrls">,
  browserOrigin?: string,
): Promise<{ blobs: S3BlobStore; fileUrls: S3FileUrls; corsProblem?: string }> {
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
  const corsProblem = browserOrigin ? await allowBrowserOrigin(client, config.bucket, browserOrigin) : undefined;
  return {
    blobs: new S3BlobStore(client, config.bucket),
    fileUrls: new S3FileUrls(client, config.bucket, s3PublicBase(config)),
    corsProblem,
  };
}
