import pg from "pg";

/**
 * Calls `onNotify` with the payload of each NOTIFY on `channel`, over a connection of its own (a LISTEN holds its
 * connection). When the connection fails or drops, it says so through `onError` and connects again every `retryMs`;
 * once back it calls `onNotify` once without a payload, for what it may have missed meanwhile. `onListening` is
 * called each time the LISTEN is in place. Returns a function that stops listening.
 */
export function listen(
  connectionString: string,
  channel: string,
  onNotify: (payload?: string) => void,
  onError: (error: Error) => void,
  retryMs = 1000,
  onListening?: () => void,
): () => Promise<void> {
  let client: pg.Client | undefined;
  let retry: NodeJS.Timeout | undefined;
  let stopped = false;

  const scheduleRetry = () => {
    if (!stopped && !retry) retry = setTimeout(() => void connect(true), retryMs);
  };
  const connect = async (missed: boolean) => {
    retry = undefined;
    const next = new pg.Client({ connectionString, keepAlive: true });
    let lost = false;
    const lose = (error: Error) => {
      if (lost) return;
      lost = true;
      if (client === next) client = undefined;
      next.end().catch(() => undefined);
      if (!stopped) onError(error);
      scheduleRetry();
    };
    next.on("notification", (message) => message.channel === channel && onNotify(message.payload));
    next.on("error", lose);
    next.on("end", () => lose(new Error("the connection ended")));
    try {
      await next.connect();
      await next.query(`LISTEN ${next.escapeIdentifier(channel)}`);
    } catch (error) {
      lose(error as Error);
      return;
    }
    if (stopped) {
      lost = true;
      await next.end().catch(() => undefined);
      return;
    }
    client = next;
    onListening?.();
    if (missed) onNotify();
  };

  void connect(false);
  return async () => {
    stopped = true;
    clearTimeout(retry);
    const current = client;
    client = undefined;
    await current?.end().catch(() => undefined);
  };
}
