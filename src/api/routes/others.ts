import type { FastifyInstance } from "fastify";
import { paginationLinks, renderWorkflow } from "../render.ts";
import { errorResponses, listWorkflowsQuery } from "../schemas.ts";
import type { ApiContext } from "./context.ts";

/** GET /upload, /workflow, /application. */
export function otherRoutes(app: FastifyInstance, { runtime }: ApiContext): void {
  const { uploads, workflows, config } = runtime;

  app.get(
    "/upload",
    {
      schema: {
        tags: ["uploads"],
        summary: "Get a temporary upload URL (PUT the file there) and its download URL",
        response: {
          200: {
            type: "object",
            description: "The upload URL (PUT the file there, once) and the URL to give jobs",
            required: ["uploadUrl", "downloadUrl"],
            properties: { uploadUrl: { type: "string" }, downloadUrl: { type: "string" } },
          },
          ...errorResponses("UNAUTHORIZED"),
        },
      },
    },
    (request) => uploads.createPair(request.application.id),
  );

  app.get(
    "/workflow",
    {
      schema: {
        tags: ["workflows"],
        summary: "List workflows",
        querystring: listWorkflowsQuery,
        response: {
          200: {
            type: "object",
            description: "The page of workflows",
            required: ["workflows"],
            properties: { workflows: { type: "array", items: { $ref: "Workflow#" } } },
          },
          ...errorResponses("INVALID_REQUEST", "UNAUTHORIZED"),
        },
      },
    },
    async (request, reply) => {
      const { page, size } = request.query as { page: number; size: number };
      const result = await workflows.list(page, size);
      const url = new URL(request.url, config.publicUrl);
      reply.header("x-total-count", result.total);
      reply.header(
        "link",
        paginationLinks(`${config.publicUrl}${url.pathname}`, url.searchParams, page, size, result.total),
      );
      return { workflows: result.items.map(renderWorkflow) };
    },
  );

  app.get(
    "/workflow/*",
    {
      schema: {
        tags: ["workflows"],
        summary: "One workflow with its input schema and outputs (Mixdown extension)",
        description:
          'The path ends with the slug, e.g. /v1/workflow/mixdown/convert. `runnable` is false, with the reasons in `errors` or `unavailable`, when jobs cannot run on it. A step whose module has a choice of engines says which one would run here with the workflow\'s own params (e.g. `"engine": "pocketsphinx"` on the transcribe step).',
        response: {
          200: { type: "object", additionalProperties: true, description: "The workflow" },
          ...errorResponses("UNAUTHORIZED", "WORKFLOW_NOT_FOUND"),
        },
      },
    },
    async (request) => workflows.describe((request.params as { "*": string })["*"]),
  );

  app.get(
    "/application",
    {
      schema: {
        tags: ["applications"],
        summary: "The application of the API key in use",
        response: {
          200: {
            type: "object",
            description: "The application",
            required: ["id", "name"],
            properties: { id: { type: "string" }, name: { type: "string" } },
          },
          ...errorResponses("UNAUTHORIZED"),
        },
      },
    },
    async (request) => ({ id: request.application.id, name: request.application.name }),
  );
}
