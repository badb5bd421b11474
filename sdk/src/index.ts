export { MixdownClient, type MixdownClientOptions, type UploadOptions } from "./client.ts";
export { type ErrorDetail, JobTimeoutError, MixdownError } from "./errors.ts";
export type { JobStateEvent } from "./events.ts";
export { normalizeJob, normalizeJobList } from "./normalize.ts";
export { type DownloadedResults, type DownloadOptions, RESULT_SUMMARY_FILE } from "./results.ts";
export { extensionFromUrl, mediaTypeFor, type UploadSource } from "./transfer.ts";
export * from "./types.ts";
export type { WaitOptions } from "./wait.ts";
