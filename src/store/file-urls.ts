/** The URLs through which clients move files in and out: Mixdown's own signed URLs, or an object store's presigned ones. */
export interface FileUrls {
  /** Where a client PUTs upload `uploadId`, and where it is read from afterwards. */
  uploadPair(uploadId: string, ttlSeconds: number): Promise<{ uploadUrl: string; downloadUrl: string }>;
  /** A temporary download URL for a stored blob. */
  downloadUrl(key: string, ttlSeconds: number): Promise<string>;
  /**
   * The blob key behind one of our own download URLs, with its signature checked as of `at` (ms);
   * "invalid" or "expired" for a bad one; undefined for any other URL.
   */
  keyOf(url: string, at: number): Promise<{ key: string } | "invalid" | "expired" | undefined>;
}

export const uploadKey = (uploadId: string): string => `uploads/${uploadId}`;
