import { createHash } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { parse as parseYaml } from "yaml";
import type { DefinitionError } from "../engine/types.ts";

export const DEFINITION_EXTENSIONS = [".json", ".yaml", ".yml"];

export type DefinitionFormat = "json" | "yaml";

/** The format of a definition file by its extension (.json, or .yaml/.yml). */
export const formatOf = (file: string): DefinitionFormat => (path.extname(file) === ".json" ? "json" : "yaml");

/** Changes whenever a parsed definition does (drives updatedAt); layout and comments do not count. */
export const definitionHash = (raw: unknown) => createHash("sha256").update(JSON.stringify(raw)).digest("hex");

/** Parses a definition's text; the parse error, if any, as a definition error. */
export function parseDefinition(text: string, format: DefinitionFormat): { raw: unknown; errors: DefinitionError[] } {
  try {
    return { raw: format === "json" ? JSON.parse(text) : parseYaml(text), errors: [] };
  } catch (error) {
    const message = `is not valid ${format.toUpperCase()}: ${(error as Error).message}`;
    return { raw: undefined, errors: [{ field: "file", message }] };
  }
}

/** Reads a definition file (JSON or YAML); the parse error, if any, as a definition error. */
export function loadDefinitionFile(file: string): { raw: unknown; errors: DefinitionError[] } {
  let text: string;
  try {
    text = fs.readFileSync(file, "utf8");
  } catch (error) {
    return { raw: undefined, errors: [{ field: "file", message: `cannot be read: ${(error as Error).message}` }] };
  }
  return parseDefinition(text, formatOf(file));
}
