import fs from "node:fs";
import path from "node:path";
import { parse as parseYaml } from "yaml";
import type { DefinitionError } from "../engine/types.ts";

export const DEFINITION_EXTENSIONS = [".json", ".yaml", ".yml"];

/** Reads a definition file (JSON or YAML); the parse error, if any, as a definition error. */
export function loadDefinitionFile(file: string): { raw: unknown; errors: DefinitionError[] } {
  let text: string;
  try {
    text = fs.readFileSync(file, "utf8");
  } catch (error) {
    return { raw: undefined, errors: [{ field: "file", message: `cannot be read: ${(error as Error).message}` }] };
  }
  try {
    const raw = path.extname(file) === ".json" ? JSON.parse(text) : parseYaml(text);
    return { raw, errors: [] };
  } catch (error) {
    return {
      raw: undefined,
      errors: [
        {
          field: "file",
          message: `is not valid ${path.extname(file).slice(1).toUpperCase()}: ${(error as Error).message}`,
        },
      ],
    };
  }
}
