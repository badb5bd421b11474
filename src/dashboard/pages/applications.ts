import type { FastifyInstance } from "fastify";
import type { Application } from "../../domain.ts";
import { labelled, shortId } from "../app-labels.ts";
import { type DashboardContext, PREFIX } from "../context.ts";
import { view } from "../render.ts";

export const MAX_APP_NAME = 200;

/** An application name, trimmed and with runs of spaces made one, or why it is refused. */
export function appName(raw: unknown): { name: string } | { error: string } {
  const name = String(raw ?? "")
    .trim()
    .replace(/\s+/g, " ");
  if (!name) return { error: "The name must not be empty." };
  if (name.length > MAX_APP_NAME) return { error: `The name must be at most ${MAX_APP_NAME} characters.` };
  return { name };
}

/** The applications already called so, as the warning lists them (date created, start of the id, revoked or not). */
export const namesakes = (apps: Application[]) => apps.map((app) => ({ ...app, shortId: shortId(app.id) }));

/** GET /dashboard/applications (the list) and POST (create, then off to the page that shows the key once). */
export function applicationsPage(dashboard: FastifyInstance, { runtime, flash }: DashboardContext): void {
  const { applications } = runtime;
  const list = async () => ({
    title: "Applications",
    apps: labelled(await applications.overview()),
    maxName: MAX_APP_NAME,
  });

  dashboard.get("/applications", async (request, reply) => view(request, reply, "pages/applications", await list()));

  dashboard.post<{ Body: { name?: string; duplicate?: string } }>("/applications", async (request, reply) => {
    const checked = appName(request.body?.name);
    if ("error" in checked) {
      reply.code(400);
      return view(request, reply, "pages/applications", { ...(await list()), error: checked.error });
    }
    // Two applications of one name look alike everywhere: create the second only when asked to.
    const taken = await applications.named(checked.name);
    if (taken.length > 0 && request.body?.duplicate !== "create") {
      reply.code(409);
      return view(request, reply, "pages/applications", {
        ...(await list()),
        name: checked.name,
        taken: namesakes(taken),
      });
    }
    const { app, apiKey } = await applications.create(checked.name);
    // Post/redirect/get: a reload of the key's page shows nothing new and creates nothing.
    flash.put(request, reply, { kind: "api-key", appId: app.id, apiKey, rotated: false });
    return reply.redirect(`${PREFIX}/applications/${app.id}/key`, 303);
  });
}
