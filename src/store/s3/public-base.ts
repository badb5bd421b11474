import type { S3Config } from "../../config.ts";

/** Where the bucket's objects are addressed by clients, e.g. "http://127.0.0.1:7480/mixdown/" (path style). */
export function s3PublicBase(config: Pick<S3Config, "endpoint" | "region" | "bucket" | "forcePathStyle">): string {
  const endpoint = (config.endpoint ?? `https://s3.${config.region}.amazonaws.com`).replace(/\/+$/, "");
  return config.forcePathStyle
    ? `${endpoint}/${config.bucket}/`
    : `${endpoint.replace("://", `://${config.bucket}.`)}/`;
}
