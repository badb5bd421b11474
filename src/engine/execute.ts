import fsp from "node:fs/promises";
import path from "node:path";
import { Ajv2020, type ValidateFunction } from "ajv/dist/2020.js";
import type { JobResult } from "../domain.ts";
import { JobFailure } from "../jobs/job-failure.ts";
import { describeIssues } from "../schema-issues.ts";
import { contentTypeOf } from "./content-type.ts";
import { modulePool } from "./module-pool.ts";
import { literal, parseReference } from "./references.ts";
import { isFileType, type Module, type StepDefinition, type WorkflowDefinition } from "./types.ts";

/** What the engine needs from the job around it. */
export interface ExecutionEnvironment {
  params: Record<string, unknown>;
  signal: AbortSignal;
  scratchDir: string;
  modelsDir: string;
  fetchInput(url: string): Promise<string>;
  storeFile(name: string, localPath: string, contentType: string): Promise<JobResult[string]>;
  /** The job's progress (each step weighs the same) and the step that reported it. */
  onProgress?(progress: number, step: string): void;
}

const ajv = new Ajv2020({ allErrors: true, strict: false, useDefaults: true });
const paramValidators = new WeakMap<Module, ValidateFunction>();

/** Checks a step's params against its module's schema and fills in the schema's defaults; a mismatch is BAD_INPUT. */
export function checkParams(module: Module, stepId: string, params: Record<string, unknown>): void {
  let validate = paramValidators.get(module);
  if (!validate) {
    validate = ajv.compile(module.params);
    paramValidators.set(module, validate);
  }
  if (!validate(params)) {
    const reasons = describeIssues(validate.errors ?? [], `${stepId}.params`).map((d) => `${d.field} ${d.message}`);
    throw new JobFailure("BAD_INPUT", `The job's params do not suit step "${stepId}": ${reasons.join("; ")}`);
  }
}

/**
 * Runs a validated definition: every step starts as soon as the steps it reads from have finished, so
 * independent steps run concurrently. The first failure stops the others.
 */
export async function executeWorkflow(
  def: WorkflowDefinition,
  modules: Map<string, Module>,
  env: ExecutionEnvironment,
): Promise<JobResult> {
  const controller = new AbortController();
  const stopOnJobAbort = () => controller.abort(env.signal.reason);
  env.signal.addEventListener("abort", stopOnJobAbort, { once: true });
  const outputs = new Map<string, Promise<Record<string, unknown>>>();
  const done = new Map<string, number>();
  const report = (step: string, fraction: number) => {
    const clamped = Math.min(1, Math.max(0, Number.isFinite(fraction) ? fraction : 0));
    if (clamped <= (done.get(step) ?? 0)) return;
    done.set(step, clamped);
    let sum = 0;
    for (const value of done.values()) sum += value;
    env.onProgress?.(sum / def.steps.length, step);
  };

  const resolve = async (value: unknown): Promise<unknown> => {
    const ref = parseReference(value);
    if (ref === undefined || ref === "malformed") return literal(value);
    if (ref.kind === "param") return env.params[ref.name];
    return (await outputs.get(ref.step))?.[ref.output];
  };

  const runStep = async (step: StepDefinition): Promise<Record<string, unknown>> => {
    const module = modules.get(step.module) as Module;
    const params: Record<string, unknown> = {};
    for (const [name, value] of Object.entries(step.params ?? {})) {
      const resolved = await resolve(value);
      if (resolved !== undefined) params[name] = resolved;
    }
    const inputs: Record<string, unknown> = {};
    for (const [name, value] of Object.entries(step.inputs ?? {})) inputs[name] = await resolve(value);
    controller.signal.throwIfAborted();
    checkParams(module, step.id, params);
    const outputDir = path.join(env.scratchDir, "steps", step.id);
    await fsp.mkdir(outputDir, { recursive: true });
    const { modelsDir } = env;
    const reportProgress = (fraction: number) => report(step.id, fraction);
    const context = {
      params,
      inputs,
      outputDir,
      modelsDir,
      signal: controller.signal,
      fetchInput: env.fetchInput,
      reportProgress,
    };
    const produced = module.heavy
      ? await modulePool.run(module.name, { params, inputs, outputDir, modelsDir }, controller.signal, reportProgress)
      : await module.run(context);
    reportProgress(1);
    for (const name of Object.keys(module.outputs)) {
      if (!(name in produced)) throw new Error(`module ${module.name} did not produce its output "${name}"`);
    }
    return produced;
  };

  try {
    for (const step of def.steps) {
      // Steps are created in any order: a step awaits the outputs it references when it resolves them.
      outputs.set(
        step.id,
        Promise.resolve().then(() => runStep(step)),
      );
    }
    // Wait for every step to end (no process outlives the job), remembering the first failure.
    let failure: { error: unknown } | undefined;
    await Promise.allSettled(
      [...outputs.values()].map((p) =>
        p.catch((error: unknown) => {
          failure ??= { error };
          controller.abort(error);
        }),
      ),
    );
    if (env.signal.aborted) throw env.signal.reason;
    if (failure) throw failure.error;

    const result: JobResult = {};
    for (const [key, value] of Object.entries(def.outputs)) {
      const ref = parseReference(value);
      if (!ref || ref === "malformed" || ref.kind !== "step") continue;
      const step = def.steps.find((s) => s.id === ref.step) as StepDefinition;
      const port = (modules.get(step.module) as Module).outputs[ref.output];
      const produced = (await outputs.get(ref.step))?.[ref.output];
      if (port && isFileType(port.type)) {
        const file = String(produced);
        result[key] = await env.storeFile(`${key}${path.extname(file)}`, file, contentTypeOf(file));
      } else {
        result[key] = { value: produced };
      }
    }
    return result;
  } finally {
    env.signal.removeEventListener("abort", stopOnJobAbort);
  }
}
