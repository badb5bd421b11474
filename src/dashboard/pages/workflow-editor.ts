import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { stringify as stringifyYaml } from "yaml";
import type { DefinitionError } from "../../engine/types.ts";
import type { DefinitionFormat } from "../../workflows/load-definition.ts";
import type { DashboardContext } from "../context.ts";
import { view } from "../render.ts";
import { orNotFound, type SlugParams, slugOf } from "./workflow.ts";

/** Definitions are small; even URL-encoded at 3 bytes a character this fits the dashboard's 64 KB form limit. */
export const MAX_DEFINITION_CHARS = 20_000;

const STARTER = `slug: my/loudness
name: Loudness
description: Measures a file's integrated loudness, loudness range and true peak.
inputSchema:
  type: object
  required: [inputUrl]
  properties:
    inputUrl: { type: string, description: URL of the input file }
steps:
  - { id: input, module: fetch, inputs: { url: $params.inputUrl } }
  - { id: measure, module: loudness, inputs: { audio: $steps.input.file } }
outputs:
  integratedLoudness: $steps.measure.integratedLoudness
  truePeak: $steps.measure.truePeak
`;

const formatOf = (value: unknown): DefinitionFormat => (value === "json" ? "json" : "yaml");

type EditorBody = { text?: unknown; format?: unknown; original?: unknown };

/**
 * /dashboard/workflow-editor: custom workflows as YAML or JSON, checked by the same validator as
 * `bin/mixdown workflow validate` while the operator types, installed and removed as `workflow add|remove` do.
 */
export function workflowEditorPage(dashboard: FastifyInstance, { runtime }: DashboardContext): void {
  const { workflows } = runtime;

  /** What the validator says of a text, with the size limit first. */
  const check = (text: string, format: DefinitionFormat): { slug?: string; errors: DefinitionError[] } =>
    text.length > MAX_DEFINITION_CHARS
      ? { errors: [{ field: "file", message: `is longer than ${MAX_DEFINITION_CHARS} characters` }] }
      : workflows.check(text, format);

  const editor = (
    request: FastifyRequest,
    reply: FastifyReply,
    data: { text: string; format: DefinitionFormat; original?: string; saveError?: string },
  ) => {
    const { slug, errors } = check(data.text, data.format);
    return view(request, reply, "pages/workflow-editor", {
      title: data.original ? `Edit ${data.original}` : "New custom workflow",
      ...data,
      slug,
      errors,
      maxChars: MAX_DEFINITION_CHARS,
      scripts: ["workflow-editor.js"],
      styles: ["forms.css"],
    });
  };

  // A new workflow starts from the example, or from a copy of another workflow (?from=SLUG) under a new slug.
  dashboard.get<{ Querystring: { from?: string } }>("/workflow-editor", async (request, reply) => {
    await workflows.registry.refresh();
    const from = request.query.from ? workflows.registry.get(request.query.from) : undefined;
    if (!from) return editor(request, reply, { text: STARTER, format: "yaml" });
    const slug = `my/${from.slug.split("/").at(-1)}`;
    return editor(request, reply, { text: stringifyYaml({ ...from.definition, slug }), format: "yaml" });
  });

  const edit = async (request: FastifyRequest<SlugParams>, reply: FastifyReply) => {
    const slug = slugOf(request.params);
    const source = await orNotFound(request, reply, () => workflows.source(slug));
    return source ? editor(request, reply, { ...source, original: slug }) : reply;
  };
  dashboard.get<SlugParams>("/workflow-editor/:owner", edit);
  dashboard.get<SlugParams>("/workflow-editor/:owner/:name", edit);

  // Called by the editor's script as the operator types (debounced).
  dashboard.post<{ Body: EditorBody }>("/workflow-editor/validate", async (request) => {
    const text = typeof request.body?.text === "string" ? request.body.text : "";
    const { slug, errors } = check(text, formatOf(request.body?.format));
    return { slug: slug ?? null, valid: errors.length === 0, errors };
  });

  dashboard.post<{ Body: EditorBody }>("/workflow-editor", async (request, reply) => {
    const text = typeof request.body?.text === "string" ? request.body.text : "";
    const format = formatOf(request.body?.format);
    const original =
      typeof request.body?.original === "string" && request.body.original ? request.body.original : undefined;
    if (check(text, format).errors.length === 0) {
      const { slug, errors } = await workflows.install(text, format);
      if (errors.length === 0 && slug) return reply.redirect(`/dashboard/workflows/${slug}`, 303);
    }
    reply.code(422);
    return editor(request, reply, { text, format, original, saveError: "Not saved: the definition has errors." });
  });

  const confirmDelete = async (request: FastifyRequest<SlugParams>, reply: FastifyReply) => {
    const slug = slugOf(request.params);
    if (!(await orNotFound(request, reply, () => workflows.source(slug)))) return reply;
    return view(request, reply, "pages/confirm", {
      title: `Delete the workflow ${slug}?`,
      message:
        "It is removed from the metadata store, so from every node. New jobs on it are refused; jobs already created keep their results. This cannot be undone.",
      action: `/dashboard/workflow-delete/${slug}`,
      confirm: "Delete workflow",
      danger: true,
      back: `/dashboard/workflows/${slug}`,
    });
  };
  const remove = async (request: FastifyRequest<SlugParams>, reply: FastifyReply) => {
    const removed = await orNotFound(request, reply, () => workflows.remove(slugOf(request.params)).then(() => true));
    return removed ? reply.redirect("/dashboard/workflows", 303) : reply;
  };
  dashboard.get<SlugParams>("/workflow-delete/:owner", confirmDelete);
  dashboard.get<SlugParams>("/workflow-delete/:owner/:name", confirmDelete);
  dashboard.post<SlugParams>("/workflow-delete/:owner", remove);
  dashboard.post<SlugParams>("/workflow-delete/:owner/:name", remove);
}
