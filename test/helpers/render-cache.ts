/**
 * A cache of rendered test material shared by processes (the rendered corpus, test/corpus/corpus.ts, and the
 * family material, test/families/cache.ts): one directory under the system's temp folder per version of what
 * the material depends on, each item rendered once into a scratch directory and renamed into place under a lock,
 * and other versions' directories removed when unused for a while.
 */
import fs from "node:fs";
import fsp from "node:fs/promises";
import os from "node:os";
import path from "node:path";

/** The cache directory `<tmp>/<prefix><first 12 hex digits of the hash>`. */
export const cacheDirOf = (prefix: string, hash: string): string =>
  path.join(os.tmpdir(), `${prefix}${hash.slice(0, 12)}`);

/** Touches `root`'s use mark and deletes the other `prefix` directories whose mark is older than `staleMs`. */
export async function markUsedAndPrune(root: string, prefix: string, staleMs: number): Promise<void> {
  const now = new Date();
  await fsp.writeFile(path.join(root, ".used"), "");
  await fsp.utimes(path.join(root, ".used"), now, now);
  for (const name of await fsp.readdir(os.tmpdir())) {
    const dir = path.join(os.tmpdir(), name);
    if (!name.startsWith(prefix) || dir === root || name.includes(".")) continue;
    // Another process may be deleting it too: a directory that vanished meanwhile is simply skipped.
    const used =
      fs.statSync(path.join(dir, ".used"), { throwIfNoEntry: false }) ?? fs.statSync(dir, { throwIfNoEntry: false });
    if (used && now.getTime() - used.mtimeMs > staleMs) await fsp.rm(dir, { recursive: true, force: true });
  }
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Makes `dir` exist, rendering it once: `render` writes into a scratch directory, renamed to `dir` when done, while
 * `<dir>.lock` keeps other processes waiting (polling every `pollMs`); a lock older than `staleLockMs` was left by
 * a killed process and is taken over.
 */
export async function renderOnce(
  dir: string,
  render: (scratch: string) => Promise<void>,
  { staleLockMs, pollMs }: { staleLockMs: number; pollMs: number },
): Promise<void> {
  const lock = `${dir}.lock`;
  while (!fs.existsSync(dir)) {
    try {
      await fsp.mkdir(lock);
    } catch {
      const age = Date.now() - (fs.statSync(lock, { throwIfNoEntry: false })?.mtimeMs ?? Date.now());
      if (age > staleLockMs) await fsp.rm(lock, { recursive: true, force: true });
      else await sleep(pollMs);
      continue;
    }
    try {
      if (fs.existsSync(dir)) break;
      const scratch = `${dir}.tmp-${process.pid}`;
      await fsp.rm(scratch, { recursive: true, force: true });
      await render(scratch);
      await fsp.rename(scratch, dir);
    } finally {
      await fsp.rm(lock, { recursive: true, force: true });
    }
  }
}
