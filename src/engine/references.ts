import type { Reference } from "./types.ts";

const PARAM = /^\$params\.([A-Za-z_][\w-]*)$/;
const STEP = /^\$steps\.([A-Za-z_][\w-]*)\.([A-Za-z_][\w-]*)$/;

/** A reference if the value is a string of the form $params.X or $steps.S.O; "$$…" escapes a literal "$…". */
export function parseReference(value: unknown): Reference | "malformed" | undefined {
  if (typeof value !== "string" || !value.startsWith("$") || value.startsWith("$$")) return undefined;
  const param = PARAM.exec(value);
  if (param?.[1]) return { kind: "param", name: param[1] };
  const step = STEP.exec(value);
  if (step?.[1] && step[2]) return { kind: "step", step: step[1], output: step[2] };
  return "malformed";
}

/** A literal value as written, with the "$$" escape undone. */
export const literal = (value: unknown): unknown =>
  typeof value === "string" && value.startsWith("$$") ? value.slice(1) : value;
