import type { FastifyInstance } from "fastify";
import type { JobState } from "../../domain.ts";
import { JobEventStream, lastEventId } from "../job-event-stream.ts";
import { errorResponses, jobIdParams } from "../schemas.ts";
import type { ApiContext } from "./context.ts";
import { jobId } from "./jobs.ts";

/** A comment line this often keeps proxies from closing a quiet stream. */
const KEEPALIVE_MS = 15_000;
/** How long an EventSource waits before reconnecting (with Last-Event-ID) after the stream broke. */
const RECONNECT_MS = 1000;

/** GET /job/:id/events: Server-Sent Events of the job's status and progress (a Mixdown extension). */
export function jobEventRoutes(app: FastifyInstance, { runtime }: ApiContext): void {
  const { jobs, jobStates } = runtime;
  const streams = new Set<JobEventStream>();
  const keepalive = setInterval(() => {
    for (const stream of streams) stream.ping();
  }, KEEPALIVE_MS).unref();
  // Open streams would hold the server open at shutdown: they end first (clients resume with Last-Event-ID).
  app.addHook("preClose", (done) => {
    clearInterval(keepalive);
    for (const stream of streams) stream.end();
    done();
  });

  app.get(
    "/job/:id/events",
    {
      schema: {
        tags: ["jobs"],
        summary: "Follow a job's status and progress (Server-Sent Events)",
        description:
          "Mixdown extension. A text/event-stream: `event: status` when the status changes, `event: progress` when only the progress does (at most 4 events a second), each `data` being `{id, status, progress, step}` and each `id` the job's revision. The first event is the job's current state; the stream ends after SUCCEEDED or FAILED. Reconnecting with Last-Event-ID sends the current state only if it changed since that event.",
        params: jobIdParams,
        produces: ["text/event-stream"],
        response: {
          200: { description: "The event stream", content: { "text/event-stream": { schema: { type: "string" } } } },
          ...errorResponses("INVALID_JOB_ID", "UNAUTHORIZED", "JOB_NOT_FOUND"),
        },
      },
    },
    async (request, reply) => {
      const id = jobId(request.params);
      const appId = request.application.id;
      const stream = new JobEventStream(lastEventId(request.headers["last-event-id"]));
      // Watching before reading: a change made meanwhile is not lost (older or repeated states are dropped).
      const unwatch = jobStates.watch(appId, id, (state) => (state === "gone" ? stream.end() : stream.offer(state)));
      let current: JobState;
      try {
        current = await jobs.state(appId, id);
      } catch (error) {
        unwatch();
        throw error;
      }
      streams.add(stream);
      stream.body.on("close", () => {
        unwatch();
        streams.delete(stream);
      });
      reply.raw.on("close", () => stream.end());
      // The reconnection delay for EventSource clients; written first, it also sends the headers at once.
      stream.body.write(`retry: ${RECONNECT_MS}\n\n`);
      stream.offer(current);
      stream.endIfOver(current);
      return reply
        .header("content-type", "text/event-stream; charset=utf-8")
        .header("cache-control", "no-cache")
        .header("x-accel-buffering", "no")
        .send(stream.body);
    },
  );
}
