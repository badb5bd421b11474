import fs from "node:fs";
import path from "node:path";
import { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import type { ReadableStream as NodeReadableStream } from "node:stream/web";
import { errorFromResponse, MixdownError, networkError } from "./errors.ts";
import { extensionFromUrl, safeFileStem } from "./transfer.ts";
import type { Job, TransferProgress } from "./types.ts";

/** Name of the file, in the download folder, that lists every result with local names for the files. */
export const RESULT_SUMMARY_FILE = "result.mixdown.json";

export interface DownloadOptions {
  /** Called as bytes arrive, for each result file in turn. */
  onProgress?: (progress: TransferProgress & { key: string; file: string }) => void;
  signal?: AbortSignal;
}

export interface DownloadedResults {
  jobId: string;
  /** Result key → absolute path of the downloaded file. */
  files: Record<string, string>;
  /** Result key → inline value (numbers, strings that are not URLs, objects). */
  values: Record<string, unknown>;
  /** Path of the JSON file with the whole result (files replaced by their local names). */
  summaryFile: string;
}

interface Transport {
  fetch: typeof fetch;
  userAgent: string;
}

const isFileUrl = (value: unknown): value is string => typeof value === "string" && /^https?:\/\/\S+$/i.test(value);

/** Downloads `url` to `destination` (via a temporary file, so no half file is left); returns the byte count. */
export async function downloadFile(
  url: string,
  destination: string,
  options: { onProgress?: (progress: TransferProgress) => void; signal?: AbortSignal } & Transport,
): Promise<number> {
  let response: Response;
  try {
    // No Authorization: result URLs carry their own signature and may point at another host.
    response = await options.fetch(url, { headers: { "user-agent": options.userAgent }, signal: options.signal });
  } catch (error) {
    if (options.signal?.aborted) throw error;
    throw networkError(error, `download of ${new URL(url).pathname}`);
  }
  if (response.status !== 200 || !response.body) {
    if (response.ok) await response.body?.cancel();
    throw response.ok
      ? new MixdownError(`download of ${url}: expected HTTP 200, got ${response.status}`, {
          status: response.status,
          code: `HTTP_${response.status}`,
        })
      : await errorFromResponse(response, "download");
  }
  const length = Number(response.headers.get("content-length"));
  const total = Number.isInteger(length) && length >= 0 && response.headers.has("content-length") ? length : null;
  await fs.promises.mkdir(path.dirname(destination), { recursive: true });
  const partial = `${destination}.part`;
  let loaded = 0;
  options.onProgress?.({ loaded, total });
  try {
    await pipeline(
      Readable.fromWeb(response.body as NodeReadableStream<Uint8Array>),
      async function* (source: AsyncIterable<Buffer>) {
        for await (const chunk of source) {
          loaded += chunk.byteLength;
          options.onProgress?.({ loaded, total });
          yield chunk;
        }
      },
      fs.createWriteStream(partial),
      { signal: options.signal },
    );
    if (total !== null && loaded !== total) {
      throw new MixdownError(`download of ${url} ended after ${loaded} of ${total} bytes`, {
        status: 200,
        code: "INCOMPLETE_DOWNLOAD",
      });
    }
    await fs.promises.rename(partial, destination);
  } catch (error) {
    await fs.promises.rm(partial, { force: true });
    throw error;
  }
  return loaded;
}

/**
 * Downloads every file (http or https URL) of a SUCCEEDED job's result into `dir` as KEY.EXT (extension from
 * the URL's path) and writes the whole result to `dir/result.mixdown.json`, inline values included.
 */
export async function downloadJobResults(
  job: Job,
  dir: string,
  options: DownloadOptions & Transport,
): Promise<DownloadedResults> {
  if (job.status !== "SUCCEEDED") {
    const reason = job.status === "FAILED" ? `failed${job.error ? `: ${job.error.message}` : ""}` : `is ${job.status}`;
    throw new MixdownError(`cannot download the results of job ${job.id}: it ${reason}`, {
      status: 0,
      code: "JOB_NOT_SUCCEEDED",
    });
  }
  const folder = path.resolve(dir);
  await fs.promises.mkdir(folder, { recursive: true });
  const files: Record<string, string> = {};
  const values: Record<string, unknown> = {};
  const summary: Record<string, unknown> = {};
  const used = new Set([RESULT_SUMMARY_FILE]);
  for (const [key, value] of Object.entries(job.result ?? {})) {
    if (!isFileUrl(value)) {
      values[key] = value;
      summary[key] = value;
      continue;
    }
    const extension = extensionFromUrl(value);
    const stem = safeFileStem(key);
    let name = extension ? `${stem}.${extension}` : stem;
    for (let n = 2; used.has(name); n++) name = extension ? `${stem}-${n}.${extension}` : `${stem}-${n}`;
    used.add(name);
    const file = path.join(folder, name);
    await downloadFile(value, file, {
      ...options,
      onProgress: options.onProgress && ((progress) => options.onProgress?.({ ...progress, key, file })),
    });
    files[key] = file;
    summary[key] = `./${name}`;
  }
  const summaryFile = path.join(folder, RESULT_SUMMARY_FILE);
  const document = { id: job.id, name: job.name, workflow: job.workflow, result: summary };
  await fs.promises.writeFile(summaryFile, `${JSON.stringify(document, null, 2)}\n`);
  return { jobId: job.id, files, values, summaryFile };
}
