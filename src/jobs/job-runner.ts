import { randomUUID } from "node:crypto";
import fs from "node:fs";
import fsp from "node:fs/promises";
import path from "node:path";
import type { JobResult } from "../domain.ts";
import { executeWorkflow } from "../engine/execute.ts";
import { toolLauncher } from "../media/tool-launcher.ts";
import type { BlobStore } from "../store/blob-store.ts";
import type { FileUrls } from "../store/file-urls.ts";
import type { ClaimedJob } from "../store/job-queue.ts";
import type { WorkflowRegistry } from "../workflows/registry.ts";
import { copyResults } from "./copy-results.ts";
import { downloadUrl } from "./download-url.ts";
import { JobFailure } from "./job-failure.ts";

export interface JobRunnerOptions {
  scratchRoot: string;
  fetchTimeoutMs: number;
  allowPrivateUrls: boolean;
  maxInputBytes: number;
}

export interface JobRun {
  result: JobResult;
  /** Where this attempt stored its files; removed if the outcome cannot be recorded. */
  resultPrefix: string;
}

/** Runs one claimed job's workflow in a scratch directory of its own, removed afterwards. */
export class JobRunner {
  private readonly workflows: WorkflowRegistry;
  private readonly blobs: BlobStore;
  private readonly fileUrls: FileUrls;
  private readonly options: JobRunnerOptions;

  constructor(workflows: WorkflowRegistry, blobs: BlobStore, fileUrls: FileUrls, options: JobRunnerOptions) {
    this.workflows = workflows;
    this.blobs = blobs;
    this.fileUrls = fileUrls;
    this.options = options;
  }

  /** Starts what jobs need before the first one comes: the tool launcher, so the first job does not wait for it. */
  prepare(): void {
    toolLauncher.start();
  }

  resultPrefix(jobId: string): string {
    return `results/${jobId}/`;
  }

  async run(
    job: ClaimedJob,
    signal: AbortSignal,
    onProgress?: (progress: number, step: string) => void,
  ): Promise<JobRun> {
    await this.workflows.refresh();
    // Unknown here: perhaps saved on another node a moment ago, not yet heard of.
    const workflow =
      this.workflows.get(job.workflow) ??
      ((await this.workflows.refresh(true)) ? this.workflows.get(job.workflow) : undefined);
    if (!workflow) throw new JobFailure("BAD_INPUT", `The workflow ${job.workflow} no longer exists.`);
    if (workflow.errors.length > 0) {
      throw new JobFailure("BAD_INPUT", `The workflow ${job.workflow} now contains errors and cannot run.`);
    }
    const scratchDir = path.join(this.options.scratchRoot, `${process.pid}-${job.id}-${randomUUID()}`);
    const resultPrefix = `${this.resultPrefix(job.id)}${randomUUID()}/`;
    await fsp.mkdir(scratchDir, { recursive: true });
    let inputCount = 0;
    const env = {
      params: job.params,
      signal,
      onProgress,
      scratchDir,
      modelsDir: this.workflows.environment.modelsDir,
      fetchInput: (url: string) => this.fetchInput(url, path.join(scratchDir, `input-${inputCount++}`), job, signal),
      storeFile: async (name: string, localPath: string, contentType: string) => {
        const key = resultPrefix + name;
        const { size } = await fsp.stat(localPath);
        await this.blobs.put(key, fs.createReadStream(localPath, { highWaterMark: 1 << 20 }), { contentType, size });
        return { file: key, contentType };
      },
    };
    try {
      const result = await executeWorkflow(workflow.definition, this.workflows.modules, env);
      if (!job.copyResultsTo) return { result, resultPrefix };
      const copied = await copyResults(result, job.copyResultsTo, this.blobs, {
        allowPrivate: this.options.allowPrivateUrls,
        idleTimeoutMs: this.options.fetchTimeoutMs,
        signal,
        scratchDir,
      });
      return { result: copied, resultPrefix };
    } catch (error) {
      await this.blobs.deletePrefix(resultPrefix);
      throw error;
    } finally {
      await fsp.rm(scratchDir, { recursive: true, force: true });
    }
  }

  private async fetchInput(url: string, destination: string, job: ClaimedJob, signal: AbortSignal): Promise<string> {
    // One of our own URLs: checked as of the job's creation and read straight from storage.
    const own = await this.fileUrls.keyOf(url, Date.parse(job.createdAt));
    if (own === "invalid" || own === "expired") {
      throw new JobFailure("BAD_INPUT", `The input URL's signature is ${own}.`);
    }
    if (own) {
      if (!(await this.blobs.copyToFile(own.key, destination))) {
        throw new JobFailure(
          "BAD_INPUT",
          "The input file is missing: it was never uploaded, its upload did not complete, or it was deleted.",
        );
      }
      return destination;
    }
    await downloadUrl(url, destination, {
      timeoutMs: this.options.fetchTimeoutMs,
      allowPrivate: this.options.allowPrivateUrls,
      maxBytes: this.options.maxInputBytes,
      signal,
    });
    return destination;
  }
}
