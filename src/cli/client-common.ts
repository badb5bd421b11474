import { type ParseArgsConfig, parseArgs } from "node:util";
import { MixdownClient } from "../../sdk/src/index.ts";
import { UsageError } from "./app-commands.ts";
import { checkReachable } from "./client-reach.ts";

/** Options every client command takes. */
export const COMMON_OPTIONS = {
  url: { type: "string" },
  "api-key": { type: "string" },
  json: { type: "boolean", default: false },
  help: { type: "boolean", short: "h", default: false },
} as const satisfies ParseArgsConfig["options"];

export const CONNECTION_HELP = `Connection (every client command):
  --url URL        the Mixdown server (default $MIXDOWN_URL, else http://localhost:8080)
  --api-key KEY    the application's API key (default $MIXDOWN_API_KEY)
  --json           machine-readable output on stdout (no progress output)
For a server with TLS: an https:// URL; with a self-signed certificate (mixdown dev-cert) also
NODE_EXTRA_CA_CERTS=data/tls/cert.pem. A server that cannot be reached stops the command at once,
saying why (connection refused, HTTP against HTTPS or the reverse, an untrusted certificate).`;

export function parseCommand<O extends NonNullable<ParseArgsConfig["options"]>>(argv: string[], options: O) {
  return parseArgs({ args: argv, options: { ...COMMON_OPTIONS, ...options }, allowPositionals: true, strict: true });
}

/** The server's address: --url, else MIXDOWN_URL, else http://localhost:PORT (8080). */
export function serverUrl(values: { url?: string }, env = process.env): string {
  const baseUrl = values.url ?? (env.MIXDOWN_URL?.trim() || `http://localhost:${env.PORT?.trim() || 8080}`);
  try {
    new URL(baseUrl);
  } catch {
    throw new UsageError(`--url / MIXDOWN_URL must be an absolute URL, got "${baseUrl}"`);
  }
  return baseUrl;
}

/**
 * The SDK client for --url/--api-key or MIXDOWN_URL/MIXDOWN_API_KEY, once one request has reached the server: a
 * server that is not there (or speaks HTTPS where the URL says http) stops the command at once, saying so.
 */
export async function connect(values: { url?: string; "api-key"?: string }, env = process.env): Promise<MixdownClient> {
  const apiKey = values["api-key"] ?? env.MIXDOWN_API_KEY?.trim();
  if (!apiKey)
    throw new UsageError("no API key: pass --api-key KEY or set MIXDOWN_API_KEY (mixdown app create prints one)");
  const baseUrl = serverUrl(values, env);
  const client = new MixdownClient({ baseUrl, apiKey, userAgent: "mixdown-cli/0.1" });
  await checkReachable(client.baseUrl, apiKey, baseUrl);
  return client;
}

export const print = (text: string) => process.stdout.write(`${text}\n`);
export const printJson = (value: unknown) => process.stdout.write(`${JSON.stringify(value, null, 2)}\n`);
export const note = (text: string) => process.stderr.write(`${text}\n`);

export function formatBytes(bytes: number): string {
  const units = ["B", "kB", "MB", "GB", "TB"];
  let value = bytes;
  let unit = 0;
  while (value >= 1000 && unit < units.length - 1) {
    value /= 1000;
    unit++;
  }
  return `${unit === 0 ? value : value.toFixed(value < 10 ? 2 : 1)} ${units[unit]}`;
}

export function formatDuration(seconds: number): string {
  if (!Number.isFinite(seconds)) return "--:--";
  const s = Math.max(0, Math.round(seconds));
  const h = Math.floor(s / 3600);
  const m = Math.floor((s % 3600) / 60);
  const rest = String(s % 60).padStart(2, "0");
  return h > 0 ? `${h}:${String(m).padStart(2, "0")}:${rest}` : `${m}:${rest}`;
}

/** `k=v` pairs: a value that parses as JSON (number, boolean, null, array, object) is that, else a string. */
export function parseParams(pairs: string[]): Record<string, unknown> {
  const params: Record<string, unknown> = {};
  for (const pair of pairs) {
    const eq = pair.indexOf("=");
    if (eq <= 0) throw new UsageError(`--param needs KEY=VALUE, got "${pair}"`);
    const raw = pair.slice(eq + 1);
    let value: unknown = raw;
    try {
      const parsed: unknown = JSON.parse(raw);
      if (typeof parsed !== "string") value = parsed;
    } catch {}
    params[pair.slice(0, eq)] = value;
  }
  return params;
}

export function positiveNumber(name: string, raw: string | undefined): number | undefined {
  if (raw === undefined) return undefined;
  const value = Number(raw);
  if (!Number.isFinite(value) || value <= 0) throw new UsageError(`${name} must be a positive number, got "${raw}"`);
  return value;
}

export function wholeNumber(name: string, raw: string | undefined): number | undefined {
  if (raw === undefined) return undefined;
  if (!/^\d+$/.test(raw)) throw new UsageError(`${name} must be a whole number, got "${raw}"`);
  return Number(raw);
}
