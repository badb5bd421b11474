import { createHash } from "node:crypto";
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
import { DEFINITION_EXTENSIONS, loadDefinitionFile } from "./load-definition.ts";

const BUILT_IN_DIR = path.join(import.meta.dirname, "builtin");
export const RESERVED_PREFIX = "mixdown/";
const RESCAN_MS = 1000;

export interface LoadedWorkflow {
  slug: string;
  definition: WorkflowDefinition;
  builtIn: boolean;
  /** Where it came from (file path). */
  source: string;
  errors: DefinitionError[];
  /** Changes whenever the definition does (drives updatedAt). */
  hash: string;
}

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
      const hash = createHash("sha256").update(JSON.stringify(raw)).digest("hex");
      return [{ slug, definition: raw as WorkflowDefinition, builtIn, source, errors: all, hash }];
    });
}

/** Built-in workflows plus the operator's definition files, rescanned when the directory changes. */
export class WorkflowRegistry {
  readonly modules: Map<string, Module>;
  readonly environment: ModuleEnvironment;
  /** Where the operator's definitions live (MIXDOWN_WORKFLOWS_DIR). */
  readonly customDir: string | undefined;
  private readonly builtIns: LoadedWorkflow[];
  private custom: LoadedWorkflow[] = [];
  private fingerprint = "";
  private scannedAt = 0;

  constructor(modules: Map<string, Module>, environment: ModuleEnvironment, customDir?: string) {
    this.modules = modules;
    this.environment = environment;
    this.customDir = customDir;
    this.builtIns = loadDir(BUILT_IN_DIR, modules, true);
    this.rescan();
  }

  /** Re-reads the custom directory if any file in it changed; true when the set of workflows changed. */
  rescan(force = false): boolean {
    if (!this.customDir || (!force && Date.now() - this.scannedAt < RESCAN_MS)) return false;
    this.scannedAt = Date.now();
    let fingerprint = "";
    if (fs.existsSync(this.customDir)) {
      for (const file of fs.readdirSync(this.customDir).sort()) {
        const stat = fs.statSync(path.join(this.customDir, file), { throwIfNoEntry: false });
        if (stat?.isFile()) fingerprint += `${file}:${stat.mtimeMs}:${stat.size};`;
      }
    }
    if (fingerprint === this.fingerprint) return false;
    this.fingerprint = fingerprint;
    this.custom = loadDir(this.customDir, this.modules, false).filter((wf) => !wf.slug.startsWith(RESERVED_PREFIX));
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
