import fs from "node:fs";
import path from "node:path";

/** The full path of an executable on PATH, or undefined (a cheap check: nothing is run). */
export function which(name: string): string | undefined {
  for (const dir of (process.env.PATH ?? "").split(path.delimiter)) {
    if (!dir) continue;
    const candidate = path.join(dir, name);
    try {
      fs.accessSync(candidate, fs.constants.X_OK);
      return candidate;
    } catch {}
  }
  return undefined;
}
