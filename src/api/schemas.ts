import { JOB_ERROR_CODES, JOB_STATUSES } from "../domain.ts";
import { API_ERRORS, type ApiErrorCode } from "../errors.ts";

/** JSON Schemas of the API: they validate requests, shape responses and generate the OpenAPI document. */

export const MAX_PAGE_SIZE = 1000;
/** page × size stays far inside what SQL's OFFSET takes (and a JavaScript number holds exactly). */
export const MAX_PAGE = 1_000_000;

export const errorSchema = {
  $id: "Error",
  type: "object",
  required: ["code", "message"],
  properties: {
    code: { type: "string" },
    message: { type: "string" },
    details: {
      type: "array",
      items: {
        type: "object",
        required: ["field", "message"],
        properties: { field: { type: "string" }, message: { type: "string" } },
      },
    },
  },
} as const;

const nullableString = { type: ["string", "null"] } as const;
const timestamp = { type: "string", format: "date-time" } as const;

const progressSchema = {
  type: "number",
  minimum: 0,
  maximum: 1,
  description: "Mixdown extension: how much of the job is done, from 0 to 1 (1 once it has succeeded)",
} as const;
const stepSchema = {
  type: ["string", "null"],
  description: "Mixdown extension: the workflow step the running job last reported progress from",
} as const;

export const jobSchema = {
  $id: "Job",
  type: "object",
  required: [
    "id",
    "app",
    "name",
    "batchName",
    "metadata",
    "workflow",
    "workflowParams",
    "status",
    "result",
    "error",
    "createdAt",
    "startedAt",
    "completedAt",
  ],
  properties: {
    id: { type: "string", format: "uuid" },
    app: { type: "string", description: "Name of the application that created the job" },
    name: { type: "string" },
    batchName: nullableString,
    metadata: { type: "object", additionalProperties: { type: ["string", "number", "boolean"] } },
    workflow: { type: "string", description: "Workflow slug" },
    workflowParams: { type: "object", additionalProperties: true },
    status: { type: "string", enum: JOB_STATUSES },
    result: {
      type: ["object", "null"],
      additionalProperties: true,
      description: "Output file URLs (signed, temporary) and inline values; keys depend on the workflow",
    },
    error: {
      type: ["object", "null"],
      required: ["code", "title", "message"],
      properties: {
        code: { type: "string", enum: JOB_ERROR_CODES },
        title: { type: "string" },
        message: { type: "string" },
      },
    },
    createdAt: timestamp,
    startedAt: { ...timestamp, type: ["string", "null"] },
    completedAt: { ...timestamp, type: ["string", "null"] },
    progress: progressSchema,
    step: stepSchema,
  },
} as const;

export const workflowSchema = {
  $id: "Workflow",
  type: "object",
  required: ["id", "name", "slug", "description", "createdAt", "updatedAt"],
  properties: {
    id: { type: "string" },
    name: { type: "string" },
    slug: { type: "string" },
    description: { type: "string" },
    createdAt: timestamp,
    updatedAt: timestamp,
  },
} as const;

export const jobIdParams = {
  type: "object",
  required: ["id"],
  properties: { id: { type: "string", description: "Job id (UUID)" } },
} as const;

export const createJobBody = {
  type: "object",
  required: ["name", "workflow", "params"],
  additionalProperties: false,
  properties: {
    name: { type: "string", minLength: 1, maxLength: 1000, description: "Arbitrary job name" },
    workflow: { type: "string", minLength: 1, description: "Workflow slug" },
    params: { type: "object", description: "Workflow parameters; must match the workflow's input schema" },
    metadata: {
      type: "object",
      additionalProperties: { type: ["string", "number", "boolean"] },
      description: "Key-value pairs; values are strings, numbers or booleans",
    },
    batchName: { type: "string", minLength: 1, maxLength: 1000, description: "Groups jobs into a batch" },
    webhookUrl: {
      type: "string",
      minLength: 1,
      maxLength: 4000,
      description:
        "Mixdown extension: an http(s) URL that receives this job's events (job.started, job.succeeded, job.failed, job.cancelled) as signed Standard Webhooks POSTs, besides the application's webhook endpoints. Signed with the application's job-webhook secret (`mixdown app webhook secret APP_ID`). Internal addresses are refused unless MIXDOWN_ALLOW_PRIVATE_URLS.",
    },
    copyResultsTo: {
      type: "object",
      additionalProperties: { type: "string", minLength: 1, maxLength: 4000 },
      description:
        'Music.AI\'s custom storage: output name → URL (e.g. a presigned PUT URL). On success each named file output is PUT there (with Content-Length and its Content-Type) instead of being kept, and its result value becomes "[custom storage]". A failed PUT fails the job, naming the output and the HTTP status.',
    },
  },
} as const;

const pagination = {
  page: { type: "integer", minimum: 0, maximum: MAX_PAGE, default: 0, description: "Page number, from 0" },
  size: { type: "integer", minimum: 1, maximum: MAX_PAGE_SIZE, default: 100, description: "Page size" },
} as const;

export const listJobsQuery = {
  type: "object",
  additionalProperties: false,
  properties: {
    status: { type: "array", items: { type: "string", enum: JOB_STATUSES }, description: "Repeatable" },
    workflow: { type: "array", items: { type: "string", minLength: 1 }, description: "Repeatable" },
    batchName: { type: "string" },
    ...pagination,
  },
} as const;

export const listWorkflowsQuery = {
  type: "object",
  additionalProperties: false,
  properties: pagination,
} as const;

export const idResponse = {
  type: "object",
  description: "The job's id",
  required: ["id"],
  properties: { id: { type: "string" } },
} as const;

export const statusResponse = {
  type: "object",
  description: "The job's status and progress",
  required: ["id", "status"],
  properties: {
    id: { type: "string" },
    status: { type: "string", enum: JOB_STATUSES },
    progress: progressSchema,
    step: stepSchema,
  },
} as const;

/** Idempotency-Key: any printable ASCII text of 1 to 255 characters, chosen by the client (a UUID is typical). */
export const createJobHeaders = {
  type: "object",
  properties: {
    "idempotency-key": {
      type: "string",
      pattern: "^[\\x21-\\x7e]{1,255}$",
      description:
        "Mixdown extension: makes the create safe to retry. Kept 24 hours per application; printable ASCII, 1 to 255 characters",
    },
  },
} as const;

/**
 * The error responses of a route, by the codes it may answer with: one Error response per status, described by
 * its codes (e.g. 404 "`JOB_NOT_FOUND`: Job not found").
 */
export function errorResponses(...codes: ApiErrorCode[]): Record<number, { $ref: string; description: string }> {
  const byStatus = new Map<number, ApiErrorCode[]>();
  for (const code of codes)
    byStatus.set(API_ERRORS[code].status, [...(byStatus.get(API_ERRORS[code].status) ?? []), code]);
  return Object.fromEntries(
    [...byStatus].map(([status, sharing]) => [
      status,
      { $ref: "Error#", description: sharing.map((code) => `\`${code}\`: ${API_ERRORS[code].message}`).join("; ") },
    ]),
  );
}
