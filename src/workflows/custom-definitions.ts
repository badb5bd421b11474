import fs from "node:fs";
import path from "node:path";
import type { DefinitionError, Module } from "../engine/types.ts";
import { DEFINITION_EXTENSIONS, type DefinitionFormat, parseDefinition } from "./load-definition.ts";
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

/** File name of a custom workflow in the workflows dir ("acme/mix" → "acme~mix.json"; "~" is not allowed in slugs). */
const fileNameFor = (slug: string, extension: string) => `${slug.replaceAll("/", "~")}${extension}`;

/**
 * Installs a (valid) definition's text as the workflow `slug` in `dir`, replacing its previous file in any
 * format; written to a temporary file and renamed, so a server rescanning the directory never reads half a file.
 * Returns the file written.
 */
export function installDefinition(dir: string, slug: string, text: string, extension: string): string {
  if (!DEFINITION_EXTENSIONS.includes(extension)) throw new Error(`unknown definition extension "${extension}"`);
  fs.mkdirSync(dir, { recursive: true });
  const destination = path.join(dir, fileNameFor(slug, extension));
  const temporary = `${destination}.tmp-${process.pid}`;
  fs.writeFileSync(temporary, text);
  for (const ext of DEFINITION_EXTENSIONS) {
    if (ext !== extension) fs.rmSync(path.join(dir, fileNameFor(slug, ext)), { force: true });
  }
  fs.renameSync(temporary, destination);
  return destination;
}
