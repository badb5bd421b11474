import { Ajv2020 } from "ajv/dist/2020.js";
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { createJobBody } from "../../api/schemas.ts";
import { ApiError, type ErrorDetail } from "../../errors.ts";
import { describeIssues } from "../../schema-issues.ts";
import type { DashboardContext } from "../context.ts";
import { view } from "../render.ts";
import { type Field, fieldsOf, fileParams, paramsFrom } from "../schema-form.ts";

/** The API's own check of a job request's body, for the messages it gives. */
const validateBody = new Ajv2020({ allErrors: true, strict: false }).compile(createJobBody);

const PARAM_PREFIX = "param.";

type RunForm = { app?: string; workflow?: string; name?: string; batch?: string } & Record<string, string | undefined>;

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

  const render = async (
    request: FastifyRequest,
    reply: FastifyReply,
    form: RunForm,
    errors: { fields: Record<string, string>; general: string[] } = { fields: {}, general: [] },
  ) => {
    const [apps, catalogue] = await Promise.all([activeApps(), workflows.catalogue()]);
    const app = apps.find((a) => a.id === form.app);
    const named = catalogue.find((wf) => wf.slug === form.workflow);
    const chosen = named?.runnable ? named : undefined;
    const definition = chosen && workflows.registry.get(chosen.slug)?.definition;
    const fields = definition ? fieldsOf(definition.inputSchema, fileParams(definition.steps)) : [];
    const values: Record<string, string> = {};
    for (const field of fields) values[field.name] = form[`${PARAM_PREFIX}${field.name}`] ?? field.defaultText;
    return view(request, reply, "pages/run", {
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
      scripts: ["run.js"],
      styles: ["forms.css"],
    });
  };

  dashboard.get<{ Querystring: { app?: string; workflow?: string } }>("/run", (request, reply) =>
    render(request, reply, { app: request.query.app, workflow: request.query.workflow }),
  );

  // The browser asks for an upload URL of the chosen application, then PUTs the file there itself.
  dashboard.post<{ Body: { app?: unknown } }>("/run/upload-url", async (request, reply) => {
    const app = (await activeApps()).find((a) => a.id === request.body?.app);
    if (!app) return reply.code(400).send({ message: "Choose an active application first." });
    return uploads.createPair(app.id);
  });

  dashboard.post<{ Body: RunForm }>("/run", async (request, reply) => {
    const form = request.body ?? {};
    const app = (await activeApps()).find((a) => a.id === form.app);
    const definition = form.workflow ? workflows.registry.get(form.workflow)?.definition : undefined;
    if (!app || !definition) {
      reply.code(400);
      const general = [!app ? "Choose an active application." : "Choose a workflow."];
      return render(request, reply, form, { fields: {}, general });
    }
    const fields = fieldsOf(definition.inputSchema, fileParams(definition.steps));
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
