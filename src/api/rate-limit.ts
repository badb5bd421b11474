import type { FastifyInstance } from "fastify";
import { ApiError } from "../errors.ts";
import type { RateLimiter } from "./rate-limiter.ts";

function rateLimited(waitMs: number): ApiError {
  const seconds = Math.max(1, Math.ceil(waitMs / 1000));
  return new ApiError(
    "RATE_LIMITED",
    `Too many requests for this application; retry in ${seconds} s (MIXDOWN_RATE_LIMIT)`,
    undefined,
    { retryAfterSeconds: seconds },
  );
}

/**
 * Counts every API request of an application (after authentication) against MIXDOWN_RATE_LIMIT; over it, 429
 * RATE_LIMITED with Retry-After. A callback hook answered synchronously while tokens are at hand: the status
 * route is the hot path.
 */
export function rateLimitHook(api: FastifyInstance, limiter: RateLimiter): void {
  api.addHook("onRequest", (request, _reply, done) => {
    const verdict = limiter.take(request.application.id);
    if (verdict === 0) return done();
    if (typeof verdict === "number") return done(rateLimited(verdict));
    verdict.then((waitMs) => (waitMs === 0 ? done() : done(rateLimited(waitMs))), done);
  });
}
