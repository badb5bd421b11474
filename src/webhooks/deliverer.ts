import { randomUUID } from "node:crypto";
import os from "node:os";
import type { FastifyBaseLogger } from "fastify";
import { describeOutboundError, outboundRequest, PrivateAddressError } from "../jobs/outbound-request.ts";
import type { AttemptOutcome, WebhookDelivery, WebhookStore } from "../store/webhook-store.ts";
import { newWebhookSecret, webhookHeaders } from "./signature.ts";

/** A receiver must answer 2xx within this long for a delivery to count. */
export const DELIVERY_TIMEOUT_MS = 10_000;
/** A node that took a delivery and went silent (crashed) loses it to another node after this long. */
const LEASE_MS = 3 * DELIVERY_TIMEOUT_MS;
/** The fallback when no event wakes the deliverer (another process's SQLite writes, a lost Postgres LISTEN). */
const POLL_MS = 1000;
const CONCURRENCY = 16;

export interface DelivererOptions {
  /** Seconds between attempts; one retry per entry. */
  retrySchedule: number[];
  allowPrivate: boolean;
  /** The job as GET /job/:id shows it now (fresh result URLs), or undefined once it has been deleted. */
  renderJob(appId: string, jobId: string): Promise<object | undefined>;
  log: FastifyBaseLogger;
}

/** ±20% on every delay, so that receivers coming back from an outage are not hit by every retry at once. */
const jitter = (seconds: number) => Math.round(seconds * 1000 * (0.8 + 0.4 * Math.random()));

/**
 * Sends the outbox's due deliveries, signed per Standard Webhooks, retrying on the configured schedule. Every node
 * runs one; each delivery is leased by one node at a time, so at least one attempt is made per due time, and a
 * node that dies mid-delivery leaves it to another after the lease.
 */
export class WebhookDeliverer {
  readonly owner = `${os.hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`;
  private readonly store: WebhookStore;
  private readonly options: DelivererOptions;
  private readonly inflight = new Set<Promise<void>>();
  private wakeups = 0;
  private wakeSleeper: (() => void) | undefined;
  private stopped = false;
  private loopDone: Promise<void> = Promise.resolve();
  private unwatch: () => Promise<void> = async () => undefined;
  private readonly retryTimers = new Set<NodeJS.Timeout>();

  constructor(store: WebhookStore, options: DelivererOptions) {
    this.store = store;
    this.options = options;
  }

  start(): void {
    this.unwatch = this.store.watch(
      () => this.wake(),
      (error) => this.options.log.warn({ err: error }, `not told of job events; polling every ${POLL_MS} ms meanwhile`),
    );
    this.loopDone = this.loop();
  }

  /** Stops taking deliveries and waits for those under way (each ends within the 10 s timeout). */
  async stop(): Promise<void> {
    this.stopped = true;
    for (const timer of this.retryTimers) clearTimeout(timer);
    this.wake();
    await this.loopDone;
    await Promise.all(this.inflight);
    await this.unwatch();
  }

  private wake(): void {
    this.wakeups++;
    this.wakeSleeper?.();
  }

  private async loop(): Promise<void> {
    while (!this.stopped) {
      const wakeups = this.wakeups;
      const free = CONCURRENCY - this.inflight.size;
      let claimed: WebhookDelivery[] = [];
      if (free > 0) {
        try {
          claimed = await this.store.claimDue(this.owner, Date.now(), LEASE_MS, free);
        } catch (error) {
          this.options.log.error({ err: error }, "taking due webhook deliveries failed");
        }
      }
      for (const delivery of claimed) {
        const sending: Promise<void> = this.deliver(delivery)
          .catch((error) => this.options.log.error({ err: error, delivery: delivery.id }, "webhook delivery failed"))
          .finally(() => {
            this.inflight.delete(sending);
            this.wake();
          });
        this.inflight.add(sending);
      }
      if (claimed.length === free && free > 0) continue; // there may be more due
      if (wakeups === this.wakeups) await this.sleep(POLL_MS);
    }
  }

