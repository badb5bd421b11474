import fs from "node:fs";
import path from "node:path";
import { literal, parseReference } from "../engine/references.ts";
import type {
  DefinitionError,
  Module,
  ModuleEnvironment,
  StepDefinition,
  WorkflowDefinition,
} from "../engine/types.ts";
import { validateDefinition } from "../engine/validate.ts";
import type { MetadataStore } from "../store/metadata-store.ts";
import { DEFINITION_EXTENSIONS, type DefinitionFormat, definitionHash, loadDefinitionFile } from "./load-definition.ts";
import type { WorkflowsDirectory } from "./workflows-dir.ts";

const BUILT_IN_DIR = path.join(import.meta.dirname, "builtin");
export const RESERVED_PREFIX = "mixdown/";

export interface LoadedWorkflow {
  slug: string;
  definition: WorkflowDefinition;
  builtIn: boolean;
  /** Where it came from: a built-in's file, or "metadata store". */
  source: string;
  /** A custom workflow's text as saved, its format, and when it was saved. */
  saved?: { text: string; format: DefinitionFormat; changedAt: string };
  errors: DefinitionError[];
  /** Changes whenever the definition does (drives updatedAt). */
  hash: string;
}

/** Where a registry reads custom definitions: the metadata store, shared by every node. */
export type CustomDefinitions = Pick<
  MetadataStore,
  "customWorkflowsVersion" | "customWorkflowsRevision" | "listCustomWorkflows"
>;

/** Validates a parsed definition and checks where it may come from (only built-ins use "mixdown/"). */
export function checkDefinition(raw: unknown, modules: Map<string, Module>, builtIn: boolean): DefinitionError[] {
  const errors = validateDefinition(raw, modules);
  const slug = (raw as { slug?: unknown })?.slug;
  if (!builtIn && typeof slug === "string" && slug.startsWith(RESERVED_PREFIX)) {
    errors.unshift({ field: "slug", message: `the "${RESERVED_PREFIX}" prefix is reserved for built-in workflows` });
  }
  return errors;
}

function loadDir(dir: string, modules: Map<string, Module>, builtIn: boolean): LoadedWorkflow[] {
  if (!fs.existsSync(dir)) return [];
  return fs
    .readdirSync(dir)
    .filter((f) => DEFINITION_EXTENSIONS.includes(path.extname(f)))
    .sort()
    .flatMap((file) => {
      const source = path.join(dir, file);
      const { raw, errors } = loadDefinitionFile(source);
      const slug = (raw as { slug?: unknown })?.slug;
      if (typeof slug !== "string") return []; // not a definition at all: `workflow validate` explains
      const all = [...errors, ...checkDefinition(raw, modules, builtIn)];
      return [{ slug, definition: raw as WorkflowDefinition, builtIn, source, errors: all, hash: definitionHash(raw) }];
    });
}

/**
 * Built-in workflows plus the custom ones of the metadata store, read again when the store's version says they may
 * have changed (and, first, the files new or changed in this node's MIXDOWN_WORKFLOWS_DIR saved into the store).
 */
export class WorkflowRegistry {
  readonly modules: Map<string, Module>;
  readonly environment: ModuleEnvironment;
  /** This node's MIXDOWN_WORKFLOWS_DIR, whose files are saved into the store. */
  readonly directory: WorkflowsDirectory | undefined;
  private readonly store: CustomDefinitions | undefined;
  private readonly builtIns: LoadedWorkflow[];
  private custom: LoadedWorkflow[] = [];
  private version: string | undefined;
  private revision: string | undefined;
  private reloading: Promise<unknown> = Promise.resolve();

  constructor(
    modules: Map<string, Module>,
    environment: ModuleEnvironment,
    custom?: { store: CustomDefinitions; directory?: WorkflowsDirectory },
  ) {
    this.modules = modules;
    this.environment = environment;
    this.store = custom?.store;
    this.directory = custom?.directory;
    this.builtIns = loadDir(BUILT_IN_DIR, modules, true);
  }

  /**
   * Brings the custom workflows up to date: at no cost while the store's version stays the same (`force` asks the
   * store's revision anyway: one small read); true when they changed.
   */
  async refresh(force = false): Promise<boolean> {
    if (!this.store) return false;
    await this.directory?.scan(force);
    if (!force && this.store.customWorkflowsVersion() === this.version) return false;
    const next = this.reloading.then(() => this.reload(force));
    this.reloading = next.catch(() => undefined);
    return next;
  }

  private async reload(force: boolean): Promise<boolean> {
    const store = this.store as CustomDefinitions;
    // Read before the revision: a change after it moves the version again, so it is not missed.
    const version = store.customWorkflowsVersion();
    if (!force && version === this.version) return false; // another caller's reload just did it
    const revision = await store.customWorkflowsRevision();
    if (revision === this.revision) {
      this.version = version;
      return false;
    }
    const listed = await store.listCustomWorkflows();
    this.custom = listed.definitions
      .filter((stored) => !stored.slug.startsWith(RESERVED_PREFIX))
      .map((stored) => ({
        slug: stored.slug,
        definition: stored.definition as WorkflowDefinition,
        builtIn: false,
        source: "metadata store",
        saved: { text: stored.source, format: stored.format, changedAt: stored.changedAt },
        errors: checkDefinition(stored.definition, this.modules, false),
        hash: stored.hash,
      }));
    this.revision = listed.revision;
    this.version = version;
    return true;
  }

  all(): LoadedWorkflow[] {
    const slugs = new Set(this.builtIns.map((wf) => wf.slug));
    return [...this.builtIns, ...this.custom.filter((wf) => !slugs.has(wf.slug))];
  }

  get(slug: string): LoadedWorkflow | undefined {
    return this.all().find((wf) => wf.slug === slug);
  }

  /** Why a (valid) workflow cannot run on this machine: one entry per step whose module lacks something. */
  unavailability(wf: LoadedWorkflow): DefinitionError[] {
    const reasons: DefinitionError[] = [];
    wf.definition.steps.forEach((step, i) => {
      const module = this.modules.get(step.module);
      if (!module?.availability) return;
      const reason = module.availability(literalParams(step), this.environment);
      if (reason) reasons.push({ field: `steps[${i}]`, message: `module "${module.name}" cannot run here: ${reason}` });
    });
    return reasons;
  }

  /** Per step, what its module would run here (its runsWith), for the steps whose module tells. */
  runsWith(wf: LoadedWorkflow): (Record<string, string> | undefined)[] {
    return wf.definition.steps.map((step) =>
      this.modules.get(step.module)?.runsWith?.(literalParams(step), this.environment),
    );
  }
}

/** A step's params that are literals (job params are not known before a job). */
function literalParams(step: StepDefinition): Record<string, unknown> {
  return Object.fromEntries(
    Object.entries(step.params ?? {})
      .filter(([, value]) => parseReference(value) === undefined)
      .map(([name, value]) => [name, literal(value)]),
  );
}
