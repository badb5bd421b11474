/** MIXDOWN_RATE_LIMIT, parsed: tokens per millisecond and the bucket's size. */
export interface RateLimit {
  /** Requests a second (per application), as configured. */
  perSecond: number;
  /** Requests an application may make at once after a quiet spell. */
  burst: number;
}

const SYNTAX = /^(\d+(?:\.\d+)?)\s*\/\s*(s|sec|second|m|min|minute)\s*(?:,\s*burst\s*=\s*(\d+))?$/i;

/**
 * "N/s" or "N/min", optionally ",burst=M" (default: N, at least 1): e.g. "20/s,burst=40". Empty or "off": no
 * limit. Returns the limit, or a message saying what is wrong.
 */
export function parseRateLimit(raw: string | undefined): RateLimit | undefined | string {
  const text = raw?.trim() ?? "";
  if (text === "" || text.toLowerCase() === "off") return undefined;
  const match = SYNTAX.exec(text);
  if (!match) return `must look like "20/s", "600/min" or "20/s,burst=40" (or "off"), got "${raw}"`;
  const count = Number(match[1]);
  const perSecond = /^s/i.test(match[2] as string) ? count : count / 60;
  const burst = match[3] === undefined ? Math.max(1, Math.floor(count)) : Number(match[3]);
  if (!(perSecond > 0) || burst < 1) return `needs a positive rate and a burst of at least 1, got "${raw}"`;
  return { perSecond, burst };
}
