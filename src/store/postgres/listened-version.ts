import { listen } from "./listen.ts";

/**
 * A token that changes with every NOTIFY on `channel` (what a cache compares to know it may be stale). It listens
 * from the first read on (processes that never read it, such as the CLI, open no connection for it). While the
 * LISTEN is not in place (not yet, or its connection was lost) nothing would be heard: the token then differs at
 * every read, so the cache checks each time.
 */
export function listenedVersion(
  connectionString: string,
  channel: string,
  onError: (error: Error) => void,
): { read(): string; close(): Promise<void> } {
  let heard = 0;
  let listening = false;
  let stop: (() => Promise<void>) | undefined;
  return {
    read() {
      stop ??= listen(
        connectionString,
        channel,
        () => heard++,
        (error) => {
          listening = false;
          onError(error);
        },
        1000,
        () => {
          listening = true;
          heard++; // what changed before the LISTEN was in place is looked at once more
        },
      );
      return listening ? String(heard) : `unheard:${performance.now()}`;
    },
    async close() {
      await stop?.();
    },
  };
}
