import { Ajv2020, type ValidateFunction } from "ajv/dist/2020.js";
import addFormats from "ajv-formats";
import { type MixdownClient, MixdownError, type WorkflowDetails } from "../../sdk/src/index.ts";
import { describeIssues, type SchemaIssue } from "../schema-issues.ts";
import { ClientError } from "./client-reach.ts";

/** What `mixdown run` is about to send, checked before the input is uploaded. */
export interface PlannedJob {
  workflow: string;
  params: Record<string, unknown>;
  /** The param that will receive the input's URL (not known before the upload). */
  inputParam: string;
  copyResultsTo?: Record<string, string>;
}

/** The slugs the server lists, for the message about a workflow it does not have. */
async function knownSlugs(client: MixdownClient): Promise<string[]> {
  const slugs: string[] = [];
  for await (const workflow of client.iterateWorkflows()) slugs.push(workflow.slug);
  return slugs;
}

/** The server's validator for an input schema (ajv, JSON Schema 2020-12, formats); undefined if it cannot compile. */
function compileSchema(schema: Record<string, unknown>): ValidateFunction | undefined {
  const ajv = new Ajv2020({ allErrors: true, strict: false });
  (addFormats as unknown as (ajv: Ajv2020) => void)(ajv);
  try {
    return ajv.compile(schema);
  } catch {
    return undefined; // the server judges such a schema itself, when the job is created
  }
}

function unknownWorkflow(slug: string, slugs: string[]): ClientError {
  return new ClientError(
    `the server has no workflow "${slug}" (nothing was uploaded). Its workflows: ${slugs.join(", ") || "none"}`,
  );
}

/**
 * Checks a job before its input is uploaded, as the server would check it at creation: the workflow exists and
 * can run here, the params match its input schema (the same validator and messages as the server's), every
 * --copy-result names a file output. A server without Mixdown's GET /workflow/SLUG is only asked whether the
 * workflow is listed. Throws ClientError; returns the workflow's description when the server gave one.
 */
export async function checkBeforeUpload(client: MixdownClient, job: PlannedJob): Promise<WorkflowDetails | undefined> {
  let workflow: WorkflowDetails;
  try {
    workflow = await client.getWorkflow(job.workflow);
  } catch (error) {
    if (!(error instanceof MixdownError) || error.status !== 404) throw error;
    const slugs = await knownSlugs(client);
    // Mixdown says the workflow is unknown; another server of the API only lists its workflows.
    if (error.code === "WORKFLOW_NOT_FOUND" || !slugs.includes(job.workflow))
      throw unknownWorkflow(job.workflow, slugs);
    return undefined;
  }
  const problems = [workflow.errors, workflow.unavailable].flatMap((list) =>
    Array.isArray(list) ? (list as { field?: string; message: string }[]) : [],
  );
  if (workflow.runnable === false)
    throw new ClientError(`the workflow "${job.workflow}" cannot run on this server (nothing was uploaded)`, problems);

  const validate = workflow.inputSchema ? compileSchema(workflow.inputSchema) : undefined;
  if (validate) {
    // The input's URL is not known yet: a stand-in of the right type, whose own value is not judged.
    const params = { [job.inputParam]: "https://example.com/input", ...job.params };
    if (!validate(params)) {
      const ownValue = (issue: SchemaIssue) =>
        !(job.inputParam in job.params) &&
        (issue.instancePath === `/${job.inputParam}` || issue.instancePath.startsWith(`/${job.inputParam}/`));
      const details = describeIssues(
        (validate.errors ?? []).filter((issue) => !ownValue(issue)),
        "params",
      );
      if (details.length > 0)
        throw new ClientError(
          `invalid params for "${job.workflow}" (nothing was uploaded; mixdown workflow show ${job.workflow} --remote lists them)`,
          details.map((detail) =>
            detail.field === `params.${job.inputParam}` && detail.message === "is not a known field"
              ? { ...detail, message: `${detail.message}: name the workflow's input param with --input-param NAME` }
              : detail,
          ),
        );
    }
  }

  const outputs = workflow.outputs ?? {};
  const wrong = Object.keys(job.copyResultsTo ?? {}).flatMap((name) => {
    const field = `copyResultsTo.${name}`;
    if (!(name in outputs))
      return [{ field, message: `is not an output of the workflow (its outputs: ${Object.keys(outputs).join(", ")})` }];
    if (outputs[name]?.kind !== "file URL")
      return [{ field, message: "is an inline value, not a file: only file outputs can be copied" }];
    return [];
  });
  if (wrong.length > 0)
    throw new ClientError("--copy-result names results that cannot be copied (nothing was uploaded)", wrong);
  return workflow;
}
