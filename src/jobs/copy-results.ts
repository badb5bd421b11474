import fs from "node:fs";
import path from "node:path";
import type { JobResult } from "../domain.ts";
import type { BlobStore } from "../store/blob-store.ts";
import { JobFailure } from "./job-failure.ts";
import { describeOutboundError, outboundRequest } from "./outbound-request.ts";

/** What a copied output's result value becomes (Music.AI's wording). */
export const CUSTOM_STORAGE = "[custom storage]";

export interface CopyOptions {
  allowPrivate: boolean;
  /** A PUT that sends or receives nothing for this long fails. */
  idleTimeoutMs: number;
  signal: AbortSignal;
  /** The job's scratch directory: each file is put there first (a hard link on local disk), then streamed. */
  scratchDir: string;
}

/**
 * copyResultsTo: PUTs each named file output to its URL, streamed from the store with its Content-Length and
 * Content-Type, then drops the stored copy; the result's value becomes "[custom storage]". Any failure fails the job
 * with a message naming the output (the caller removes the job's files).
 */
export async function copyResults(
  result: JobResult,
  targets: Record<string, string>,
  blobs: BlobStore,
  options: CopyOptions,
): Promise<JobResult> {
  const copied: JobResult = { ...result };
  for (const [name, url] of Object.entries(targets)) {
    const entry = result[name];
    if (!entry || !("file" in entry)) {
      throw new JobFailure("BAD_INPUT", `copyResultsTo names "${name}", which this job did not produce as a file.`);
    }
    const local = path.join(options.scratchDir, `copy-${name.replace(/[^\w.-]/g, "_")}`);
    if (!(await blobs.copyToFile(entry.file, local))) throw new Error(`the result file ${entry.file} is missing`);
    const { size } = await fs.promises.stat(local);
    const failed = (reason: string) =>
      new JobFailure("BAD_INPUT", `Copying the result "${name}" to its copyResultsTo URL failed: ${reason}.`);
    let status: number;
    try {
      status = await outboundRequest(new URL(url), {
        method: "PUT",
        headers: { "content-type": entry.contentType, "content-length": String(size) },
        body: fs.createReadStream(local, { highWaterMark: 1 << 20 }),
        allowPrivate: options.allowPrivate,
        idleTimeoutMs: options.idleTimeoutMs,
        signal: options.signal,
      });
    } catch (error) {
      if (options.signal.aborted) throw error;
      throw failed(describeOutboundError(error));
    }
    if (status < 200 || status > 299) throw failed(`the server answered HTTP ${status}`);
    copied[name] = { value: CUSTOM_STORAGE };
  }
  for (const name of Object.keys(targets)) {
    const entry = result[name];
    if (entry && "file" in entry) await blobs.delete(entry.file);
  }
  return copied;
}
