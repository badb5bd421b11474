import { createHash } from "node:crypto";
import fs from "node:fs";
import { type DefinitionError, isFileType } from "../engine/types.ts";
import { ApiError } from "../errors.ts";
import type { MetadataStore } from "../store/metadata-store.ts";
import { checkDefinitionText, installDefinition } from "../workflows/custom-definitions.ts";
import { type DefinitionFormat, formatOf } from "../workflows/load-definition.ts";
import type { LoadedWorkflow, WorkflowRegistry } from "../workflows/registry.ts";

/** A stable UUID-shaped id for a workflow slug. */
export function workflowId(slug: string): string {
  const hex = createHash("sha256").update(`mixdown-workflow:${slug}`).digest("hex");
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-5${hex.slice(13, 16)}-a${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}

/** Workflows as clients see them: the registry's definitions with the store's real createdAt/updatedAt. */
export class WorkflowService {
  readonly registry: WorkflowRegistry;
  private readonly store: MetadataStore;
  private synced = false;

  constructor(registry: WorkflowRegistry, store: MetadataStore) {
    this.registry = registry;
    this.store = store;
  }

  /** Records new, changed and removed workflows (so updatedAt moves when a definition does). */
  async sync(force = false): Promise<void> {
    if (!this.registry.rescan(force) && this.synced) return;
    const records = this.registry.all().map((wf) => ({
      id: workflowId(wf.slug),
      slug: wf.slug,
      name: typeof wf.definition.name === "string" ? wf.definition.name : wf.slug,
      description: typeof wf.definition.description === "string" ? wf.definition.description : "",
      definitionHash: wf.hash,
    }));
    await this.store.syncWorkflows(records, new Date().toISOString());
    this.synced = true;
  }

  async list(page: number, size: number) {
    await this.sync();
    return this.store.listWorkflows(page, size);
  }

  /** One workflow with its input schema, outputs and whether it can run. */
  async describe(slug: string) {
    await this.sync();
    const wf = this.registry.get(slug);
    const record = wf && (await this.store.getWorkflow(slug));
    if (!wf || !record) throw new ApiError("WORKFLOW_NOT_FOUND", `Workflow "${slug}" not found`);
    const def = wf.definition;
    const unavailable = wf.errors.length === 0 ? this.registry.unavailability(wf) : [];
    const runsWith = wf.errors.length === 0 ? this.registry.runsWith(wf) : [];
    const outputs = Object.fromEntries(
      Object.entries(def.outputs ?? {}).map(([key, ref]) => {
        const [, stepId, output] = String(ref).split(".");
        const step = def.steps?.find((s) => s.id === stepId);
        const port = step && this.registry.modules.get(step.module)?.outputs[output ?? ""];
        return [
          key,
          port
            ? {
                type: port.type,
                kind: isFileType(port.type) ? "file URL" : "inline value",
                description: port.description,
              }
            : null,
        ];
      }),
    );
    return {
      id: record.id,
      name: record.name,
      slug: record.slug,
      description: record.description,
      createdAt: record.createdAt,
      updatedAt: record.updatedAt,
      builtIn: wf.builtIn,
      runnable: wf.errors.length === 0 && unavailable.length === 0,
      errors: wf.errors,
      unavailable,
      inputSchema: def.inputSchema ?? {},
      outputs,
      steps: (def.steps ?? []).map((s, i) => ({ id: s.id, module: s.module, ...runsWith[i] })),
    };
  }

  /** Every workflow with whether it can run, and why not: errors in its definition, or what this server lacks. */
  async catalogue() {
    await this.sync();
    const records = new Map((await this.store.listWorkflows(0, 10_000)).items.map((r) => [r.slug, r]));
    return this.registry.all().map((wf) => {
      const unavailable = wf.errors.length === 0 ? this.registry.unavailability(wf) : [];
      return {
        slug: wf.slug,
        name: typeof wf.definition.name === "string" ? wf.definition.name : wf.slug,
        description: typeof wf.definition.description === "string" ? wf.definition.description : "",
        builtIn: wf.builtIn,
        runnable: wf.errors.length === 0 && unavailable.length === 0,
        errors: wf.errors,
        unavailable,
        updatedAt: records.get(wf.slug)?.updatedAt,
      };
    });
  }

  /** What `workflow validate` says of a custom definition's text. */
  check(text: string, format: DefinitionFormat) {
    return checkDefinitionText(text, format, this.registry.modules);
  }

  /**
   * Installs a custom definition as `workflow add` does (a file in MIXDOWN_WORKFLOWS_DIR, replacing the
   * workflow of the same slug); nothing is written when it has errors, which are returned.
   */
  async install(
    text: string,
    format: DefinitionFormat,
  ): Promise<{ slug: string | undefined; errors: DefinitionError[] }> {
    const checked = this.check(text, format);
    if (checked.errors.length > 0 || !checked.slug) return checked;
    const dir = this.customDirectory();
    installDefinition(dir, checked.slug, text, format === "json" ? ".json" : ".yaml");
    await this.sync(true);
    return checked;
  }

  /** The text of a custom workflow's definition file, as the operator wrote it. */
  source(slug: string): { text: string; format: DefinitionFormat } {
    const wf = this.custom(slug);
    return { text: fs.readFileSync(wf.source, "utf8"), format: formatOf(wf.source) };
  }

  /** Removes a custom workflow's definition file, as `workflow remove` does. */
  async remove(slug: string): Promise<void> {
    fs.rmSync(this.custom(slug).source, { force: true });
    await this.sync(true);
  }

  private custom(slug: string): LoadedWorkflow {
    this.registry.rescan(true);
    const wf = this.registry.get(slug);
    if (!wf || wf.builtIn) throw new ApiError("WORKFLOW_NOT_FOUND", `There is no custom workflow "${slug}"`);
    return wf;
  }

  private customDirectory(): string {
    if (!this.registry.customDir) throw new Error("no directory for custom workflows is configured");
    return this.registry.customDir;
  }

  /** The workflow a new job names: 404 if unknown, 422 with the errors if it cannot run. */
  async forJob(slug: string): Promise<LoadedWorkflow> {
    await this.sync();
    const wf = this.registry.get(slug);
    if (!wf) throw new ApiError("WORKFLOW_NOT_FOUND", `Workflow "${slug}" not found`);
    if (wf.errors.length > 0)
      throw new ApiError("WORKFLOW_HAS_ERRORS", `The workflow "${slug}" contains errors`, wf.errors);
    const unavailable = this.registry.unavailability(wf);
    if (unavailable.length > 0) {
      throw new ApiError("WORKFLOW_UNAVAILABLE", `The workflow "${slug}" cannot run on this server`, unavailable);
    }
    return wf;
  }
}
