import type { Config } from "../config.ts";
import { s3PublicBase } from "../store/s3/public-base.ts";

/**
 * Origins besides the page's own that its pages reach for files: the object store's in S3 mode; otherwise
 * MIXDOWN_PUBLIC_URL's, on which local file URLs are signed (it differs from the page's own origin when the
 * operator opens the dashboard by another name, e.g. localhost for 127.0.0.1).
 */
export function fileOrigins(config: Config): string[] {
  return [new URL(config.s3 ? s3PublicBase(config.s3) : config.publicUrl).origin];
}
