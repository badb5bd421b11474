import { createHmac, randomBytes } from "node:crypto";

/** Standard Webhooks signing (https://www.standardwebhooks.com): secrets are "whsec_" + base64 of the key bytes. */
const SECRET_PREFIX = "whsec_";

export function newWebhookSecret(): string {
  return SECRET_PREFIX + randomBytes(32).toString("base64");
}

/** "v1,<base64 HMAC-SHA256 of `${id}.${timestamp}.${body}`>" under one secret. */
export function signature(secret: string, id: string, timestampSeconds: number, body: string): string {
  const key = Buffer.from(secret.slice(SECRET_PREFIX.length), "base64");
  const mac = createHmac("sha256", key).update(`${id}.${timestampSeconds}.${body}`).digest("base64");
  return `v1,${mac}`;
}

/** The headers of one delivery attempt: every given secret signs (space-separated, as the specification allows). */
export function webhookHeaders(
  secrets: string[],
  id: string,
  timestampSeconds: number,
  body: string,
): Record<string, string> {
  return {
    "webhook-id": id,
    "webhook-timestamp": String(timestampSeconds),
    "webhook-signature": secrets.map((secret) => signature(secret, id, timestampSeconds, body)).join(" "),
  };
}
