import type { Job, JobFilters, JobStatus } from "../../sdk/src/index.ts";
import { JOB_STATUSES } from "../../sdk/src/index.ts";
import { UsageError } from "./app-commands.ts";
import {
  CONNECTION_HELP,
  connect,
  note,
  parseCommand,
  positiveNumber,
  print,
  printJson,
  wholeNumber,
} from "./client-common.ts";
import { StatusLine } from "./client-progress.ts";

export const JOBS_HELP = `Usage: mixdown jobs <list|get|cancel|delete|wait> [options]

  jobs list [--status S]… [--workflow SLUG]… [--batch NAME] [--page N] [--size N] [--all]
                         jobs of this API key, newest first (--all: every page)
  jobs get ID            one job: status, timestamps, params, result or error
  jobs cancel ID         stop a queued or running job: it ends FAILED with code CANCELLED and
                         its partial results are removed (the job itself stays)
  jobs delete ID         delete a job and its result files (irreversible)
  jobs wait ID [--timeout SECONDS]
                         wait until the job has SUCCEEDED or FAILED (exit 1 when FAILED,
                         3 on timeout), showing its status live

${CONNECTION_HELP}`;

/** A job for people: one "key: value" line per field, result entries and the error indented. */
export function describeJob(job: Job): string {
  const lines = [
    `id:         ${job.id}`,
    `name:       ${job.name}`,
    `workflow:   ${job.workflow}${job.workflowName ? ` (${job.workflowName})` : ""}`,
    `status:     ${job.status}`,
  ];
  if (job.batchName) lines.push(`batch:      ${job.batchName}`);
  lines.push(`created:    ${job.createdAt}`);
  if (job.startedAt) lines.push(`started:    ${job.startedAt}`);
  if (job.completedAt) lines.push(`completed:  ${job.completedAt}`);
  if (Object.keys(job.metadata).length > 0) lines.push(`metadata:   ${JSON.stringify(job.metadata)}`);
  lines.push(`params:     ${JSON.stringify(job.workflowParams)}`);
  if (job.error) lines.push(`error:      ${job.error.code} (${job.error.title}): ${job.error.message}`);
  if (job.result) {
    lines.push("result:");
    for (const [key, value] of Object.entries(job.result))
      lines.push(`  ${key}: ${typeof value === "string" ? value : JSON.stringify(value)}`);
  }
  return lines.join("\n");
}

function statuses(values: string[] | undefined): JobStatus[] | undefined {
  for (const status of values ?? []) {
    if (!JOB_STATUSES.includes(status as JobStatus))
      throw new UsageError(`--status must be one of ${JOB_STATUSES.join(", ")}, got "${status}"`);
  }
  return values as JobStatus[] | undefined;
}

export async function jobsCommand(argv: string[]): Promise<number> {
  const { values, positionals } = parseCommand(argv, {
    status: { type: "string", multiple: true },
    workflow: { type: "string", multiple: true },
    batch: { type: "string" },
    page: { type: "string" },
    size: { type: "string" },
    all: { type: "boolean", default: false },
    timeout: { type: "string" },
  });
  if (values.help) {
    print(JOBS_HELP);
    return 0;
  }
  const [sub, id] = positionals;
  if (!sub || !["list", "get", "cancel", "delete", "wait"].includes(sub))
    throw new UsageError(
      sub ? `unknown jobs command "${sub}"` : "jobs needs a command: list, get, cancel, delete or wait",
    );
  const client = await connect(values);
  const needId = () => {
    if (!id) throw new UsageError(`jobs ${sub} needs the job id`);
    return id;
  };
  switch (sub) {
    case "list": {
      const filters: JobFilters = {
        status: statuses(values.status),
        workflow: values.workflow,
        batchName: values.batch,
        page: wholeNumber("--page", values.page),
        size: wholeNumber("--size", values.size),
      };
      let jobs: Job[];
      let more = false;
      if (values.all) {
        jobs = [];
        for await (const job of client.iterateJobs(filters)) jobs.push(job);
      } else {
        const page = await client.listJobs(filters);
        jobs = page.jobs;
        more = page.nextPage !== null;
        if (!values.json && page.total !== null && more)
          note(
            `page ${page.page} of ${Math.ceil(page.total / page.size)} (${page.total} jobs); --all lists every page`,
          );
      }
      if (values.json) printJson(jobs);
      else if (jobs.length === 0) print("No jobs.");
      else
        for (const job of jobs)
          print(`${job.id}  ${job.status.padEnd(9)}  ${job.createdAt}  ${job.workflow}  ${job.name}`);
      return 0;
    }
    case "get": {
      const job = await client.getJob(needId());
      values.json ? printJson(job) : print(describeJob(job));
      return 0;
    }
    case "cancel": {
      const job = await client.cancelJob(needId());
      values.json ? printJson(job) : print(`Cancelled job ${job.id}.`);
      return 0;
    }
    case "delete": {
      const deleted = await client.deleteJob(needId());
      values.json ? printJson({ id: deleted, deleted: true }) : print(`Deleted job ${deleted}.`);
      return 0;
    }
    case "wait": {
      const timeout = positiveNumber("--timeout", values.timeout);
      const line = new StatusLine(needId(), { enabled: !values.json });
      let job: Job;
      try {
        job = await client.waitForJobCompletion(needId(), {
          timeoutMs: timeout === undefined ? undefined : timeout * 1000,
          onStatus: line.set,
          onProgress: line.setProgress,
        });
      } finally {
        line.stop();
      }
      values.json ? printJson(job) : print(describeJob(job));
      return job.status === "SUCCEEDED" ? 0 : 1;
    }
    default:
      throw new UsageError(
        sub ? `unknown jobs command "${sub}"` : "jobs needs a command: list, get, cancel, delete or wait",
      );
  }
}
