import type { FastifyInstance } from "fastify";
import { createMetrics } from "../api/metrics.ts";
import { buildServer } from "../api/server.ts";
import { type Config, ConfigError } from "../config.ts";
import { announceSetupLink } from "../dashboard/setup-link.ts";
import { createRuntime } from "../runtime.ts";

const GC_INTERVAL_MS = 10 * 60 * 1000;

export const ROLES = ["all", "api", "worker"] as const;
export type Role = (typeof ROLES)[number];

/**
 * Starts this node: the API and upload server (role api), the workers (role worker), or both (all, the
 * default). Every node answers /healthz and /metrics on its port; a worker node serves nothing else.
 * Stops gracefully on SIGTERM/SIGINT.
 */
export async function serve(config: Config, role: Role = "all"): Promise<void> {
  const runtime = await createRuntime(config);
  const metrics = createMetrics(runtime.store, runtime.queue);
  const app = await buildServer(runtime, metrics, { api: role !== "worker" });
  await listen(app, config);
  if (role !== "worker") await announceSetupLink(runtime, app.log);
  if (role !== "api") runtime.startWorkers(app.log, metrics.observeJob);
  runtime.startWebhooks(app.log);

  const collect = () =>
    runtime.uploads
      .collectGarbage()
      .then((n) => n > 0 && app.log.info({ deleted: n }, "expired uploads deleted"))
      .catch((error) => app.log.error({ err: error }, "upload garbage collection failed"));
  const gcTimer = setInterval(collect, GC_INTERVAL_MS);
  gcTimer.unref();
  if (role === "worker") clearInterval(gcTimer);
  else void collect();

  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    app.log.info({ signal }, "shutting down: no new requests; running jobs finish or return to the queue");
    clearInterval(gcTimer);
    try {
      await app.close();
      await runtime.close();
      app.log.info("stopped");
      process.exit(0);
    } catch (error) {
      app.log.error({ err: error }, "shutdown failed");
      process.exit(1);
    }
  };
  process.on("SIGTERM", () => void stop("SIGTERM"));
  process.on("SIGINT", () => void stop("SIGINT"));

  app.log.info(
    { role, address: app.listeningOrigin, publicUrl: config.publicUrl, workers: role === "api" ? 0 : config.workers },
    role === "worker" ? "Mixdown worker is listening (/healthz and /metrics only)" : "Mixdown is listening",
  );
}

/** Listens on PORT; a port in use is a configuration error (each node on one machine needs its own). */
async function listen(app: FastifyInstance, config: Config): Promise<void> {
  try {
    await app.listen({ port: config.port, host: config.host });
  } catch (error) {
    if ((error as { code?: string }).code !== "EADDRINUSE") throw error;
    throw new ConfigError(
      `PORT ${config.port} is already in use on ${config.host}: set PORT to a free port (every node, workers too, answers /healthz and /metrics on its own port)`,
    );
  }
}
