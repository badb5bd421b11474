import { randomBytes } from "node:crypto";
import type { IncomingMessage } from "node:http";

const ARRIVED = Symbol("arrivedAt");
const PLAIN_TOKEN = /^[\w.-]{1,100}$/;

/**
 * Fastify's genReqId, the first code to see each request: it notes when the request arrived (for the latency
 * metric) and names it by the client's X-Request-Id when that is a plain token, else by this process's random
 * prefix and a counter ("Zq3x_9aT-1f"): unique across nodes without drawing a UUID on the polled status route.
 */
export function requestIds(): (request: IncomingMessage) => string {
  const prefix = randomBytes(6).toString("base64url");
  let counter = 0;
  return (request) => {
    (request as IncomingMessage & { [ARRIVED]?: number })[ARRIVED] = performance.now();
    const given = request.headers["x-request-id"];
    return typeof given === "string" && PLAIN_TOKEN.test(given) ? given : `${prefix}-${(++counter).toString(36)}`;
  };
}

/** Seconds since `requestIds` saw the request. */
export function secondsSinceArrival(request: IncomingMessage): number {
  const arrived = (request as IncomingMessage & { [ARRIVED]?: number })[ARRIVED];
  return arrived === undefined ? 0 : (performance.now() - arrived) / 1000;
}
