import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import type { Application } from "../../domain.ts";
import { type DashboardContext, PREFIX } from "../context.ts";
import { view } from "../render.ts";
import { appName, MAX_APP_NAME, namesakes } from "./applications.ts";

type AppRequest = { Params: { id: string }; Body: { name?: string; duplicate?: string } };

/** /dashboard/applications/ID: rename, rotate the key, revoke (each change confirmed; a new key shown once). */
export function applicationPage(dashboard: FastifyInstance, { runtime, flash }: DashboardContext): void {
  const { applications } = runtime;
  const href = (app: Application) => `${PREFIX}/applications/${app.id}`;

  /** The application, or a 404 page already sent. */
  const find = async (request: FastifyRequest<AppRequest>, reply: FastifyReply) => {
    const app = (await applications.list()).find((a) => a.id === request.params.id);
    if (!app) {
      reply.code(404);
      view(request, reply, "pages/error", { title: "Not found", message: "There is no such application." });
    }
    return app;
  };

  dashboard.get<AppRequest>("/applications/:id", async (request, reply) => {
    const app = await find(request, reply);
    return app ? view(request, reply, "pages/application", { title: app.name, app, maxName: MAX_APP_NAME }) : reply;
  });

  dashboard.post<AppRequest>("/applications/:id/name", async (request, reply) => {
    const app = await find(request, reply);
    if (!app) return reply;
    const checked = appName(request.body?.name);
    const again = { title: app.name, app, maxName: MAX_APP_NAME };
    if ("error" in checked) {
      reply.code(400);
      return view(request, reply, "pages/application", { ...again, error: checked.error });
    }
    const taken = await applications.named(checked.name, app.id);
    if (taken.length > 0 && request.body?.duplicate !== "rename") {
      reply.code(409);
      return view(request, reply, "pages/application", { ...again, name: checked.name, taken: namesakes(taken) });
    }
    await applications.rename(app.id, checked.name);
    return reply.redirect(href(app), 303);
  });

  dashboard.get<AppRequest>("/applications/:id/rotate-key", async (request, reply) => {
    const app = await find(request, reply);
    if (!app) return reply;
    return view(request, reply, "pages/confirm", {
      title: `Rotate the key of ${app.name}?`,
      message: "A new key is issued and shown once. The current key stops working at once, on every node.",
      action: `${href(app)}/rotate-key`,
      confirm: "Rotate key",
      back: href(app),
    });
  });

  dashboard.post<AppRequest>("/applications/:id/rotate-key", async (request, reply) => {
    const app = await find(request, reply);
    if (!app) return reply;
    const apiKey = await applications.rotateKey(app.id);
    if (!apiKey) {
      reply.code(409);
      return view(request, reply, "pages/error", { title: "Revoked", message: "A revoked application has no key." });
    }
    flash.put(request, reply, { kind: "api-key", appId: app.id, apiKey, rotated: true });
    return reply.redirect(`${href(app)}/key`, 303);
  });

  // Where creating an application or rotating its key leads: the key, once. A reload finds it gone.
  dashboard.get<AppRequest>("/applications/:id/key", async (request, reply) => {
    const app = await find(request, reply);
    if (!app) return reply;
    const shown = flash.take(request, reply, "api-key", app.id);
    if (!shown) reply.code(410);
    return view(request, reply, "pages/new-key", {
      title: shown ? (shown.rotated ? "New key issued" : "Application created") : "The key is no longer shown",
      app,
      apiKey: shown?.apiKey,
      rotated: shown?.rotated,
      publicUrl: runtime.config.publicUrl,
      scripts: shown ? ["copy.js"] : [],
    });
  });

  dashboard.get<AppRequest>("/applications/:id/revoke", async (request, reply) => {
    const app = await find(request, reply);
    if (!app) return reply;
    return view(request, reply, "pages/confirm", {
      title: `Revoke ${app.name}?`,
      message:
        "Its key stops working at once, on every node, and cannot be restored. Its jobs stay. This cannot be undone.",
      action: `${href(app)}/revoke`,
      confirm: "Revoke application",
      danger: true,
      back: href(app),
    });
  });

  dashboard.post<AppRequest>("/applications/:id/revoke", async (request, reply) => {
    const app = await find(request, reply);
    if (!app) return reply;
    await applications.revoke(app.id);
    return reply.redirect(`${PREFIX}/applications`, 303);
  });
}
