import type { FastifyInstance } from "fastify";
import type { Metrics } from "../metrics.ts";

/** Unauthenticated operational endpoints. */
export function opsRoutes(app: FastifyInstance, { metrics }: { metrics: Metrics }): void {
  app.get("/healthz", { schema: { tags: ["operations"], summary: "Liveness check (no auth)" } }, async () => ({
    status: "ok",
  }));
  app.get(
    "/metrics",
    { schema: { tags: ["operations"], summary: "Prometheus metrics (no auth)" } },
    async (_request, reply) => {
      reply.header("content-type", metrics.registry.contentType);
      return metrics.exposition();
    },
  );
}