  private sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(() => done(), ms);
      const done = () => {
        clearTimeout(timer);
        this.wakeSleeper = undefined;
        resolve();
      };
      this.wakeSleeper = done;
    });
  }

  /** Wakes this node when a retry it scheduled falls due (other nodes find it by polling). */
  private wakeAt(at: number): void {
    const timer = setTimeout(
      () => {
        this.retryTimers.delete(timer);
        this.wake();
      },
      Math.max(0, at - Date.now()) + 5, // timers may fire a millisecond before Date.now() reaches `at`
    );
    timer.unref();
    this.retryTimers.add(timer);
  }

  private async deliver(delivery: WebhookDelivery): Promise<void> {
    const attempts = delivery.attempts + 1;
    const at = new Date();
    const outcome = (fields: Partial<AttemptOutcome>): AttemptOutcome => ({
      status: "FAILED",
      attempts,
      nextAttemptAt: delivery.nextAttemptAt,
      at: at.toISOString(),
      statusCode: null,
      error: null,
      ...fields,
    });
    const job = await this.options.renderJob(delivery.appId, delivery.jobId);
    if (!job) {
      await this.record(delivery, outcome({ attempts: delivery.attempts, error: "not sent: the job was deleted" }));
      return;
    }
    let secrets = await this.store.signingSecrets(delivery.appId, delivery.endpointId, at.getTime());
    if (secrets.length === 0 && delivery.endpointId === null) {
      // A job's own webhookUrl, before anyone asked for the application's secret: it is made now.
      secrets = [await this.store.appSecret(delivery.appId, newWebhookSecret)];
    }
    if (secrets.length === 0) {
      await this.record(
        delivery,
        outcome({ attempts: delivery.attempts, error: "not sent: the endpoint was removed" }),
      );
      return;
    }
    const body = JSON.stringify({ type: delivery.eventType, timestamp: delivery.createdAt, data: job });
    let statusCode: number | null = null;
    let error: string | null = null;
    let permanent = false;
    try {
      statusCode = await outboundRequest(new URL(delivery.url), {
        method: "POST",
        headers: {
          "content-type": "application/json",
          "user-agent": "Mixdown-Webhooks/1",
          ...webhookHeaders(secrets, delivery.id, Math.floor(Date.now() / 1000), body),
        },
        body,
        allowPrivate: this.options.allowPrivate,
        idleTimeoutMs: DELIVERY_TIMEOUT_MS,
        signal: AbortSignal.timeout(DELIVERY_TIMEOUT_MS),
      });
    } catch (thrown) {
      error = describeOutboundError(thrown);
      permanent = thrown instanceof PrivateAddressError;
    }
    if (statusCode !== null && statusCode >= 200 && statusCode < 300) {
      await this.record(delivery, outcome({ status: "DELIVERED", statusCode }));
      return;
    }
    if (statusCode === 410) {
      await this.record(
        delivery,
        outcome({ statusCode, error: "410 Gone: the receiver asked for no more deliveries" }),
      );
      if (delivery.endpointId !== null)
        await this.store.disableEndpoint(delivery.endpointId, `its receiver answered 410 Gone`, at.toISOString());
      return;
    }
    error ??= `the receiver answered HTTP ${statusCode}`;
    const delay = this.options.retrySchedule[attempts - 1];
    if (permanent || delay === undefined) {
      await this.record(delivery, outcome({ statusCode, error }));
      return;
    }
    const nextAttemptAt = Date.now() + jitter(delay);
    await this.record(delivery, outcome({ status: "PENDING", statusCode, error, nextAttemptAt }));
    this.wakeAt(nextAttemptAt);
  }

  private async record(delivery: WebhookDelivery, outcome: AttemptOutcome): Promise<void> {
    await this.store.recordAttempt(delivery.id, this.owner, outcome);
    const fields = { delivery: delivery.id, url: delivery.url, status: outcome.status, code: outcome.statusCode };
    if (outcome.status === "DELIVERED") this.options.log.debug(fields, "webhook delivered");
    else this.options.log.warn({ ...fields, reason: outcome.error }, "webhook not delivered");
  }
}
