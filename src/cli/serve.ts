import type { FastifyInstance } from "fastify";
import { createMetrics } from "../api/metrics.ts";
import { buildServer } from "../api/server.ts";
import { type Config, ConfigError } from "../config.ts";
import { announceSetupLink, tellTerminal } from "../dashboard/setup-link.ts";
import { createRuntime } from "../runtime.ts";

const SWEEP_INTERVAL_MS = 10 * 60 * 1000;

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

  // Expired uploads and (MIXDOWN_JOB_RETENTION_DAYS) old finished jobs, from API nodes, one at a time.
  const stopSweeping = role === "worker" ? () => undefined : runtime.startRetention(app.log, SWEEP_INTERVAL_MS);

  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    app.log.info({ signal }, "shutting down: no new requests; running jobs finish or return to the queue");
    stopSweeping();
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
  if (role !== "worker")
    tellTerminal(
      runtime,
      `Mixdown is running at ${config.publicUrl}: the API under /v1, the dashboard at /dashboard, API docs at /docs. Stop it with Ctrl-C.\n`,
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
