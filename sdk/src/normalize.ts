import { MixdownError } from "./errors.ts";
import { JOB_STATUSES, type Job, type JobError, type JobStatus, type MetadataValue } from "./types.ts";

type Raw = Record<string, unknown>;

function invalid(message: string): MixdownError {
  return new MixdownError(`unexpected response from the server: ${message}`, { status: 0, code: "INVALID_RESPONSE" });
}

const isObject = (value: unknown): value is Raw => typeof value === "object" && value !== null && !Array.isArray(value);
const stringOrNull = (value: unknown): string | null => (typeof value === "string" ? value : null);

function jobError(value: unknown): JobError | null {
  if (!isObject(value)) return null;
  const code = typeof value.code === "string" ? value.code : "UNKNOWN";
  const message = typeof value.message === "string" ? value.message : "";
  return { code, title: typeof value.title === "string" ? value.title : code, message };
}

function metadata(value: unknown): Record<string, MetadataValue> {
  if (!isObject(value)) return {};
  const entries = Object.entries(value).filter((entry): entry is [string, MetadataValue] =>
    ["string", "number", "boolean"].includes(typeof entry[1]),
  );
  return Object.fromEntries(entries);
}

/**
 * One job from either representation of the API: `workflow` as a slug string (the primary form), or as
 * `{id, name}` with `app`, `batchName` and `error` left out.
 */
export function normalizeJob(raw: unknown): Job {
  if (!isObject(raw)) throw invalid("a job is not an object");
  if (typeof raw.id !== "string") throw invalid("a job has no id");
  if (!JOB_STATUSES.includes(raw.status as JobStatus)) throw invalid(`job ${raw.id} has status ${String(raw.status)}`);
  let workflow = "";
  let workflowName: string | null = null;
  if (typeof raw.workflow === "string") workflow = raw.workflow;
  else if (isObject(raw.workflow)) {
    const { id, slug, name } = raw.workflow;
    workflow = typeof slug === "string" ? slug : typeof id === "string" ? id : "";
    workflowName = stringOrNull(name);
  }
  return {
    id: raw.id,
    app: stringOrNull(raw.app),
    name: typeof raw.name === "string" ? raw.name : "",
    batchName: stringOrNull(raw.batchName),
    metadata: metadata(raw.metadata),
    workflow,
    workflowName,
    workflowParams: isObject(raw.workflowParams) ? raw.workflowParams : {},
    status: raw.status as JobStatus,
    result: isObject(raw.result) ? raw.result : null,
    error: jobError(raw.error),
    createdAt: typeof raw.createdAt === "string" ? raw.createdAt : "",
    startedAt: stringOrNull(raw.startedAt),
    completedAt: stringOrNull(raw.completedAt),
  };
}

/** A job list in either shape the API documents: a bare array, or an object with a `jobs` array. */
export function normalizeJobList(raw: unknown): Job[] {
  const list = Array.isArray(raw) ? raw : isObject(raw) && Array.isArray(raw.jobs) ? raw.jobs : undefined;
  if (!list) throw invalid("a job list is neither an array nor an object with a jobs array");
  return list.map(normalizeJob);
}
