import { createHash, randomBytes } from "node:crypto";

const PREFIX = "mxd_";

/** A new API key: "mxd_" + 32 random bytes, base64url. Only its hash is ever stored. */
export const generateApiKey = (): string => PREFIX + randomBytes(32).toString("base64url");

/**
 * SHA-256 of the key. Keys carry 256 bits of entropy, so a fast hash is safe (as for GitHub tokens);
 * looking up by hash means the secret itself is never compared byte by byte.
 */
export const hashApiKey = (key: string): string => createHash("sha256").update(key).digest("hex");

export const looksLikeApiKey = (key: string): boolean => key.startsWith(PREFIX) && key.length === PREFIX.length + 43;
