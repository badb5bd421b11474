import fs from "node:fs";
import { setTimeout as delay } from "node:timers/promises";

/** Ids of this machine's live processes whose command line contains every one of `texts` (from /proc). */
export function processesMatching(...texts: string[]): number[] {
  const pids: number[] = [];
  for (const entry of fs.readdirSync("/proc")) {
    if (!/^\d+$/.test(entry) || Number(entry) === process.pid) continue;
    try {
      const cmdline = fs.readFileSync(`/proc/${entry}/cmdline`, "utf8").replaceAll("\0", " ");
      const state = fs.readFileSync(`/proc/${entry}/stat`, "utf8").split(") ")[1]?.[0];
      if (texts.every((text) => cmdline.includes(text)) && state !== "Z") pids.push(Number(entry));
    } catch {
      // The process ended while we looked.
    }
  }
  return pids;
}

/** Waits (bounded) until `check` gives a non-empty answer, and returns it; throws with `what` if it never does. */
export async function waitFor<T>(what: string, check: () => T | undefined, timeoutMs = 60_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = check();
    if (value !== undefined && !(Array.isArray(value) && value.length === 0)) return value;
    if (Date.now() > deadline) throw new Error(`${what}: not seen within ${timeoutMs} ms`);
    await delay(50);
  }
}
