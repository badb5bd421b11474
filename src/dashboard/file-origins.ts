import type { Config } from "../config.ts";
import { s3PublicBase } from "../store/s3/public-base.ts";

/** Origins besides the dashboard's own that its pages reach for files: the object store's, in S3 mode. */
export function fileOrigins(config: Config): string[] {
  return config.s3 ? [new URL(s3PublicBase(config.s3)).origin] : [];
}
