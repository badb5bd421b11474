import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from "node:crypto";
import type { FastifyReply, FastifyRequest } from "fastify";
import { cookieOptions } from "./context.ts";

export const FLASH_COOKIE = "mixdown_flash";
/** Long enough for a slow redirect, short enough that a forgotten one is gone soon. */
const FLASH_SECONDS = 120;

/** What a POST hands to the page it redirects to, shown once there: a new API key or a webhook signing secret. */
export type Flash =
  | { kind: "api-key"; appId: string; apiKey: string; rotated: boolean }
  | {
      kind: "webhook-secret";
      appId: string;
      secret: string;
      endpoint?: { id: string; url: string };
      added?: boolean;
      rotated?: boolean;
      previousValidUntil?: string | null;
    };

/** The cookie's key: derived from the URL-signing secret, which every node of a deployment shares. */
export const flashKey = (secret: string): Buffer =>
  Buffer.from(hkdfSync("sha256", secret, "", "mixdown dashboard flash", 32));

/**
 * Post/redirect/get for what may be shown only once: the POST puts it in a short-lived cookie, encrypted
 * (AES-256-GCM) and bound to the operator's session, so any node of the deployment can show it on the GET that
 * follows, and that GET clears it. A reload of that page, or the page opened later, finds nothing.
 */
export class FlashCookie {
  private readonly key: Buffer;
  private readonly cookie: ReturnType<typeof cookieOptions>;

  constructor(key: Buffer, secureCookies: boolean) {
    this.key = key;
    this.cookie = cookieOptions({ secureCookies });
  }

  /** The session the flash belongs to: its CSRF token is a secret of that session only. */
  private static binding(request: FastifyRequest): Buffer {
    return Buffer.from(request.operatorSession?.csrfToken ?? "");
  }

  put(request: FastifyRequest, reply: FastifyReply, flash: Flash): void {
    const iv = randomBytes(12);
    const cipher = createCipheriv("aes-256-gcm", this.key, iv);
    cipher.setAAD(FlashCookie.binding(request));
    const plain = JSON.stringify({ ...flash, expires: Date.now() + FLASH_SECONDS * 1000 });
    const sealed = Buffer.concat([cipher.update(plain, "utf8"), cipher.final()]);
    const value = Buffer.concat([iv, cipher.getAuthTag(), sealed]).toString("base64url");
    reply.setCookie(FLASH_COOKIE, value, { ...this.cookie, maxAge: FLASH_SECONDS });
  }

  /** The flash of this kind for this application, if the request carries one; the cookie is cleared either way. */
  take<K extends Flash["kind"]>(
    request: FastifyRequest,
    reply: FastifyReply,
    kind: K,
    appId: string,
  ): Extract<Flash, { kind: K }> | undefined {
    const value = request.cookies[FLASH_COOKIE];
    if (!value) return undefined;
    reply.clearCookie(FLASH_COOKIE, this.cookie);
    try {
      const bytes = Buffer.from(value, "base64url");
      const decipher = createDecipheriv("aes-256-gcm", this.key, bytes.subarray(0, 12));
      decipher.setAAD(FlashCookie.binding(request));
      decipher.setAuthTag(bytes.subarray(12, 28));
      const plain = Buffer.concat([decipher.update(bytes.subarray(28)), decipher.final()]).toString("utf8");
      const flash = JSON.parse(plain) as Flash & { expires: number };
      if (flash.kind !== kind || flash.appId !== appId || flash.expires < Date.now()) return undefined;
      return flash as unknown as Extract<Flash, { kind: K }>;
    } catch {
      return undefined; // another session's, another deployment's, or tampered with
    }
  }
}
