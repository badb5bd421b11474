import { PassThrough } from "node:stream";
import type { FastifyInstance } from "fastify";
import type { JobState } from "../../domain.ts";
import { errorResponses, jobIdParams } from "../schemas.ts";
import type { ApiContext } from "./context.ts";
import { jobId } from "./jobs.ts";

/** At most this many events in any window of WINDOW_MS per stream: the latest state waits for the next slot. */
const MAX_EVENTS = 4;
const WINDOW_MS = 1000;
/** A comment line this often keeps proxies from closing a quiet stream. */
const KEEPALIVE_MS = 15_000;

const isTerminal = (state: JobState) => state.status === "SUCCEEDED" || state.status === "FAILED";

/** Last-Event-ID: the revision the client saw last (0 when absent or not a revision). */
function lastEventId(header: string | string[] | undefined): number {
  const value = Array.isArray(header) ? header[0] : header;
  return value && /^\d{1,15}$/.test(value.trim()) ? Number(value) : 0;
}

/**
 * One client's events of one job: states newer than the last one sent, `event: status` when the status changed
 * and `event: progress` otherwise, each numbered by the job's revision; ended after the terminal status.
 */
class JobEventStream {
  readonly body = new PassThrough();
  private readonly sentAt: number[] = [];
  private revision: number;
  private status: string | undefined;
  private pending: JobState | undefined;
  private timer: NodeJS.Timeout | undefined;

  constructor(revision: number) {
    this.revision = revision;
  }

  /** A state to send: dropped if not newer than what was sent or is waiting; else sent when the rate allows. */
  offer(state: JobState): void {
    if (this.body.writableEnded || state.revision <= (this.pending?.revision ?? this.revision)) return;
    this.pending = state;
    this.flush();
  }

  /** Nothing newer than what the client saw and the job has ended: there is nothing to stream. */
  endIfOver(state: JobState): void {
    if (isTerminal(state) && state.revision <= this.revision && !this.pending) this.end();
  }

  ping(): void {
    if (!this.body.writableEnded) this.body.write(": keep-alive\n\n");
  }

  end(): void {
    clearTimeout(this.timer);
    if (!this.body.writableEnded) this.body.end();
  }

  private flush(): void {
    const state = this.pending;
    if (this.timer || !state) return;
    const now = performance.now();
    while ((this.sentAt[0] ?? now) <= now - WINDOW_MS) this.sentAt.shift();
    if (this.sentAt.length >= MAX_EVENTS) {
      const wait = (this.sentAt[0] as number) + WINDOW_MS - now;
      this.timer = setTimeout(() => {
        this.timer = undefined;
        this.flush();
      }, wait);
      return;
    }
    this.pending = undefined;
    this.sentAt.push(now);
    const event = state.status === this.status ? "progress" : "status";
    this.status = state.status;
    this.revision = state.revision;
    const data = { id: state.id, status: state.status, progress: state.progress, step: state.step };
    this.body.write(`id: ${state.revision}\nevent: ${event}\ndata: ${JSON.stringify(data)}\n\n`);
    if (isTerminal(state)) this.end();
  }
}

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
          ...errorResponses(400, 401, 404),
        },
      },
    },
    async (request, reply) => {
      const id = jobId(request.params);
      const appId = request.application.id;
      const stream = new JobEventStream(lastEventId(request.headers["last-event-id"]));
      // Watching before reading: a change made meanwhile is not lost (older or repeated states are dropped).
      const unwatch = jobStates.watch(appId, id, (state) => stream.offer(state));
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
