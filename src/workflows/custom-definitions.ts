import { createHash } from "node:crypto";
import type { CustomWorkflowDefinition, WorkflowRecord } from "../domain.ts";
import type { DefinitionError, Module } from "../engine/types.ts";
import { type DefinitionFormat, definitionHash, parseDefinition } from "./load-definition.ts";
import { checkDefinition } from "./registry.ts";

/** What `workflow validate` reports for a custom definition's text: its slug if it has one, and every error. */
export function checkDefinitionText(
  text: string,
  format: DefinitionFormat,
  modules: Map<string, Module>,
): { slug: string | undefined; errors: DefinitionError[] } {
  const { raw, errors } = parseDefinition(text, format);
  if (errors.length > 0) return { slug: undefined, errors };
  const slug = (raw as { slug?: unknown })?.slug;
  return { slug: typeof slug === "string" ? slug : undefined, errors: checkDefinition(raw, modules, false) };
}

/** A stable UUID-shaped id for a workflow slug. */
export function workflowId(slug: string): string {
  const hex = createHash("sha256").update(`mixdown-workflow:${slug}`).digest("hex");
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-5${hex.slice(13, 16)}-a${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}

/** A workflow's record (what GET /workflow lists) as its definition says. */
export function workflowRecord(
  slug: string,
  raw: unknown,
  hash: string,
): Omit<WorkflowRecord, "createdAt" | "updatedAt"> {
  const { name, description } = (raw ?? {}) as { name?: unknown; description?: unknown };
  return {
    id: workflowId(slug),
    slug,
    name: typeof name === "string" ? name : slug,
    description: typeof description === "string" ? description : "",
    definitionHash: hash,
  };
}

/**
 * A definition's text as the metadata store keeps it, with its record; undefined when it has no slug (it does not
 * parse, or is not a definition at all). Definitions with errors are kept too: they are listed with their errors.
 */
export function toStored(
  text: string,
  format: DefinitionFormat,
  changedAt: string,
): { definition: CustomWorkflowDefinition; record: Omit<WorkflowRecord, "createdAt" | "updatedAt"> } | undefined {
  const { raw, errors } = parseDefinition(text, format);
  const slug = (raw as { slug?: unknown })?.slug;
  if (errors.length > 0 || typeof slug !== "string") return undefined;
  const hash = definitionHash(raw);
  return {
    definition: { slug, format, source: text, definition: raw, hash, changedAt },
    record: workflowRecord(slug, raw, hash),
  };
}
