import { type ChildProcess, execFile, spawn } from "node:child_process";
import fs from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { setTimeout as delay } from "node:timers/promises";
import { promisify } from "node:util";
import { type Backend, distributedUnavailable, provisionDistributed } from "./backends.ts";

const ROOT = path.resolve(import.meta.dirname, "../..");
export const MIXDOWN_BIN = path.join(ROOT, "bin/mixdown");
const execFileAsync = promisify(execFile);

/** Servers started by tests and not yet stopped; a test file that leaves one running fails (assertNoneRunning). */
const running = new Set<Mixdown>();

export async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

export interface ApiResponse<T = any> {
  status: number;
  headers: Headers;
  body: T;
}

export interface AppInfo {
  id: string;
  name: string;
  apiKey: string;
}

/** One `bin/mixdown serve` process. */
export class NodeProcess {
  readonly role: "all" | "api" | "worker";
  output = "";
  private child: ChildProcess | undefined;
  private exited: Promise<number | null> | undefined;

  constructor(role: "all" | "api" | "worker") {
    this.role = role;
  }

  /** Where the node answers HTTP (`http(s)://127.0.0.1:PORT`), once started. */
  url = "";

  /** Starts the process and waits until `healthUrl` answers. */
  async start(env: Record<string, string>, healthUrl: string): Promise<void> {
    const child = spawn(MIXDOWN_BIN, ["serve", "--role", this.role], {
      env: { ...process.env, ...env },
      stdio: ["ignore", "pipe", "pipe"],
    });
    this.child = child;
    this.url = new URL(healthUrl).origin;
    this.output = "";
    child.stdout?.on("data", (d) => (this.output += d));
    child.stderr?.on("data", (d) => (this.output += d));
    this.exited = new Promise((resolve) => child.on("exit", (code) => resolve(code)));
    for (let i = 0; i < 600; i++) {
      if (child.exitCode !== null) throw new Error(`mixdown ${this.role} exited at start:\n${this.output}`);
      try {
        if ((await fetch(healthUrl)).ok) return;
      } catch {}
      await delay(50);
    }
    throw new Error(`mixdown ${this.role} did not start:\n${this.output}`);
  }

  /** The node process's id (bin/mixdown execs node), once started. */
  get pid(): number | undefined {
    return this.child?.pid;
  }

  get alive(): boolean {
    return this.child !== undefined && this.child.exitCode === null && this.child.signalCode === null;
  }

  /** Sends a signal and waits for the process to exit; returns its exit code. */
  async stop(signal: NodeJS.Signals = "SIGTERM"): Promise<number | null> {
    if (!this.child || !this.alive) return this.child?.exitCode ?? null;
    this.child.kill(signal);
    return (await this.exited) ?? null;
  }
}

/**
 * A Mixdown deployment on loopback, black-box, with its own data dir: one embedded node (API and workers
 * in one process), or, on the distributed backend, one API node and worker processes sharing a fresh
 * Postgres database and S3 bucket.
 */
export class Mixdown {
  readonly backend: Backend;
  readonly dataDir: string;
  readonly port: number;
  readonly url: string;
  readonly env: Record<string, string>;
  /** The node serving HTTP (in embedded mode, the only node). */
  readonly apiNode: NodeProcess;
  readonly workers: NodeProcess[] = [];
  private readonly workerCount: number;
  private readonly teardown: () => Promise<void>;

  private constructor(
    backend: Backend,
    dataDir: string,
    port: number,
    env: Record<string, string>,
    workerCount: number,
    teardown: () => Promise<void>,
  ) {
    this.backend = backend;
    this.dataDir = dataDir;
    this.port = port;
    this.url = `${env.MIXDOWN_TLS_CERT ? "https" : "http"}://127.0.0.1:${port}`;
    this.env = env;
    this.apiNode = new NodeProcess(backend === "embedded" ? "all" : "api");
    this.workerCount = workerCount;
    this.teardown = teardown;
  }

