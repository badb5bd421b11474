import { setTimeout as delay } from "node:timers/promises";

/** Asks `probe` every 100 ms until it gives a value, and returns it; throws, naming `what`, after `timeoutMs`. */
export async function waitFor<T>(
  what: string,
  probe: () => Promise<T | undefined> | T | undefined,
  timeoutMs = 60_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const value = await probe();
    if (value !== undefined) return value;
    await delay(100);
  }
  throw new Error(`timed out waiting for ${what}`);
}
