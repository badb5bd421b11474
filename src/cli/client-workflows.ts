import type { Workflow, WorkflowDetails } from "../../sdk/src/index.ts";
import { UsageError } from "./app-commands.ts";
import { connect, print, printJson } from "./client-common.ts";

/** One workflow for people: description, params (from the input schema), results, and why it cannot run. */
export function describeWorkflow(wf: WorkflowDetails): string {
  const lines = [`${wf.slug}: ${wf.name}`];
  if (wf.description) lines.push(wf.description);
  const schema = wf.inputSchema as
    | { properties?: Record<string, Record<string, unknown>>; required?: string[] }
    | undefined;
  if (schema?.properties) {
    lines.push("", "Params:");
    for (const [name, property] of Object.entries(schema.properties)) {
      const required = schema.required?.includes(name) ? "required" : "optional";
      const type = property.enum ? (property.enum as unknown[]).join("|") : String(property.type ?? "any");
      const extra = property.default !== undefined ? `, default ${JSON.stringify(property.default)}` : "";
      const description = typeof property.description === "string" ? `  ${property.description}` : "";
      lines.push(`  ${name} (${type}, ${required}${extra})${description}`);
    }
  }
  if (wf.outputs) {
    lines.push("", "Result:");
    for (const [key, output] of Object.entries(wf.outputs))
      lines.push(
        `  ${key}: ${output ? `${output.kind} (${output.type}${output.nullable ? " or null" : ""})${output.description ? `  ${output.description}` : ""}` : "?"}`,
      );
  }
  if (wf.runnable === false) {
    lines.push("", "Cannot run here:");
    for (const list of [wf.errors, wf.unavailable])
      for (const problem of Array.isArray(list) ? (list as { field?: string; message: string }[]) : [])
        lines.push(`  ${problem.field ? `${problem.field}: ` : ""}${problem.message}`);
  }
  return lines.join("\n");
}

/** `mixdown workflow list|show --remote`: the workflows as the server at --url / MIXDOWN_URL lists them. */
export async function remoteWorkflows(
  sub: "list" | "show",
  slug: string | undefined,
  values: { url?: string; "api-key"?: string; json: boolean },
): Promise<number> {
  if (sub === "show" && !slug) throw new UsageError("workflow show needs a workflow slug");
  const client = await connect(values);
  if (sub === "list") {
    const workflows: Workflow[] = [];
    for await (const workflow of client.iterateWorkflows()) workflows.push(workflow);
    if (values.json) printJson(workflows);
    else if (workflows.length === 0) print("No workflows.");
    else {
      const width = Math.max(...workflows.map((w) => w.slug.length));
      for (const w of workflows) print(`${w.slug.padEnd(width)}  ${w.name}`);
    }
    return 0;
  }
  const workflow = await client.getWorkflow(slug ?? "");
  values.json ? printJson(workflow) : print(describeWorkflow(workflow));
  return 0;
}
