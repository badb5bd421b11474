import { parseReference } from "../engine/references.ts";
import type { Module, WorkflowDefinition } from "../engine/types.ts";

const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);

/**
 * What a workflow's params default to when a job leaves them out: not only the input schema's own defaults (often
 * there are none) but the default of the module param each one feeds, which is what the engine then fills in. A
 * param feeding several steps has one only when all of them agree.
 */
export function impliedDefaults(definition: WorkflowDefinition, modules: Map<string, Module>): Map<string, unknown> {
  const fed = new Map<string, unknown[]>();
  const note = (value: unknown, fallback: unknown) => {
    const ref = parseReference(value);
    if (!ref || ref === "malformed" || ref.kind !== "param") return;
    fed.set(ref.name, [...(fed.get(ref.name) ?? []), fallback]);
  };
  for (const step of definition.steps) {
    const properties = (modules.get(step.module)?.params.properties ?? {}) as Record<string, Record<string, unknown>>;
    for (const [key, value] of Object.entries(step.params ?? {})) note(value, properties[key]?.default);
    // An input port has no default: a param feeding one is needed as given.
    for (const value of Object.values(step.inputs ?? {})) note(value, undefined);
  }
  const defaults = new Map<string, unknown>();
  for (const [name, values] of fed) {
    const [first] = values;
    if (first !== undefined && values.every((value) => value !== undefined && same(value, first)))
      defaults.set(name, first);
  }
  return defaults;
}
