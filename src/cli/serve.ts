import { createMetrics } from "../api/metrics.ts";
import { buildServer } from "../api/server.ts";
import type { Config } from "../config.ts";
import { createRuntime } from "../runtime.ts";

const GC_INTERVAL_MS = 10 * 60 * 1000;

export const ROLES = ["all", "api", "worker"] as const;
export type Role = (typeof ROLES)[number];

/**
 * Starts this node: the API and upload server (role api), the workers (role worker), or both (all, the
 * default). Stops gracefully on SIGTERM/SIGINT.
 */
export async function serve(config: Config, role: Role = "all"): Promise<void> {
  const runtime = await createRuntime(config);
  const metrics = createMetrics(runtime.store, runtime.queue);
  const app = await buildServer(runtime, metrics);
  if (role !== "api") runtime.startWorkers(app.log, metrics.observeJob);

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

  if (role === "worker") {
    await app.ready();
    app.log.info({ role, workers: config.workers }, "Mixdown worker started");
    return;
  }
  const address = await app.listen({ port: config.port, host: config.host });
  app.log.info(
    { role, address, publicUrl: config.publicUrl, workers: role === "api" ? 0 : config.workers },
    "Mixdown is listening",
  );
}
