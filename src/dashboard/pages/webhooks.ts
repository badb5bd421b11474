import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import type { Application } from "../../domain.ts";
import { DEFAULT_SECRET_GRACE_HOURS, WebhookError } from "../../webhooks/webhook-service.ts";
import { type DashboardContext, PREFIX } from "../context.ts";
import type { Flash } from "../flash.ts";
import { view } from "../render.ts";

type WebhookRequest = { Params: { id: string; endpoint?: string }; Body: { url?: string } };
type ShownSecret = Omit<Extract<Flash, { kind: "webhook-secret" }>, "kind" | "appId">;

const DELIVERIES_SHOWN = 50;

/**
 * /dashboard/applications/ID/webhooks: the application's endpoints (add, show or rotate a secret, remove), the
 * secret of its jobs' own webhookUrl, and the delivery log; the same service as `mixdown app webhook`.
 */
export function webhooksPage(dashboard: FastifyInstance, { runtime, flash }: DashboardContext): void {
  const { applications, webhooks } = runtime;
  const href = (app: Application) => `${PREFIX}/applications/${app.id}/webhooks`;

  const find = async (request: FastifyRequest<WebhookRequest>, reply: FastifyReply) => {
    const app = (await applications.list()).find((a) => a.id === request.params.id);
    if (!app) {
      reply.code(404);
      view(request, reply, "pages/error", { title: "Not found", message: "There is no such application." });
    }
    return app;
  };

  const page = async (request: FastifyRequest, reply: FastifyReply, app: Application, extra: object = {}) => {
    const endpoints = await webhooks.list(app.id);
    const deliveries = await webhooks.deliveries(app.id, { limit: DELIVERIES_SHOWN });
    const urls = new Map(endpoints.map((e) => [e.id, e.url]));
    const receiver = (endpointId: string | null) =>
      endpointId === null ? "the job's webhookUrl" : (urls.get(endpointId) ?? "a removed endpoint");
    return view(request, reply, "pages/webhooks", {
      title: `Webhooks of ${app.name}`,
      app,
      endpoints,
      deliveries: deliveries.map((d) => ({ ...d, receiver: receiver(d.endpointId) })),
      shown: DELIVERIES_SHOWN,
      ...extra,
    });
  };

  /**
   * Post/redirect/get for every secret shown: the POST puts it in the flash cookie and redirects to the secret's
   * page, which shows it once; a reload neither shows it again nor repeats the POST (a second endpoint, a rotation).
   */
  const showOnce = (request: FastifyRequest, reply: FastifyReply, app: Application, data: ShownSecret) => {
    flash.put(request, reply, { kind: "webhook-secret", appId: app.id, ...data });
    return reply.redirect(`${href(app)}/secret`, 303);
  };

  const notFound = (request: FastifyRequest, reply: FastifyReply, error: unknown) => {
    if (!(error instanceof WebhookError)) throw error;
    reply.code(404);
    return view(request, reply, "pages/error", { title: "Not found", message: error.message });
  };

  dashboard.get<WebhookRequest>("/applications/:id/webhooks", async (request, reply) => {
    const app = await find(request, reply);
    return app ? page(request, reply, app) : reply;
  });

  dashboard.post<WebhookRequest>("/applications/:id/webhooks", async (request, reply) => {
    const app = await find(request, reply);
    if (!app) return reply;
    try {
      const { endpoint, secret } = await webhooks.add(app.id, (request.body?.url ?? "").trim());
      return showOnce(request, reply, app, { endpoint: { id: endpoint.id, url: endpoint.url }, secret, added: true });
    } catch (error) {
      if (!(error instanceof WebhookError)) throw error;
      reply.code(400);
      return page(request, reply, app, { error: error.message, url: request.body?.url });
    }
  });

  dashboard.post<WebhookRequest>("/applications/:id/webhooks/job-secret", async (request, reply) => {
    const app = await find(request, reply);
    if (!app) return reply;
    return showOnce(request, reply, app, { secret: await webhooks.secret(app.id, undefined) });
  });

  dashboard.post<WebhookRequest>("/applications/:id/webhooks/:endpoint/secret", async (request, reply) => {
    const app = await find(request, reply);
    if (!app) return reply;
    const endpoint = (await webhooks.list(app.id)).find((e) => e.id === request.params.endpoint);
    if (!endpoint) return notFound(request, reply, new WebhookError("There is no such webhook endpoint."));
    const secret = await webhooks.secret(app.id, endpoint.id);
    return showOnce(request, reply, app, { endpoint: { id: endpoint.id, url: endpoint.url }, secret });
  });

  dashboard.get<WebhookRequest>("/applications/:id/webhooks/:endpoint/rotate-secret", async (request, reply) => {
    const app = await find(request, reply);
    if (!app) return reply;
    return view(request, reply, "pages/confirm", {
      title: "Rotate the signing secret?",
      message: `A new secret signs every delivery from now on, retries of earlier events included. For ${DEFAULT_SECRET_GRACE_HOURS} hours the old one also signs them (webhook-signature then carries both), so receivers can switch without missing a delivery.`,
      action: `${href(app)}/${request.params.endpoint}/rotate-secret`,
      confirm: "Rotate secret",
      back: href(app),
    });
  });

  dashboard.post<WebhookRequest>("/applications/:id/webhooks/:endpoint/rotate-secret", async (request, reply) => {
    const app = await find(request, reply);
    if (!app) return reply;
    const endpoint = (await webhooks.list(app.id)).find((e) => e.id === request.params.endpoint);
    try {
      const rotated = await webhooks.rotateSecret(app.id, request.params.endpoint, DEFAULT_SECRET_GRACE_HOURS);
      const shown = endpoint && { id: endpoint.id, url: endpoint.url };
      return showOnce(request, reply, app, { ...rotated, endpoint: shown, rotated: true });
    } catch (error) {
      return notFound(request, reply, error);
    }
  });

  // Where every secret is shown, once: after adding an endpoint, rotating or asking to see a secret.
  dashboard.get<WebhookRequest>("/applications/:id/webhooks/secret", async (request, reply) => {
    const app = await find(request, reply);
    if (!app) return reply;
    const shown = flash.take(request, reply, "webhook-secret", app.id);
    if (!shown) reply.code(410);
    return view(request, reply, "pages/webhook-secret", {
      title: shown ? "Signing secret" : "The secret is no longer shown",
      app,
      back: href(app),
      scripts: shown ? ["copy.js"] : [],
      ...shown,
      shown: Boolean(shown),
    });
  });

  dashboard.get<WebhookRequest>("/applications/:id/webhooks/:endpoint/remove", async (request, reply) => {
    const app = await find(request, reply);
    if (!app) return reply;
    return view(request, reply, "pages/confirm", {
      title: "Remove this webhook endpoint?",
      message: "It gets no more events, and its deliveries still pending are not sent. Its delivery log stays.",
      action: `${href(app)}/${request.params.endpoint}/remove`,
      confirm: "Remove endpoint",
      danger: true,
      back: href(app),
    });
  });

  dashboard.post<WebhookRequest>("/applications/:id/webhooks/:endpoint/remove", async (request, reply) => {
    const app = await find(request, reply);
    if (!app) return reply;
    try {
      await webhooks.remove(app.id, request.params.endpoint ?? "");
    } catch (error) {
      return notFound(request, reply, error);
    }
    return reply.redirect(href(app), 303);
  });
}
