import type { Config } from "../config.ts";
import { s3PublicBase } from "../store/s3/public-base.ts";

/**
 * Origins besides the page's own that its pages reach for files: the object store's in S3 mode; otherwise
 * MIXDOWN_FILES_URL's, on which downloads are signed, and MIXDOWN_PUBLIC_URL's, which takes uploads (and signs
 * downloads too without a files URL; it differs from the page's own origin when the operator opens the dashboard
 * by another name, e.g. localhost for 127.0.0.1).
 */
export function fileOrigins(config: Config): string[] {
  if (config.s3) return [new URL(s3PublicBase(config.s3)).origin];
  const origins = [config.filesUrl, config.publicUrl].flatMap((base) => (base ? [new URL(base).origin] : []));
  return [...new Set(origins)];
}
