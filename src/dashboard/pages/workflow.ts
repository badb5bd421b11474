import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { ApiError } from "../../errors.ts";
import type { DashboardContext } from "../context.ts";
import { impliedDefaults } from "../param-defaults.ts";
import { view } from "../render.ts";
import { layoutGraph } from "../workflow-graph.ts";

type Schema = Record<string, unknown>;
export type SlugParams = { Params: { owner: string; name?: string } };

/** The slug of a /…/OWNER/NAME or /…/NAME route (slugs have at most one "/"). */
export const slugOf = (params: SlugParams["Params"]) => (params.name ? `${params.owner}/${params.name}` : params.owner);

/** The result of `find`, or, when it finds no such workflow, undefined with the 404 page sent. */
export async function orNotFound<T>(
  request: FastifyRequest,
  reply: FastifyReply,
  find: () => T | Promise<T>,
): Promise<T | undefined> {
  try {
    return await find();
  } catch (error) {
    if (!(error instanceof ApiError) || error.code !== "WORKFLOW_NOT_FOUND") throw error;
    reply.code(404);
    view(request, reply, "pages/error", { title: "Not found", message: error.message });
    return undefined;
  }
}

/**
 * A param of the input schema as a row: its type (or choices), whether required, default and limits. The default is
 * the schema's own, else the one of the module param it feeds (`implied`), which the engine fills in.
 */
function paramRows(inputSchema: Schema, implied: Map<string, unknown>) {
  const properties = (inputSchema.properties ?? {}) as Record<string, Schema>;
  const required = new Set(Array.isArray(inputSchema.required) ? inputSchema.required.map(String) : []);
  return Object.entries(properties).map(([name, schema]) => {
    const limits = [
      typeof schema.minimum === "number" ? `≥ ${schema.minimum}` : "",
      typeof schema.maximum === "number" ? `≤ ${schema.maximum}` : "",
      typeof schema.pattern === "string" ? `matches ${schema.pattern}` : "",
      typeof schema.format === "string" ? `format ${schema.format}` : "",
    ].filter(Boolean);
    return {
      name,
      type: Array.isArray(schema.enum)
        ? `one of ${schema.enum.map((v) => JSON.stringify(v)).join(", ")}`
        : [schema.type].flat().filter(Boolean).join(" or ") || "any",
      required: required.has(name),
      default: JSON.stringify(schema.default ?? implied.get(name)) ?? "",
      limits: limits.join(", "),
      description: typeof schema.description === "string" ? schema.description : "",
    };
  });
}

/** GET /dashboard/workflows/SLUG: description, params, outputs and the steps drawn as a graph. */
export function workflowPage(dashboard: FastifyInstance, { runtime }: DashboardContext): void {
  const show = async (request: FastifyRequest<SlugParams>, reply: FastifyReply) => {
    const slug = slugOf(request.params);
    const wf = await orNotFound(request, reply, () => runtime.workflows.describe(slug));
    if (!wf) return reply;
    const definition = runtime.workflows.registry.get(slug)?.definition;
    return view(request, reply, "pages/workflow", {
      title: wf.name,
      wf,
      params: paramRows(
        wf.inputSchema,
        definition ? impliedDefaults(definition, runtime.workflows.registry.modules) : new Map(),
      ),
      outputs: Object.entries(wf.outputs),
      graph: definition ? layoutGraph(definition) : undefined,
      styles: ["forms.css"],
    });
  };
  dashboard.get<SlugParams>("/workflows/:owner", show);
  dashboard.get<SlugParams>("/workflows/:owner/:name", show);
}
