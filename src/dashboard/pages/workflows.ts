import type { FastifyInstance } from "fastify";
import type { Config } from "../../config.ts";
import type { DashboardContext } from "../context.ts";
import { view } from "../render.ts";

/** Where custom workflows are kept, and whether other nodes can see them, in the operator's words. */
export function customWorkflowsNote(config: Config): { dir: string; distributed: boolean } {
  return { dir: config.workflowsDir, distributed: config.databaseUrl !== undefined };
}

/** GET /dashboard/workflows: built-in and custom workflows, each runnable or not with the reason. */
export function workflowsPage(dashboard: FastifyInstance, { runtime }: DashboardContext): void {
  dashboard.get("/workflows", async (request, reply) => {
    const workflows = await runtime.workflows.catalogue();
    return view(request, reply, "pages/workflows", {
      title: "Workflows",
      builtIns: workflows.filter((wf) => wf.builtIn),
      custom: workflows.filter((wf) => !wf.builtIn),
      storage: customWorkflowsNote(runtime.config),
      styles: ["forms.css"],
    });
  });
}
