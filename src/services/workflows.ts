import { type DefinitionError, isFileType } from "../engine/types.ts";
import { ApiError } from "../errors.ts";
import type { MetadataStore } from "../store/metadata-store.ts";
import { checkDefinitionText, toStored, workflowRecord } from "../workflows/custom-definitions.ts";
import type { DefinitionFormat } from "../workflows/load-definition.ts";
import type { LoadedWorkflow, WorkflowRegistry } from "../workflows/registry.ts";

export { workflowId } from "../workflows/custom-definitions.ts";

/**
 * Workflows as clients see them: the registry's definitions with the store's real createdAt/updatedAt. Custom
 * definitions live in the metadata store, so a save or a removal on any node (dashboard, CLI, a file in a node's
 * MIXDOWN_WORKFLOWS_DIR) reaches every node.
 */
export class WorkflowService {
  readonly registry: WorkflowRegistry;
  private readonly store: MetadataStore;

  constructor(registry: WorkflowRegistry, store: MetadataStore) {
    this.registry = registry;
    this.store = store;
  }

  /** At a node's start: its directory's files saved, the built-ins recorded, the custom workflows read. */
  async start(): Promise<void> {
    await this.registry.directory?.scan(true);
    const builtIns = this.registry.all().filter((wf) => wf.builtIn);
    await this.store.syncBuiltInWorkflows(
      builtIns.map((wf) => workflowRecord(wf.slug, wf.definition, wf.hash)),
      new Date().toISOString(),
    );
    await this.registry.refresh(true);
  }

  async list(page: number, size: number) {
    await this.registry.refresh();
    return this.store.listWorkflows(page, size);
  }

  /** One workflow with its input schema, outputs and whether it can run. */
  async describe(slug: string) {
    const wf = await this.find(slug);
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
                ...(port.nullable ? { nullable: true } : {}),
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
    await this.registry.refresh();
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
   * Installs a custom definition (`workflow add`, the dashboard's editor) for every node, replacing the workflow
   * of the same slug; nothing is saved when it has errors, which are returned.
   */
  async install(
    text: string,
    format: DefinitionFormat,
  ): Promise<{ slug: string | undefined; errors: DefinitionError[]; changed?: boolean }> {
    const checked = this.check(text, format);
    if (checked.errors.length > 0 || !checked.slug) return checked;
    const stored = toStored(text, format, new Date().toISOString());
    if (!stored) throw new Error("a definition without errors has a slug");
    const changed = await this.store.putCustomWorkflow(stored.definition, stored.record);
    await this.registry.refresh(true);
    return { ...checked, changed };
  }

  /** The text of a custom workflow's definition, as the operator wrote it. */
  async source(slug: string): Promise<{ text: string; format: DefinitionFormat }> {
    const { saved } = await this.custom(slug);
    if (!saved) throw new ApiError("WORKFLOW_NOT_FOUND", `There is no custom workflow "${slug}"`);
    return { text: saved.text, format: saved.format };
  }

  /** Removes a custom workflow on every node (`workflow remove`, the dashboard). */
  async remove(slug: string): Promise<void> {
    await this.custom(slug);
    if (!(await this.store.deleteCustomWorkflow(slug, new Date().toISOString()))) {
      throw new ApiError("WORKFLOW_NOT_FOUND", `There is no custom workflow "${slug}"`);
    }
    await this.registry.refresh(true);
  }

  /** A custom workflow as the store has it now (another node may just have saved or removed it). */
  private async custom(slug: string): Promise<LoadedWorkflow> {
    await this.registry.refresh(true);
    const wf = this.registry.get(slug);
    if (!wf || wf.builtIn) throw new ApiError("WORKFLOW_NOT_FOUND", `There is no custom workflow "${slug}"`);
    return wf;
  }

  /** A workflow by slug; one unknown here is asked of the store (it may just have been saved on another node). */
  private async find(slug: string): Promise<LoadedWorkflow | undefined> {
    await this.registry.refresh();
    return this.registry.get(slug) ?? ((await this.registry.refresh(true)) ? this.registry.get(slug) : undefined);
  }

  /** The workflow a new job names: 404 if unknown, 422 with the errors if it cannot run. */
  async forJob(slug: string): Promise<LoadedWorkflow> {
    const wf = await this.find(slug);
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
