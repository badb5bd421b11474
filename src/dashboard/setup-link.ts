import type { FastifyBaseLogger, FastifyRequest } from "fastify";
import type { Runtime } from "../runtime.ts";
import { SETUP_LINK_TTL_MS } from "../services/operators.ts";

/**
 * Writes plain words for a person at a terminal: to stderr when it is one, else to stdout when that is one.
 * Nothing when neither is (a pipe, a file, a service manager: the JSON log lines say it there) or logs are off.
 */
export function tellTerminal(runtime: Pick<Runtime, "config">, text: string): void {
  if (runtime.config.logLevel === "silent") return;
  const stream = process.stderr.isTTY ? process.stderr : process.stdout.isTTY ? process.stdout : undefined;
  stream?.write(text);
}

/**
 * With no operator yet, announces a one-time link that creates the first one in the browser, so `npm start`
 * alone leads a newcomer in: a log line (level warn, so it shows unless logs are off), and on a terminal
 * the same in plain words.
 */
export async function announceSetupLink(runtime: Runtime, log: FastifyBaseLogger): Promise<void> {
  const token = await runtime.operators.createSetupToken();
  if (!token) return;
  const setupUrl = `${runtime.config.publicUrl}/dashboard/setup/${token}`;
  const minutes = SETUP_LINK_TTL_MS / 60_000;
  log.warn(
    { setupUrl, expiresAt: new Date(Date.now() + SETUP_LINK_TTL_MS).toISOString() },
    `No dashboard operator yet: open setupUrl within ${minutes} minutes to create the first one (it works once), or run: bin/mixdown user add NAME`,
  );
  tellTerminal(
    runtime,
    `\nNo dashboard operator yet. Open this link within ${minutes} minutes to create the first one (it works once):\n  ${setupUrl}\nOr run: bin/mixdown user add NAME\n\n`,
  );
}

/** The setup link's path, whose last part is the token itself. */
const SETUP_PATH = /^(\/dashboard\/setup\/)[^/?#]+/;

/**
 * A request as the request log shows it (Fastify's default fields), with a setup link's token replaced: whoever
 * reads the logs could otherwise create the first operator while the link is valid.
 */
export function loggedRequest(request: FastifyRequest) {
  return {
    method: request.method,
    url: request.url.replace(SETUP_PATH, "$1[redacted]"),
    version: request.headers?.["accept-version"] as string | undefined,
    host: request.host,
    remoteAddress: request.ip,
    remotePort: request.socket?.remotePort,
  };
}
