import { createHmac, timingSafeEqual } from "node:crypto";

export type SignedMethod = "GET" | "PUT";

/** HMAC-SHA256 over method, path and expiry: URLs that grant one action on one path until a time. */
export class UrlSigner {
  private readonly secret: string;
  private readonly publicUrl: string;

  constructor(secret: string, publicUrl: string) {
    this.secret = secret;
    this.publicUrl = publicUrl;
  }

  private signature(method: SignedMethod, pathname: string, expires: number): string {
    return createHmac("sha256", this.secret).update(`${method}\n${pathname}\n${expires}`).digest("base64url");
  }

  /** An absolute URL for pathname (which starts with "/"), valid for ttlSeconds. */
  sign(method: SignedMethod, pathname: string, ttlSeconds: number, now = Date.now()): string {
    const expires = Math.ceil(now / 1000) + ttlSeconds;
    return `${this.publicUrl}${pathname}?expires=${expires}&signature=${this.signature(method, pathname, expires)}`;
  }

  /** "valid", "expired" or "invalid" for a request's path and query (expiry checked against `at`). */
  verify(
    method: SignedMethod,
    pathname: string,
    query: { expires?: unknown; signature?: unknown },
    at = Date.now(),
  ): "valid" | "expired" | "invalid" {
    const { expires, signature } = query;
    if (typeof expires !== "string" || typeof signature !== "string" || !/^\d{1,12}$/.test(expires)) {
      return "invalid";
    }
    const expected = Buffer.from(this.signature(method, pathname, Number(expires)));
    const given = Buffer.from(signature);
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) return "invalid";
    return Number(expires) * 1000 < at ? "expired" : "valid";
  }

  /** The pathname (relative to the public URL) and query of one of our own URLs; undefined for others. */
  ownPath(url: string): { pathname: string; query: Record<string, string> } | undefined {
    if (!url.startsWith(`${this.publicUrl}/`)) return undefined;
    const parsed = new URL(url.slice(this.publicUrl.length), "http://relative");
    return { pathname: parsed.pathname, query: Object.fromEntries(parsed.searchParams) };
  }
}
