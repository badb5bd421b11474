import { JOB_ERROR_CODES, JOB_STATUSES } from "../domain.ts";

/** JSON Schemas of the API: they validate requests, shape responses and generate the OpenAPI document. */

export const MAX_PAGE_SIZE = 1000;

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
  },
} as const;

const pagination = {
  page: { type: "integer", minimum: 0, default: 0, description: "Page number, from 0" },
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
  required: ["id"],
  properties: { id: { type: "string" } },
} as const;

export const statusResponse = {
  type: "object",
  required: ["id", "status"],
  properties: { id: { type: "string" }, status: { type: "string", enum: JOB_STATUSES } },
} as const;

export const errorResponses = (...statuses: number[]) =>
  Object.fromEntries(statuses.map((status) => [status, { $ref: "Error#" }]));
