import { Ajv2020 } from "ajv/dist/2020.js";
import addFormats from "ajv-formats";
import { parseReference } from "./references.ts";
import { type DefinitionError, isFileType, type Module, type PortType, type WorkflowDefinition } from "./types.ts";

const ajv = new Ajv2020({ allErrors: true, strict: false });
(addFormats as unknown as (a: Ajv2020) => void)(ajv);

const ID = "^[A-Za-z_][\\w-]*$";
const definitionShape = ajv.compile({
  type: "object",
  required: ["slug", "name", "description", "inputSchema", "steps", "outputs"],
  additionalProperties: false,
  properties: {
    slug: { type: "string", pattern: "^[a-z0-9][a-z0-9._-]*(/[a-z0-9][a-z0-9._-]*)?$", maxLength: 200 },
    name: { type: "string", minLength: 1 },
    description: { type: "string" },
    inputSchema: { type: "object" },
    steps: {
      type: "array",
      minItems: 1,
      items: {
        type: "object",
        required: ["id", "module"],
        additionalProperties: false,
        properties: {
          id: { type: "string", pattern: ID },
          module: { type: "string" },
          params: { type: "object" },
          inputs: { type: "object" },
        },
      },
    },
    outputs: { type: "object", minProperties: 1, additionalProperties: { type: "string" } },
  },
});

/** The port type a job param supplies, from its JSON Schema. */
function paramType(schema: Record<string, unknown> | undefined): PortType | undefined {
  if (!schema) return undefined;
  const declared = [schema.type].flat()[0] ?? (Array.isArray(schema.enum) ? typeof schema.enum[0] : undefined);
  if (declared === "integer" || declared === "number") return "number";
  if (declared === "string" || declared === "boolean" || declared === "object") return declared;
  if (declared === "array") return "object";
  return undefined;
}

const article = (word: string) => (/^[aeiou]/.test(word) ? `an ${word}` : `a ${word}`);
const describe = (type: PortType) => article(isFileType(type) ? `${type} file` : type);

