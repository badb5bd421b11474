import dns from "node:dns/promises";
import { uuidv7 } from "../ids.ts";
import { isPublicAddress } from "../jobs/download-url.ts";
import { outboundUrlProblem } from "../jobs/outbound-request.ts";
import type { MetadataStore } from "../store/metadata-store.ts";
import type { WebhookDelivery, WebhookEndpoint, WebhookStore } from "../store/webhook-store.ts";
import { newWebhookSecret } from "./signature.ts";

/** A mistake in a webhook command (unknown application or endpoint, unusable URL): the message says which. */
export class WebhookError extends Error {}

/** How long a rotated-out secret keeps signing by default: receivers switch to the new one meanwhile. */
export const DEFAULT_SECRET_GRACE_HOURS = 24;

/** An application's webhook endpoints, their secrets and delivery log (the CLI's `app webhook …`). */
export class WebhookService {
  private readonly webhooks: WebhookStore;
  private readonly store: MetadataStore;
  private readonly allowPrivate: boolean;

  constructor(webhooks: WebhookStore, store: MetadataStore, options: { allowPrivate: boolean }) {
    this.webhooks = webhooks;
    this.store = store;
    this.allowPrivate = options.allowPrivate;
  }

  private async requireApp(appId: string): Promise<void> {
    const apps = await this.store.listApplications();
    if (!apps.some((app) => app.id === appId)) throw new WebhookError(`no application with id ${appId}`);
  }

  /** Checks the URL as deliveries will, its host's addresses included (a name resolving to 10.x is refused). */
  private async checkUrl(raw: string): Promise<string> {
    const problem = outboundUrlProblem(raw, this.allowPrivate);
    if (problem) throw new WebhookError(`the webhook URL ${problem}`);
    const host = new URL(raw).hostname.replace(/^\[|\]$/g, "");
    if (this.allowPrivate) return raw;
    const addresses = await dns.lookup(host, { all: true }).catch(() => {
      throw new WebhookError(`the webhook URL's host ${host} could not be resolved`);
    });
    const internal = addresses.find((a) => !isPublicAddress(a.address));
    if (internal) {
      throw new WebhookError(
        `the webhook URL's host ${host} resolves to ${internal.address}, an internal address (MIXDOWN_ALLOW_PRIVATE_URLS is off)`,
      );
    }
    return raw;
  }

  async add(appId: string, url: string): Promise<{ endpoint: WebhookEndpoint; secret: string }> {
    await this.requireApp(appId);
    await this.checkUrl(url);
    const secret = newWebhookSecret();
    const id = uuidv7();
    const createdAt = new Date().toISOString();
    await this.webhooks.addEndpoint({ id, appId, url, secret, createdAt });
    const endpoint = { id, appId, url, createdAt, disabledAt: null, disabledReason: null, previousSecretUntil: null };
    return { endpoint, secret };
  }

  async list(appId: string): Promise<WebhookEndpoint[]> {
    await this.requireApp(appId);
    return this.webhooks.listEndpoints(appId);
  }

  async remove(appId: string, endpointId: string): Promise<void> {
    await this.requireApp(appId);
    if (!(await this.webhooks.removeEndpoint(appId, endpointId, new Date().toISOString())))
      throw new WebhookError(`application ${appId} has no webhook endpoint ${endpointId}`);
  }

  /**
   * A new secret for an endpoint, or, without one, for the application's jobs' own webhookUrl. Deliveries sent from
   * now on (retries of earlier events included) are signed with it and, for `graceHours`, also with the old one.
   */
  async rotateSecret(
    appId: string,
    endpointId: string | undefined,
    graceHours: number,
  ): Promise<{ secret: string; previousValidUntil: string | null }> {
    await this.requireApp(appId);
    const secret = newWebhookSecret();
    const until = Date.now() + graceHours * 3600_000;
    if (endpointId === undefined) await this.webhooks.rotateAppSecret(appId, secret, until);
    else if (!(await this.webhooks.rotateEndpointSecret(appId, endpointId, secret, until)))
      throw new WebhookError(`application ${appId} has no webhook endpoint ${endpointId}`);
    return { secret, previousValidUntil: graceHours > 0 ? new Date(until).toISOString() : null };
  }

  /** An endpoint's secret, or the one of the application's jobs' own webhookUrl (created if there is none yet). */
  async secret(appId: string, endpointId: string | undefined): Promise<string> {
    await this.requireApp(appId);
    if (endpointId === undefined) return this.webhooks.appSecret(appId, newWebhookSecret);
    const secret = await this.webhooks.endpointSecret(appId, endpointId);
    if (!secret) throw new WebhookError(`application ${appId} has no webhook endpoint ${endpointId}`);
    return secret;
  }

  async deliveries(
    appId: string,
    filter: { endpointId?: string; jobId?: string; limit: number },
  ): Promise<WebhookDelivery[]> {
    await this.requireApp(appId);
    return this.webhooks.listDeliveries(appId, filter);
  }
}
