import type { FastifyInstance } from "fastify";
import type { DashboardContext } from "../context.ts";
import { view } from "../render.ts";

export const MAX_APP_NAME = 200;

/** A trimmed application name, or why it is refused. */
export function appName(raw: unknown): { name: string } | { error: string } {
  const name = String(raw ?? "").trim();
  if (!name) return { error: "The name must not be empty." };
  if (name.length > MAX_APP_NAME) return { error: `The name must be at most ${MAX_APP_NAME} characters.` };
  return { name };
}

/** GET /dashboard/applications (the list) and POST (create: the key is shown once). */
export function applicationsPage(dashboard: FastifyInstance, { runtime }: DashboardContext): void {
  const { applications } = runtime;
  const list = async () => ({ title: "Applications", apps: await applications.overview(), maxName: MAX_APP_NAME });

  dashboard.get("/applications", async (request, reply) => view(request, reply, "pages/applications", await list()));

  dashboard.post<{ Body: { name?: string } }>("/applications", async (request, reply) => {
    const checked = appName(request.body?.name);
    if ("error" in checked) {
      reply.code(400);
      return view(request, reply, "pages/applications", { ...(await list()), error: checked.error });
    }
    const { app, apiKey } = await applications.create(checked.name);
    return view(request, reply, "pages/new-key", {
      title: "Application created",
      app,
      apiKey,
      publicUrl: runtime.config.publicUrl,
      scripts: ["copy.js"],
    });
  });
}
