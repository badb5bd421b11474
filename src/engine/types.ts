/** The vocabulary of the workflow engine. It knows values and files, nothing about audio. */

export const FILE_TYPES = ["audio", "json", "midi", "image"] as const;
export const VALUE_TYPES = ["number", "string", "boolean", "object"] as const;
export type FileType = (typeof FILE_TYPES)[number];
export type ValueType = (typeof VALUE_TYPES)[number];
export type PortType = FileType | ValueType;

export const isFileType = (type: PortType): type is FileType => (FILE_TYPES as readonly string[]).includes(type);

export interface Port {
  type: PortType;
  description: string;
  /** Inputs only: the step may leave it unconnected. */
  optional?: boolean;
  /** Value outputs only: null when there is nothing to report (the description says when). */
  nullable?: boolean;
}

/** Where operator-supplied resources live (model files). */
export interface ModuleEnvironment {
  modelsDir: string;
}

/** What a module sees when it runs: resolved params, inputs (files as local paths) and a directory for outputs. */
export interface ModuleContext extends ModuleEnvironment {
  params: Record<string, unknown>;
  inputs: Record<string, unknown>;
  /** The step's own directory; file outputs are written here. */
  outputDir: string;
  signal: AbortSignal;
  /** Reads a URL (Mixdown's own or any http(s) one) into a local file; only in the worker's own process (not in a module process). */
  fetchInput(url: string): Promise<string>;
  /** How much of the step is done, from 0 to 1: call it where the module loops (cheap; the engine throttles). */
  reportProgress?(fraction: number): void;
}

export interface Module {
  name: string;
  description: string;
  /** JSON Schema (an object schema) of the step's params. */
  params: Record<string, unknown>;
  inputs: Record<string, Port>;
  outputs: Record<string, Port>;
  /** CPU-heavy or native work: run in a module process (src/engine/module-pool.ts), off the API's event loop and process. */
  heavy?: boolean;
  /**
   * Why the module cannot run here with these (literal) params — a missing program or model — or
   * undefined when it can. Jobs on workflows using it are refused with the reason, never left to fail.
   */
  availability?(params: Record<string, unknown>, env: ModuleEnvironment): string | undefined;
  /**
   * What would run the module here with these (literal) params, shown with the workflow's steps (e.g.
   * `{ engine: "pocketsphinx" }`); undefined when it cannot run or there is nothing to tell.
   */
  runsWith?(params: Record<string, unknown>, env: ModuleEnvironment): Record<string, string> | undefined;
  /** Returns a value per output; file outputs are paths of files written in ctx.outputDir. */
  run(ctx: ModuleContext): Promise<Record<string, unknown>>;
}

/** A reference: "$params.NAME" or "$steps.STEP.OUTPUT". */
export type Reference = { kind: "param"; name: string } | { kind: "step"; step: string; output: string };

export interface StepDefinition {
  id: string;
  module: string;
  params?: Record<string, unknown>;
  inputs?: Record<string, unknown>;
}

export interface WorkflowDefinition {
  slug: string;
  name: string;
  description: string;
  inputSchema: Record<string, unknown>;
  steps: StepDefinition[];
  /** Result key → "$steps.STEP.OUTPUT". */
  outputs: Record<string, string>;
}

export interface DefinitionError {
  field: string;
  message: string;
}
