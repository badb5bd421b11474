import type { ErrorDetail } from "./errors.ts";

/** One violation as ajv reports it. */
export interface SchemaIssue {
  keyword: string;
  instancePath: string;
  params: Record<string, unknown>;
  message?: string;
}

/** A field-level description of one JSON Schema violation; `root` prefixes the field ("params"). */
export function describeIssue(issue: SchemaIssue, root = ""): ErrorDetail {
  const path = issue.instancePath.split("/").filter(Boolean);
  if (issue.keyword === "required") path.push(String(issue.params.missingProperty));
  if (issue.keyword === "additionalProperties") path.push(String(issue.params.additionalProperty));
  const field = [root, ...path].filter(Boolean).join(".") || "body";
  const messages: Record<string, () => string> = {
    required: () => "is required",
    additionalProperties: () => "is not a known field",
    type: () => `must be of type ${[issue.params.type].flat().join(" or ")}`,
    enum: () => `must be one of ${(issue.params.allowedValues as unknown[]).map(String).join(", ")}`,
  };
  return { field, message: messages[issue.keyword]?.() ?? issue.message ?? "is invalid" };
}

/** Details for a list of violations, without the "must match then schema" echoes of if/then. */
export const describeIssues = (issues: SchemaIssue[], root = ""): ErrorDetail[] =>
  issues.filter((issue) => issue.keyword !== "if").map((issue) => describeIssue(issue, root));
