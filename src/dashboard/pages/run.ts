import { Ajv2020 } from "ajv/dist/2020.js";
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { createJobBody } from "../../api/schemas.ts";
import type { WorkflowDefinition } from "../../engine/types.ts";
import { ApiError, type ErrorDetail } from "../../errors.ts";
import { describeIssues } from "../../schema-issues.ts";
import { labelled } from "../app-labels.ts";
import type { DashboardContext } from "../context.ts";
import { MEDIA_EXTENSIONS, notMedia } from "../media-file.ts";
import { impliedDefaults } from "../param-defaults.ts";
import { fragment, view } from "../render.ts";
import { type Field, fieldsOf, fileParams, paramsFrom } from "../schema-form.ts";

/** The API's own check of a job request's body, for the messages it gives. */
const validateBody = new Ajv2020({ allErrors: true, strict: false }).compile(createJobBody);

const PARAM_PREFIX = "param.";

type RunForm = { app?: string; workflow?: string; name?: string; batch?: string } & Record<string, string | undefined>;
type RunQuery = { app?: string; workflow?: string; fragment?: string };

/** Where a detail of an API error belongs on the form: a param's field, the name, or the form as a whole. */
function fieldOf(detail: ErrorDetail, fields: Field[]): string | undefined {
  if (detail.field === "name" || detail.field === "batchName") return detail.field;
  const [root, param] = detail.field.split(".");
  return root === "params" && fields.some((f) => f.name === param) ? `${PARAM_PREFIX}${param}` : undefined;
}

/**
 * /dashboard/run: pick an application and a workflow, give the input (a file uploaded through the API's
 * signed upload URL, or a URL) and the params in a form made from the workflow's input schema; the job is
 * created by the API's own service and validation, then its page is shown.
 */
export function runPage(dashboard: FastifyInstance, { runtime }: DashboardContext): void {
  const { applications, workflows, jobs, uploads } = runtime;

  const activeApps = async () => (await applications.list()).filter((app) => !app.revokedAt);

  /** The form's fields: from the input schema, with the defaults params take from the modules they feed. */
  const fieldsFor = (definition: WorkflowDefinition) =>
    fieldsOf(
      definition.inputSchema,
      fileParams(definition.steps),
      impliedDefaults(definition, workflows.registry.modules),
    );

  /** The page, or with `part` only the part below the chooser (what the chooser's script swaps in). */
  const render = async (
    request: FastifyRequest,
    reply: FastifyReply,
    form: RunForm,
    errors: { fields: Record<string, string>; general: string[] } = { fields: {}, general: [] },
    part = false,
  ) => {
    const [apps, catalogue] = await Promise.all([activeApps().then(labelled), workflows.catalogue()]);
    // The only application is the one meant, unless the form said otherwise.
    const app =
      apps.find((a) => a.id === form.app) ?? (form.app === undefined && apps.length === 1 ? apps[0] : undefined);
    const named = catalogue.find((wf) => wf.slug === form.workflow);
    const chosen = named?.runnable ? named : undefined;
    const definition = chosen && workflows.registry.get(chosen.slug)?.definition;
    const fields = definition ? fieldsFor(definition) : [];
    const values: Record<string, string> = {};
    for (const field of fields) values[field.name] = form[`${PARAM_PREFIX}${field.name}`] ?? field.defaultText;
    const data = {
      title: "Run a workflow",
      apps,
      workflows: catalogue,
      app,
      workflow: chosen,
      unavailable: named && !named.runnable ? named : undefined,
      fields,
      values,
      name: form.name ?? chosen?.name ?? "",
      batch: form.batch ?? "",
      errors,
      corsProblem: runtime.corsProblem,
      // The object store accepts uploads from pages of this origin only (see allowBrowserOrigin).
      publicOrigin: new URL(runtime.config.publicUrl).origin,
      mediaExtensions: MEDIA_EXTENSIONS.join(" "),
      csrf: request.operatorSession?.csrfToken,
      scripts: ["run.js"],
      styles: ["forms.css"],
    };
    return part ? fragment(reply, "pages/run-form", data) : view(request, reply, "pages/run", data);
  };

  dashboard.get<{ Querystring: RunQuery }>("/run", (request, reply) => {
    const { app, workflow } = request.query;
    return render(request, reply, { app, workflow }, undefined, request.query.fragment === "form");
  });

  // The browser asks for an upload URL of the chosen application, then PUTs the file there itself.
  dashboard.post<{ Body: { app?: unknown; fileName?: unknown; fileType?: unknown } }>(
    "/run/upload-url",
    async (request, reply) => {
      const app = (await activeApps()).find((a) => a.id === request.body?.app);
      if (!app) return reply.code(400).send({ message: "Choose an active application first." });
      const { fileName, fileType } = request.body ?? {};
      // Workflows take audio or video: anything else is refused here rather than failing in the job.
      if (typeof fileName !== "string" || !fileName) return reply.code(400).send({ message: "Which file is it?" });
      const refused = notMedia(fileName, typeof fileType === "string" ? fileType : "");
      if (refused) return reply.code(415).send({ message: refused });
      return uploads.createPair(app.id);
    },
  );

  dashboard.post<{ Body: RunForm }>("/run", async (request, reply) => {
    const form = request.body ?? {};
    const app = (await activeApps()).find((a) => a.id === form.app);
    const definition = form.workflow ? workflows.registry.get(form.workflow)?.definition : undefined;
    if (!app || !definition) {
      reply.code(400);
      const general = [!app ? "Choose an active application." : "Choose a workflow."];
      return render(request, reply, form, { fields: {}, general });
    }
    const fields = fieldsFor(definition);
    const values: Record<string, string> = {};
    for (const field of fields) values[field.name] = form[`${PARAM_PREFIX}${field.name}`] ?? "";
    const batchName = form.batch?.trim() || undefined;
    const body = { name: form.name ?? "", workflow: definition.slug, params: paramsFrom(fields, values), batchName };
    try {
      if (!validateBody(body))
        throw new ApiError("INVALID_REQUEST", undefined, describeIssues(validateBody.errors ?? []));
      const id = await jobs.create(app.id, body);
      return reply.redirect(`/dashboard/jobs/${id}`, 303);
    } catch (error) {
      if (!(error instanceof ApiError)) throw error;
      const errors = { fields: {} as Record<string, string>, general: [] as string[] };
      for (const detail of error.details ?? []) {
        const field = fieldOf(detail, fields);
        if (field) errors.fields[field] ??= detail.message;
        else errors.general.push(`${detail.field} ${detail.message}`);
      }
      if (!error.details?.length) errors.general.push(error.message);
      reply.code(error.status);
      return render(request, reply, form, errors);
    }
  });
}
