import { parseReference } from "../engine/references.ts";
import type { StepDefinition } from "../engine/types.ts";

/** How a param is asked for: a file (upload or URL), a choice, a number, yes/no, JSON, or text. */
export type FieldKind = "file" | "choice" | "number" | "integer" | "boolean" | "json" | "text";

/** One form field generated from a property of a workflow's input schema. */
export interface Field {
  name: string;
  kind: FieldKind;
  required: boolean;
  description: string;
  /** The default, as the form shows it ("" when there is none): the schema's own, else the module's it feeds. */
  defaultText: string;
  /**
   * True when the default is the module's (the input schema names none): the engine fills it in when the param is
   * left out, so a form value equal to it is left out too and the job's params stay as an API client's would.
   */
  impliedDefault: boolean;
  /** For choices: each option's form value and the JSON value it stands for. */
  options: { text: string; value: unknown }[];
  minimum: number | undefined;
  maximum: number | undefined;
}

type Schema = Record<string, unknown>;

const typeOf = (schema: Schema): string | undefined =>
  [schema.type].flat().find((t): t is string => typeof t === "string" && t !== "null");

const asText = (value: unknown): string =>
  value === undefined ? "" : typeof value === "string" ? value : JSON.stringify(value);

/** The params a workflow fetches as its input files ($params.X feeding a fetch step's url). */
export function fileParams(steps: StepDefinition[]): Set<string> {
  const names = new Set<string>();
  for (const step of steps) {
    if (step.module !== "fetch") continue;
    const ref = parseReference(step.inputs?.url);
    if (ref && ref !== "malformed" && ref.kind === "param") names.add(ref.name);
  }
  return names;
}

/**
 * The form fields of an input schema's properties, in the schema's order (required ones first); `implied` holds the
 * defaults params take from the modules they feed (see impliedDefaults).
 */
export function fieldsOf(inputSchema: Schema, files: Set<string>, implied = new Map<string, unknown>()): Field[] {
  const properties = (inputSchema.properties ?? {}) as Record<string, Schema>;
  const required = new Set(Array.isArray(inputSchema.required) ? inputSchema.required.map(String) : []);
  const fields = Object.entries(properties).map(([name, schema]): Field => {
    const type = typeOf(schema);
    const choices = Array.isArray(schema.enum) ? schema.enum : type === "boolean" ? [true, false] : undefined;
    const kind: FieldKind = files.has(name)
      ? "file"
      : choices
        ? type === "boolean"
          ? "boolean"
          : "choice"
        : type === "number" || type === "integer"
          ? type
          : type === "object" || type === "array"
            ? "json"
            : "text";
    return {
      name,
      kind,
      required: required.has(name),
      description: typeof schema.description === "string" ? schema.description : "",
      defaultText: asText(schema.default ?? implied.get(name)),
      impliedDefault: schema.default === undefined && implied.has(name),
      options: (choices ?? []).map((value) => ({ text: asText(value), value })),
      minimum: typeof schema.minimum === "number" ? schema.minimum : undefined,
      maximum: typeof schema.maximum === "number" ? schema.maximum : undefined,
    };
  });
  return [...fields.filter((f) => f.required), ...fields.filter((f) => !f.required)];
}

const NUMBER = /^[-+]?(\d+\.?\d*|\.\d+)(e[-+]?\d+)?$/i;

/**
 * The job params from the submitted form values. A blank field is left out; a value that is not of the
 * field's type is passed on as text, so the API's own validation names the problem in its own words.
 */
export function paramsFrom(fields: Field[], values: Record<string, string>): Record<string, unknown> {
  const params: Record<string, unknown> = {};
  for (const field of fields) {
    const raw = values[field.name] ?? "";
    if (raw.trim() === "") continue;
    if (field.impliedDefault && !field.required && raw.trim() === field.defaultText) continue;
    params[field.name] = parseValue(field, field.kind === "json" || field.kind === "text" ? raw : raw.trim());
  }
  return params;
}

function parseValue(field: Field, raw: string): unknown {
  switch (field.kind) {
    case "choice":
    case "boolean":
      return field.options.find((option) => option.text === raw)?.value ?? raw;
    case "number":
    case "integer":
      return NUMBER.test(raw) ? Number(raw) : raw;
    case "json":
      try {
        return JSON.parse(raw);
      } catch {
        return raw;
      }
    default:
      return raw;
  }
}