/** "steps.1.params" → "steps[1].params" (ajv paths in the style of the other errors). */
const fieldOf = (instancePath: string) =>
  instancePath
    .replace(/^\//, "")
    .replaceAll("/", ".")
    .replace(/^steps\.(\d+)/, "steps[$1]");

/** Every error in a definition, each naming where it is; empty when the definition is sound. */
export function validateDefinition(raw: unknown, modules: Map<string, Module>): DefinitionError[] {
  if (!definitionShape(raw)) {
    return (definitionShape.errors ?? []).map((e) => {
      const field = fieldOf(e.instancePath);
      if (e.keyword === "additionalProperties") {
        return {
          field: [field, e.params.additionalProperty].filter(Boolean).join("."),
          message: "is not a known field",
        };
      }
      const message =
        e.keyword === "required" ? `must have "${e.params.missingProperty}"` : (e.message ?? "is invalid");
      return { field: field || "definition", message };
    });
  }
  const def = raw as WorkflowDefinition;
  const errors: DefinitionError[] = [];
  const error = (field: string, message: string) => errors.push({ field, message });

  const schemaValid = ajv.validateSchema(def.inputSchema);
  if (!schemaValid) {
    const reason = (ajv.errors ?? []).map((e) => `${e.instancePath || "/"} ${e.message}`).join("; ");
    error("inputSchema", `is not a valid JSON Schema: ${reason}`);
  } else {
    try {
      ajv.compile(def.inputSchema);
    } catch (e) {
      error("inputSchema", `is not a valid JSON Schema: ${(e as Error).message}`);
    }
  }
  const jobParams = (def.inputSchema.properties ?? {}) as Record<string, Record<string, unknown>>;

  const steps = new Map<string, Module | undefined>();
  def.steps.forEach((step, i) => {
    if (steps.has(step.id)) error(`steps[${i}].id`, `duplicate step id "${step.id}"`);
    else steps.set(step.id, modules.get(step.module));
  });
  const edges = new Map<string, string[]>();

  def.steps.forEach((step, i) => {
    const at = `steps[${i}]`;
    const module = modules.get(step.module);
    if (!module) {
      error(`${at}.module`, `unknown module "${step.module}"; known: ${[...modules.keys()].sort().join(", ")}`);
      return;
    }
    // Params: literals are checked against the module's schema; $params references must exist.
    const literalParams: Record<string, unknown> = {};
    const referenced = new Set<string>();
    const paramSchemas = (module.params.properties ?? {}) as Record<string, Record<string, unknown>>;
    for (const [name, value] of Object.entries(step.params ?? {})) {
      const ref = parseReference(value);
      const field = `${at}.params.${name}`;
      if (ref === undefined) {
        literalParams[name] = value;
        continue;
      }
      referenced.add(name); // reported here, not again as missing
      if (ref === "malformed") error(field, `malformed reference "${value}"`);
      else if (ref.kind === "step")
        error(field, "params may reference job params only; connect step outputs to inputs");
      else if (!jobParams[ref.name]) {
        error(field, `references job param "${ref.name}", which the input schema does not define`);
      } else if (!paramSchemas[name]) {
        error(
          field,
          `module "${module.name}" has no param "${name}"; its params: ${Object.keys(paramSchemas).join(", ")}`,
        );
      } else {
        const expected = paramType(paramSchemas[name]);
        const supplied = paramType(jobParams[ref.name]);
        if (expected && supplied && expected !== supplied) {
          error(
            field,
            `type mismatch: param expects ${article(expected)} but job param "${ref.name}" is ${article(supplied)}`,
          );
        }
      }
    }
    const paramsSchema = {
      ...module.params,
      required: ((module.params.required ?? []) as string[]).filter((r) => !referenced.has(r)),
    };
    const validateParams = ajv.compile(paramsSchema);
    if (!validateParams(literalParams)) {
      for (const e of validateParams.errors ?? []) {
        const field = `${at}.params${e.instancePath.replaceAll("/", ".")}`;
        if (e.keyword === "additionalProperties") {
          const name = String(e.params.additionalProperty);
          error(
            `${field}.${name}`,
            `module "${module.name}" has no param "${name}"; its params: ${Object.keys(paramSchemas).join(", ")}`,
          );
        } else if (e.keyword === "required") {
          error(field, `invalid params for module "${module.name}": must have "${e.params.missingProperty}"`);
        } else {
          error(field, `invalid params for module "${module.name}": ${e.message}`);
        }
      }
    }
    // Inputs: known ports, required ones connected, references resolvable and of the right type.
    const inputs = step.inputs ?? {};
    for (const name of Object.keys(inputs)) {
      if (!module.inputs[name]) {
        error(
          `${at}.inputs.${name}`,
          `module "${module.name}" has no input "${name}"; its inputs: ${Object.keys(module.inputs).join(", ")}`,
        );
      }
    }
    const dependsOn: string[] = [];
    for (const [name, port] of Object.entries(module.inputs)) {
      const field = `${at}.inputs.${name}`;
      if (!(name in inputs)) {
        if (!port.optional) error(field, `required input of module "${module.name}" is not connected`);
        continue;
      }
      const ref = parseReference(inputs[name]);
      let supplied: PortType | undefined;
      if (ref === "malformed") {
        error(field, `malformed reference "${inputs[name]}"`);
        continue;
      } else if (ref === undefined) {
        if (isFileType(port.type)) {
          error(field, `expects ${describe(port.type)}, which only a step output can supply`);
          continue;
        }
        supplied = paramType({ type: Array.isArray(inputs[name]) ? "array" : typeof inputs[name] });
      } else if (ref.kind === "param") {
        if (!jobParams[ref.name]) {
          error(field, `references job param "${ref.name}", which the input schema does not define`);
          continue;
        }
        supplied = paramType(jobParams[ref.name]);
      } else {
        if (!steps.has(ref.step)) {
          error(field, `references unknown step "${ref.step}"`);
          continue;
        }
        dependsOn.push(ref.step);
        const source = steps.get(ref.step);
        if (!source) continue; // its unknown module is reported on its own step
        const output = source.outputs[ref.output];
        if (!output) {
          error(
            field,
            `step "${ref.step}" (module "${source.name}") has no output "${ref.output}"; its outputs: ${Object.keys(source.outputs).join(", ")}`,
          );
          continue;
        }
        supplied = output.type;
      }
      if (supplied !== undefined && supplied !== port.type) {
        error(
          field,
          `type mismatch: input expects ${describe(port.type)} but ${String(inputs[name])} is ${describe(supplied)}`,
        );
      }
    }
    edges.set(step.id, dependsOn);
  });

  for (const cycle of findCycles(edges)) error("steps", `cycle between steps: ${cycle.join(" → ")}`);

  for (const [key, value] of Object.entries(def.outputs)) {
    const ref = parseReference(value);
    if (!ref || ref === "malformed" || ref.kind !== "step") {
      error(`outputs.${key}`, `must reference a step output ("$steps.STEP.OUTPUT"), got "${value}"`);
    } else if (!steps.has(ref.step)) {
      error(`outputs.${key}`, `references unknown step "${ref.step}"`);
    } else {
      const source = steps.get(ref.step);
      if (source && !source.outputs[ref.output]) {
        error(`outputs.${key}`, `step "${ref.step}" (module "${source.name}") has no output "${ref.output}"`);
      }
    }
  }
  return errors;
}

/** Each cycle once, as the list of step ids around it (first id repeated at the end). */
function findCycles(edges: Map<string, string[]>): string[][] {
  const cycles: string[][] = [];
  const state = new Map<string, "visiting" | "done">();
  const stack: string[] = [];
  const visit = (id: string) => {
    state.set(id, "visiting");
    stack.push(id);
    for (const next of edges.get(id) ?? []) {
      if (state.get(next) === "visiting") cycles.push([...stack.slice(stack.indexOf(next)), next]);
      else if (!state.has(next) && edges.has(next)) visit(next);
    }
    stack.pop();
    state.set(id, "done");
  };
  for (const id of edges.keys()) if (!state.has(id)) visit(id);
  return cycles;
}
