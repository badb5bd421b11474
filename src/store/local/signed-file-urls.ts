import type { UrlSigner } from "../../services/signed-urls.ts";
import { type FileUrls, uploadKey } from "../file-urls.ts";

export const UPLOAD_PATH = "/uploads/";
export const FILES_PATH = "/files/";

/** URLs on Mixdown's own upload server, signed with its secret (embedded mode). */
export class SignedFileUrls implements FileUrls {
  private readonly signer: UrlSigner;
  /** Signs download URLs: on MIXDOWN_FILES_URL when set, else the same as `signer` (MIXDOWN_PUBLIC_URL). */
  private readonly files: UrlSigner;

  constructor(signer: UrlSigner, files: UrlSigner = signer) {
    this.signer = signer;
    this.files = files;
  }

  async uploadPair(uploadId: string, ttlSeconds: number) {
    const now = Date.now();
    return {
      uploadUrl: this.uploadUrl(uploadId, ttlSeconds, now),
      downloadUrl: this.files.sign("GET", `${FILES_PATH}${uploadKey(uploadId)}`, ttlSeconds, now),
    };
  }

  /** The signed PUT URL of upload `uploadId` on Mixdown's own upload server. */
  uploadUrl(uploadId: string, ttlSeconds: number, now = Date.now()): string {
    return this.signer.sign("PUT", `${UPLOAD_PATH}${uploadId}`, ttlSeconds, now);
  }

  async downloadUrl(key: string, ttlSeconds: number) {
    return this.files.sign("GET", `${FILES_PATH}${key}`, ttlSeconds);
  }

  /** Download URLs on either base are ours: those signed before MIXDOWN_FILES_URL was set still name their file. */
  async keyOf(url: string, at: number) {
    const own = this.files.ownPath(url) ?? this.signer.ownPath(url);
    if (!own?.pathname.startsWith(FILES_PATH)) return undefined;
    const verdict = this.files.verify("GET", own.pathname, own.query, at);
    return verdict === "valid" ? { key: own.pathname.slice(FILES_PATH.length) } : verdict;
  }
}
