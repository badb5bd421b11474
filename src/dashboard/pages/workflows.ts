import type { FastifyInstance } from "fastify";
import type { Config } from "../../config.ts";
import type { DashboardContext } from "../context.ts";
import { view } from "../render.ts";

/** This node's directory of definition files to save (custom workflows themselves are in the metadata store). */
export function customWorkflowsNote(config: Config): { dir: string } {
  return { dir: config.workflowsDir };
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
