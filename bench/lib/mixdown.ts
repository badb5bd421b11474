import { execFile } from "node:child_process";
import path from "node:path";
import { promisify } from "node:util";
import { childEnv, freePort, makeTempDir, type ServerProcess, startServer } from "./harness.ts";

const MIXDOWN_BIN = path.resolve(import.meta.dirname, "../../bin/mixdown");
const execFileAsync = promisify(execFile);

export interface Mixdown extends ServerProcess {
  url: string;
  dataDir: string;
  /** Creates an application through the CLI; returns its API key. */
  createApp(name: string): Promise<string>;
  /** A JSON API call that must answer 2xx. */
  api<T>(method: string, pathname: string, key: string, body?: unknown): Promise<T>;
}

/** `bin/mixdown serve` (embedded mode) on a free loopback port, quiet, with its own data dir. */
export async function startMixdown(options: { env?: Record<string, string>; dataDir?: string } = {}): Promise<Mixdown> {
  const dataDir = options.dataDir ?? makeTempDir("mixdown-bench-");
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const env = {
    MIXDOWN_DATA_DIR: dataDir,
    PORT: String(port),
    MIXDOWN_PUBLIC_URL: url,
    MIXDOWN_LOG_LEVEL: "silent",
    MIXDOWN_WORKERS: "1",
    ...options.env,
  };
  const server = await startServer(MIXDOWN_BIN, ["serve"], env, `${url}/healthz`);
  return {
    ...server,
    url,
    dataDir,
    async createApp(name) {
      const args = ["app", "create", "--name", name, "--json"];
      const { stdout } = await execFileAsync(MIXDOWN_BIN, args, { env: childEnv(env) });
      return (JSON.parse(stdout) as { apiKey: string }).apiKey;
    },
    async api<T>(method: string, pathname: string, key: string, body?: unknown) {
      const response = await fetch(`${url}${pathname}`, {
        method,
        headers: { authorization: key, ...(body === undefined ? {} : { "content-type": "application/json" }) },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      const text = await response.text();
      if (!response.ok) throw new Error(`${method} ${pathname} answered ${response.status}: ${text}`);
      return JSON.parse(text) as T;
    },
  };
}
