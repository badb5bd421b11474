import type { RateLimit } from "../api/rate-limit-config.ts";

/** The deployment-wide token buckets of MIXDOWN_RATE_LIMIT (distributed mode), one per application. */
export interface RateLimitStore {
  /**
   * Refills the application's bucket for the time since it was last used, then takes up to `want` whole tokens.
   * Returns how many it got and, when none, how long until the next token.
   */
  takeTokens(appId: string, want: number, limit: RateLimit): Promise<{ granted: number; waitMs: number }>;
}
