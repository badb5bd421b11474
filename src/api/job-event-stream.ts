import { PassThrough } from "node:stream";
import type { JobState } from "../domain.ts";

/** At most this many events in any window of WINDOW_MS per stream: the latest state waits for the next slot. */
const MAX_EVENTS = 4;
const WINDOW_MS = 1000;
const isTerminal = (state: JobState) => state.status === "SUCCEEDED" || state.status === "FAILED";

/** Last-Event-ID: the revision the client saw last; -1 (nothing seen: a new job's revision 0 is sent) otherwise. */
export function lastEventId(header: string | string[] | undefined): number {
  const value = Array.isArray(header) ? header[0] : header;
  return value && /^\d{1,15}$/.test(value.trim()) ? Number(value) : -1;
}

/**
 * One client's events of one job: states newer than the last one sent, `event: status` when the status changed
 * and `event: progress` otherwise, each numbered by the job's revision; ended after the terminal status.
 */
export class JobEventStream {
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