  static async start(
    env: Record<string, string> = {},
    options: { backend?: Backend; workers?: number } = {},
  ): Promise<Mixdown> {
    const backend = options.backend ?? "embedded";
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "mixdown-test-"));
    const port = await freePort();
    const provisioned =
      backend === "distributed" ? await provisionDistributed() : { env: {}, teardown: async () => {} };
    const server = new Mixdown(
      backend,
      dataDir,
      port,
      {
        MIXDOWN_DATA_DIR: dataDir,
        PORT: String(port),
        MIXDOWN_PUBLIC_URL: `${env.MIXDOWN_TLS_CERT ? "https" : "http"}://127.0.0.1:${port}`,
        MIXDOWN_LOG_LEVEL: "warn",
        MIXDOWN_WORKERS: backend === "embedded" ? "2" : "1",
        ...provisioned.env,
        ...env,
      },
      backend === "embedded" ? 0 : (options.workers ?? 2),
      provisioned.teardown,
    );
    running.add(server);
    try {
      await server.launch();
    } catch (error) {
      await server.dispose();
      throw error;
    }
    return server;
  }

  /** Everything the deployment's processes printed. */
  get output(): string {
    return [this.apiNode, ...this.workers].map((n) => n.output).join("");
  }

  /** Starts (or restarts) every node on the same data dir, port and backends. */
  async launch(): Promise<void> {
    running.add(this);
    await this.apiNode.start(this.env, `${this.url}/healthz`);
    this.workers.length = 0;
    for (let i = 0; i < this.workerCount; i++) await this.startWorker();
  }

  /** Starts one more worker process (distributed backend), on a port of its own for /healthz and /metrics. */
  async startWorker(env: Record<string, string> = {}): Promise<NodeProcess> {
    const worker = new NodeProcess("worker");
    this.workers.push(worker);
    const port = await freePort();
    const url = this.url.replace(/:\d+$/, `:${port}`);
    await worker.start({ ...this.env, PORT: String(port), ...env }, `${url}/healthz`);
    return worker;
  }

  /** Runs `bin/mixdown ARGS` against this server's data dir. */
  async cli(
    args: string[],
    env: Record<string, string> = {},
  ): Promise<{ stdout: string; stderr: string; code: number }> {
    try {
      const { stdout, stderr } = await execFileAsync(MIXDOWN_BIN, args, {
        env: { ...process.env, ...this.env, ...env },
      });
      return { stdout, stderr, code: 0 };
    } catch (error) {
      const e = error as { stdout: string; stderr: string; code: number };
      return { stdout: e.stdout, stderr: e.stderr, code: e.code };
    }
  }

  async createApp(name = "test-app"): Promise<AppInfo> {
    const { stdout, stderr, code } = await this.cli(["app", "create", "--name", name, "--json"]);
    if (code !== 0) throw new Error(`app create failed: ${stderr}`);
    return JSON.parse(stdout) as AppInfo;
  }

  /** An API call; `key` goes in Authorization as is, `body` is sent as JSON. */
  async api<T = any>(
    method: string,
    pathname: string,
    options: { key?: string; body?: unknown; headers?: Record<string, string> } = {},
  ): Promise<ApiResponse<T>> {
    const headers: Record<string, string> = { ...options.headers };
    if (options.key !== undefined) headers.authorization = options.key;
    if (options.body !== undefined) headers["content-type"] ??= "application/json";
    const response = await fetch(`${this.url}${pathname}`, {
      method,
      headers,
      body:
        options.body === undefined
          ? undefined
          : typeof options.body === "string"
            ? options.body
            : JSON.stringify(options.body),
    });
    const text = await response.text();
    let body: unknown = text;
    try {
      body = JSON.parse(text);
    } catch {}
    return { status: response.status, headers: response.headers, body: body as T };
  }

  /** Uploads bytes through GET /upload + PUT; returns the download URL. */
  async upload(key: string, bytes: Buffer, contentType = "application/octet-stream"): Promise<string> {
    const pair = await this.api<{ uploadUrl: string; downloadUrl: string }>("GET", "/v1/upload", { key });
    const put = await fetch(pair.body.uploadUrl, {
      method: "PUT",
      body: new Uint8Array(bytes),
      headers: { "content-type": contentType },
    });
    if (put.status !== 200) throw new Error(`upload failed: ${put.status} ${await put.text()}`);
    return pair.body.downloadUrl;
  }

  async createJob(key: string, workflow: string, params: Record<string, unknown>, extra: Record<string, unknown> = {}) {
    const response = await this.api<{ id: string }>("POST", "/v1/job", {
      key,
      body: { name: "test job", workflow, params, ...extra },
    });
    if (response.status !== 200)
      throw new Error(`job creation failed: ${response.status} ${JSON.stringify(response.body)}`);
    return response.body.id;
  }

  /** Creates a job and waits for it (bounded); throws unless it SUCCEEDED, with its error. Returns the job. */
  async runJob(key: string, workflow: string, params: Record<string, unknown>, timeoutMs = 60_000): Promise<any> {
    const job = await this.waitForJob(key, await this.createJob(key, workflow, params), timeoutMs);
    if (job.status !== "SUCCEEDED") throw new Error(`job ${workflow} ${job.status}: ${JSON.stringify(job.error)}`);
    return job;
  }

  /** Polls the job until it is SUCCEEDED or FAILED (bounded), then returns it. */
  async waitForJob(key: string, id: string, timeoutMs = 60_000): Promise<any> {
    const deadline = Date.now() + timeoutMs;
    while (Date.now() < deadline) {
      const { body } = await this.api("GET", `/v1/job/${id}/status`, { key });
      if (body.status === "SUCCEEDED" || body.status === "FAILED")
        return (await this.api("GET", `/v1/job/${id}`, { key })).body;
      await delay(100);
    }
    throw new Error(`job ${id} did not finish within ${timeoutMs} ms`);
  }

  /** Signals every node and waits for them; returns the API node's exit code. */
  async stop(signal: NodeJS.Signals = "SIGTERM"): Promise<number | null> {
    const [code] = await Promise.all([this.apiNode.stop(signal), ...this.workers.map((w) => w.stop(signal))]);
    running.delete(this);
    return code ?? null;
  }

  /** Stops every node and removes the data dir (and, distributed, the database and bucket). */
  async dispose(): Promise<void> {
    await this.stop("SIGKILL");
    running.delete(this);
    fs.rmSync(this.dataDir, { recursive: true, force: true });
    await this.teardown();
  }
}

/** Downloads a URL (a result file) to a local file, which it returns; throws unless the answer is 200. */
export async function downloadTo(url: string, file: string): Promise<string> {
  const response = await fetch(url);
  if (response.status !== 200) throw new Error(`GET ${url} answered ${response.status}`);
  fs.writeFileSync(file, Buffer.from(await response.arrayBuffer()));
  return file;
}

/** Backends to run a black-box suite against: embedded always, distributed when Postgres and S3 answer. */
export const BACKENDS: { backend: Backend; skip: string | undefined }[] = [
  { backend: "embedded", skip: undefined },
  { backend: "distributed", skip: distributedUnavailable },
];

export function assertNoneRunning(): void {
  if (running.size > 0) {
    const left = [...running].map((s) => s.url).join(", ");
    for (const server of running) void server.dispose();
    throw new Error(`a test left Mixdown running: ${left}`);
  }
}
