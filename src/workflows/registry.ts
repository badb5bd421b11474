import { createHash } from "node:crypto";
import { convertWorkflow } from "./convert.ts";
import type { Workflow } from "./workflow.ts";

/** Workflows that ship with Mixdown. */
export const BUILT_IN_WORKFLOWS: Workflow[] = [convertWorkflow];

export class WorkflowRegistry {
  private readonly bySlug: Map<string, Workflow>;

  constructor(workflows: Workflow[]) {
    this.bySlug = new Map(workflows.map((wf) => [wf.slug, wf]));
  }

  get(slug: string): Workflow | undefined {
    return this.bySlug.get(slug);
  }

  all(): Workflow[] {
    return [...this.bySlug.values()];
  }

  /** Changes when what a client sees of the workflow changes (so updatedAt is real). */
  static definitionHash(wf: Workflow): string {
    const visible = { name: wf.name, description: wf.description, inputSchema: wf.inputSchema };
    return createHash("sha256").update(JSON.stringify(visible)).digest("hex");
  }
}
