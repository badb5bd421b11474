import { execFileSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";

/** A `node` of the machine's own: the folder it is in, and its major version. */
export interface MachineNode {
  dir: string;
  major: number;
}

/**
 * The first `node` on PATH outside any node_modules (not the npm package `node` this project runs on: what a user's
 * shell or a fresh machine has) that runs and that `accept`s, if any.
 */
export function machineNode(accept: (node: MachineNode) => boolean = () => true): MachineNode | undefined {
  for (const dir of (process.env.PATH ?? "").split(path.delimiter)) {
    const candidate = path.join(dir, "node");
    if (dir.includes("node_modules") || !fs.existsSync(candidate)) continue;
    try {
      const major = Number(
        execFileSync(candidate, ["-p", "process.versions.node.split('.')[0]"], { encoding: "utf8" }),
      );
      if (accept({ dir, major })) return { dir, major };
    } catch {}
  }
  return undefined;
}
