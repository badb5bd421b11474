import fs from "node:fs";
import path from "node:path";
import type { MetadataStore } from "../store/metadata-store.ts";
import { toStored } from "./custom-definitions.ts";
import { DEFINITION_EXTENSIONS, formatOf } from "./load-definition.ts";
import { RESERVED_PREFIX } from "./registry.ts";

const RESCAN_MS = 1000;

type Store = Pick<MetadataStore, "putCustomWorkflow" | "customWorkflowChangedAt">;

/**
 * A node's MIXDOWN_WORKFLOWS_DIR as a way to bring definitions: a file there is saved into the metadata store (for
 * every node) when the node starts or sees it appear or change, unless the store's definition of its slug was saved
 * or removed after the file was last modified (the newer wins). Deleting a file removes nothing: nodes do not share
 * directories, so a file missing on one node says nothing about the others.
 */
export class WorkflowsDirectory {
  readonly dir: string;
  private readonly store: Store;
  /** File name → "mtime:size" of what was last looked at. */
  private readonly seen = new Map<string, string>();
  private scannedAt = 0;
  private scanning: Promise<void> | undefined;

  constructor(dir: string, store: Store) {
    this.dir = dir;
    this.store = store;
  }

  /** Saves new and changed files (looking at most once a second unless `force`). */
  async scan(force = false): Promise<void> {
    if (!force && Date.now() - this.scannedAt < RESCAN_MS && !this.scanning) return;
    if (!this.scanning) {
      this.scannedAt = Date.now();
      this.scanning = this.importChanged().finally(() => {
        this.scanning = undefined;
      });
    }
    await this.scanning;
  }

  private async importChanged(): Promise<void> {
    if (!fs.existsSync(this.dir)) return;
    for (const file of fs.readdirSync(this.dir).sort()) {
      if (!DEFINITION_EXTENSIONS.includes(path.extname(file))) continue;
      const full = path.join(this.dir, file);
      const stat = fs.statSync(full, { throwIfNoEntry: false });
      if (!stat?.isFile()) continue;
      const stamp = `${stat.mtimeMs}:${stat.size}`;
      if (this.seen.get(file) === stamp) continue;
      let text: string;
      try {
        text = fs.readFileSync(full, "utf8");
      } catch {
        continue; // gone meanwhile
      }
      const stored = toStored(text, formatOf(file), new Date().toISOString());
      // Not a definition, or one that cannot be a custom workflow: `workflow validate FILE` explains.
      if (stored && !stored.definition.slug.startsWith(RESERVED_PREFIX)) {
        const changedAt = await this.store.customWorkflowChangedAt(stored.definition.slug);
        if (changedAt === undefined || Date.parse(changedAt) < stat.mtimeMs) {
          await this.store.putCustomWorkflow(stored.definition, stored.record);
        }
      }
      this.seen.set(file, stamp);
    }
  }
}
