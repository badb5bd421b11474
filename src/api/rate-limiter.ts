import type { RateLimitStore } from "../store/rate-limit-store.ts";
import type { RateLimit } from "./rate-limit-config.ts";

/** Whether an application's request may go: 0 when it may, else how many ms until it may (a promise when asking). */
export interface RateLimiter {
  take(appId: string): number | Promise<number>;
}

/** Embedded mode: a token bucket per application in this process's memory (the process is the deployment). */
export class LocalRateLimiter implements RateLimiter {
  private readonly buckets = new Map<string, { tokens: number; at: number }>();
  private readonly limit: RateLimit;

  constructor(limit: RateLimit) {
    this.limit = limit;
  }

  take(appId: string): number {
    const now = performance.now();
    const perMs = this.limit.perSecond / 1000;
    let bucket = this.buckets.get(appId);
    if (!bucket) {
      bucket = { tokens: this.limit.burst, at: now };
      this.buckets.set(appId, bucket);
    }
    bucket.tokens = Math.min(this.limit.burst, bucket.tokens + (now - bucket.at) * perMs);
    bucket.at = now;
    if (bucket.tokens >= 1) {
      bucket.tokens -= 1;
      return 0;
    }
    return Math.ceil((1 - bucket.tokens) / perMs);
  }
}

/** Tokens a node took from the shared bucket are good for this long; unused ones lapse (never lent twice). */
const ALLOWANCE_MS = 1000;

interface Allowance {
  tokens: number;
  expiresAt: number;
  deniedUntil: number;
  refill: Promise<void> | undefined;
}

/**
 * Distributed mode: every node takes tokens from the application's one bucket in Postgres, a batch at a time (a
 * tenth of a second's worth), and spends them locally; so a request costs a round trip only once per batch, and
 * the deployment as a whole never admits more than the bucket gives. Once refused, a node refuses locally until
 * the next token is due instead of asking again for every request.
 */
export class SharedRateLimiter implements RateLimiter {
  private readonly allowances = new Map<string, Allowance>();
  private readonly store: RateLimitStore;
  private readonly limit: RateLimit;
  private readonly batch: number;

  constructor(store: RateLimitStore, limit: RateLimit) {
    this.store = store;
    this.limit = limit;
    this.batch = Math.max(1, Math.min(limit.burst, Math.ceil(limit.perSecond / 10)));
  }

  take(appId: string): number | Promise<number> {
    const now = performance.now();
    let allowance = this.allowances.get(appId);
    if (!allowance) {
      allowance = { tokens: 0, expiresAt: 0, deniedUntil: 0, refill: undefined };
      this.allowances.set(appId, allowance);
    }
    if (allowance.tokens > 0 && now < allowance.expiresAt) {
      allowance.tokens--;
      return 0;
    }
    if (now < allowance.deniedUntil) return Math.ceil(allowance.deniedUntil - now);
    const current = allowance;
    current.refill ??= this.store.takeTokens(appId, this.batch, this.limit).then(
      ({ granted, waitMs }) => {
        const at = performance.now();
        current.tokens = granted;
        current.expiresAt = at + ALLOWANCE_MS;
        current.deniedUntil = granted > 0 ? 0 : at + waitMs;
        current.refill = undefined;
      },
      (error: unknown) => {
        current.refill = undefined;
        throw error;
      },
    );
    return current.refill.then(() => this.take(appId));
  }
}
