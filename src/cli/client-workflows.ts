import type { Workflow, WorkflowDetails } from "../../sdk/src/index.ts";
import { UsageError } from "./app-commands.ts";
import { CONNECTION_HELP, connect, parseCommand, print, printJson } from "./client-common.ts";

export const WORKFLOWS_HELP = `Usage: mixdown workflows <list|show> [options]

  workflows list         every workflow on the server (slug and name; --json: with descriptions)
  workflows show SLUG    one workflow: its params (input schema), its outputs, whether it can run

${CONNECTION_HELP}`;

function describeWorkflow(wf: WorkflowDetails): string {
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
        `  ${key}: ${output ? `${output.kind} (${output.type})${output.description ? `  ${output.description}` : ""}` : "?"}`,
      );
  }
  if (wf.runnable === false) lines.push("", `Cannot run here: ${JSON.stringify(wf.errors ?? [])}`);
  return lines.join("\n");
}

export async function workflowsCommand(argv: string[]): Promise<number> {
  const { values, positionals } = parseCommand(argv, {});
  if (values.help) {
    print(WORKFLOWS_HELP);
    return 0;
  }
  const [sub, slug] = positionals;
  const client = connect(values);
  switch (sub) {
    case "list": {
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
    case "show": {
      if (!slug) throw new UsageError("workflows show needs a workflow slug");
      const workflow = await client.getWorkflow(slug);
      values.json ? printJson(workflow) : print(describeWorkflow(workflow));
      return 0;
    }
    default:
      throw new UsageError(sub ? `unknown workflows command "${sub}"` : "workflows needs a command: list or show");
  }
}
