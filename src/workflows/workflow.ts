import type { JobResult } from "../domain.ts";

/** What a running workflow may do; it knows nothing of HTTP or of where files are stored. */
export interface JobContext {
  readonly jobId: string;
  readonly params: Record<string, unknown>;
  readonly signal: AbortSignal;
  /** A directory of the job's own, removed when the job ends. */
  readonly scratchDir: string;
  /** Fetches an input (one of Mixdown's own URLs or any http(s) URL) to a local file; returns its path. */
  fetchInput(url: string): Promise<string>;
  /** Stores a local file as a result file named `name`. */
  storeFile(name: string, localPath: string, contentType: string): Promise<JobResult[string]>;
}

export interface Workflow {
  slug: string;
  name: string;
  description: string;
  /** JSON Schema that job params must match. */
  inputSchema: Record<string, unknown>;
  run(ctx: JobContext): Promise<JobResult>;
}
