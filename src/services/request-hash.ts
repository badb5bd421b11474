import { createHash } from "node:crypto";

/** JSON with object keys sorted at every level: the same request body gives the same text whatever its key order. */
function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(",")}]`;
  if (value !== null && typeof value === "object") {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(",")}}`;
  }
  return JSON.stringify(value);
}

/** What identifies a request body for Idempotency-Key: the SHA-256 of its canonical JSON. */
export function requestHash(body: unknown): string {
  return createHash("sha256").update(canonicalJson(body)).digest("base64url");
}
