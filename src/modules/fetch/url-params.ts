import { parseReference } from "../../engine/references.ts";
import type { WorkflowDefinition } from "../../engine/types.ts";
import type { ErrorDetail } from "../../errors.ts";
import { httpUrlProblem } from "../../jobs/download-url.ts";

/** The fetch module's name and the input it reads its URL from. */
export const FETCH_MODULE = "fetch";
export const FETCH_URL_INPUT = "url";

/** The params a workflow's fetch steps read URLs from (inputUrl, or whatever a custom workflow names them). */
export function urlParams(definition: WorkflowDefinition): string[] {
  const names = new Set<string>();
  for (const step of definition.steps) {
    if (step.module !== FETCH_MODULE) continue;
    const ref = parseReference(step.inputs?.[FETCH_URL_INPUT]);
    if (ref && ref !== "malformed" && ref.kind === "param") names.add(ref.name);
  }
  return [...names];
}

/**
 * A job's params that no fetch step could read: missing, or not an http(s) URL with a host and a valid port. The
 * address rule (internal hosts) is left to the download, which also sees where a host name resolves.
 */
export function urlParamProblems(definition: WorkflowDefinition, params: Record<string, unknown>): ErrorDetail[] {
  const details: ErrorDetail[] = [];
  for (const name of urlParams(definition)) {
    const value = params[name];
    const field = `params.${name}`;
    if (value === undefined) details.push({ field, message: "is required (a step reads the input file from it)" });
    else if (typeof value !== "string") details.push({ field, message: "must be of type string (a URL)" });
    else {
      const problem = httpUrlProblem(value);
      if (problem) details.push({ field, message: problem });
    }
  }
  return details;
}
