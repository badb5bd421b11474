import type http from "node:http";
import { setTimeout as delay } from "node:timers/promises";
import { Webhook } from "standardwebhooks";
import { startFixture } from "../helpers/http-fixture.ts";

export interface Received {
  path: string;
  headers: Record<string, string>;
  body: string;
  at: number;
}

/**
 * A webhook receiver on loopback: records every request; answers per path from `script[path]`: the n-th attempt
 * of one message (webhook-id) gets its n-th status, the last repeating (200 by default); status 0 never answers.
 */
export async function startReceiver() {
  const received: Received[] = [];
  const script = new Map<string, number[]>();
  const fixture = await startFixture((request: http.IncomingMessage, response: http.ServerResponse) => {
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("end", () => {
      const path = request.url ?? "";
      const headers = request.headers as Record<string, string>;
      const earlier = received.filter((r) => r.headers["webhook-id"] === headers["webhook-id"]).length;
      received.push({ path, headers, body: Buffer.concat(chunks).toString(), at: Date.now() });
      const statuses = script.get(path) ?? [200];
      const status = statuses[Math.min(earlier, statuses.length - 1)] ?? 200;
      if (status !== 0) response.writeHead(status).end();
    });
  });
  return {
    ...fixture,
    received,
    script,
    /** Requests to `path` whose body's data is job `jobId` (optionally of one event type). */
    of(path: string, jobId: string, type?: string): Received[] {
      return received.filter((r) => {
        if (r.path !== path) return false;
        const body = JSON.parse(r.body) as { type: string; data: { id: string } };
        return body.data.id === jobId && (type === undefined || body.type === type);
      });
    },
    /** Waits (bounded) until `of(path, jobId, type)` has at least n requests, and returns them. */
    async waitFor(path: string, jobId: string, type: string, n = 1, timeoutMs = 30_000): Promise<Received[]> {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const found = this.of(path, jobId, type);
        if (found.length >= n) return found;
        if (Date.now() > deadline)
          throw new Error(`${found.length} ${type} deliveries of job ${jobId} to ${path} after ${timeoutMs} ms`);
        await delay(20);
      }
    },
  };
}

/** The body as the independent verifier (the `standardwebhooks` package) accepts it; throws if the signature fails. */
export function verify(secret: string, request: Received): { type: string; timestamp: string; data: any } {
  return new Webhook(secret).verify(request.body, request.headers) as { type: string; timestamp: string; data: any };
}
