import type { FastifyInstance } from "fastify";
import type { JobStatus } from "../../domain.ts";
import { ApiError } from "../../errors.ts";
import { isUuid } from "../../ids.ts";
import type { CreateJobRequest } from "../../services/jobs.ts";
import { paginationLinks, renderJob } from "../render.ts";
import {
  createJobBody,
  createJobHeaders,
  errorResponses,
  idResponse,
  jobIdParams,
  listJobsQuery,
  statusResponse,
} from "../schemas.ts";
import type { ApiContext } from "./context.ts";

export function jobId(params: unknown): string {
  const { id } = params as { id: string };
  if (!isUuid(id)) {
    // Repeated only when short and plain: the path is the client's text, of any length and characters.
    const shown = /^[\w.-]{1,64}$/.test(id) ? `"${id}"` : "The id in the path";
    throw new ApiError("INVALID_JOB_ID", `${shown} is not a valid job id (a UUID)`);
  }
  return id.toLowerCase();
}

export function jobRoutes(app: FastifyInstance, { runtime }: ApiContext): void {
  const { jobs, fileUrls, config } = runtime;
  const render = (job: Parameters<typeof renderJob>[0]) => renderJob(job, fileUrls, config.urlTtlSeconds);
  const tags = ["jobs"];

  app.post(
    "/job",
    {
      schema: {
        tags,
        summary: "Create a job",
        description:
          "With an Idempotency-Key header, a retried request (same key, same body, within 24 hours) returns the same job id instead of creating a second job; the same key with a different body is refused (409 IDEMPOTENCY_KEY_REUSED).",
        headers: createJobHeaders,
        body: createJobBody,
        response: {
          200: idResponse,
          ...errorResponses(
            "INVALID_REQUEST",
            "UNAUTHORIZED",
            "WORKFLOW_NOT_FOUND",
            "IDEMPOTENCY_KEY_REUSED",
            "INVALID_WORKFLOW_PARAMS",
            "WORKFLOW_HAS_ERRORS",
            "WORKFLOW_UNAVAILABLE",
            "TOO_MANY_QUEUED_JOBS",
          ),
        },
      },
    },
    async (request) => {
      const key = (request.headers as { "idempotency-key"?: string })["idempotency-key"];
      return { id: await jobs.create(request.application.id, request.body as CreateJobRequest, key) };
    },
  );

  app.get(
    "/job",
    {
      schema: {
        tags,
        summary: "List jobs, newest first",
        description:
          "A bare array of jobs; X-Total-Count holds the number of matching jobs and Link (RFC 8288) the next/prev pages.",
        querystring: listJobsQuery,
        response: {
          200: { type: "array", items: { $ref: "Job#" }, description: "The page of jobs" },
          ...errorResponses("INVALID_REQUEST", "UNAUTHORIZED"),
        },
      },
    },
    async (request, reply) => {
      const query = request.query as {
        status?: JobStatus[];
        workflow?: string[];
        batchName?: string;
        page: number;
        size: number;
      };
      const page = await jobs.list({
        appId: request.application.id,
        statuses: query.status ?? [],
        workflows: query.workflow ?? [],
        batchName: query.batchName,
        page: query.page,
        size: query.size,
      });
      const url = new URL(request.url, config.publicUrl);
      reply.header("x-total-count", page.total);
      reply.header(
        "link",
        paginationLinks(`${config.publicUrl}${url.pathname}`, url.searchParams, query.page, query.size, page.total),
      );
      return Promise.all(page.items.map(render));
    },
  );

  app.get(
    "/job/:id",
    {
      schema: {
        tags,
        summary: "Get a job",
        params: jobIdParams,
        response: {
          200: { $ref: "Job#", description: "The job" },
          ...errorResponses("INVALID_JOB_ID", "UNAUTHORIZED", "JOB_NOT_FOUND"),
        },
      },
    },
    async (request) => render(await jobs.get(request.application.id, jobId(request.params))),
  );

  app.get(
    "/job/:id/status",
    {
      schema: {
        tags,
        summary: "Get a job's status and progress",
        params: jobIdParams,
        response: { 200: statusResponse, ...errorResponses("INVALID_JOB_ID", "UNAUTHORIZED", "JOB_NOT_FOUND") },
      },
    },
    // Not async: clients poll this route, and the embedded store answers without a promise hop.
    (request) => {
      const id = jobId(request.params);
      const state = jobs.state(request.application.id, id);
      return state instanceof Promise ? state.then((known) => ({ ...known, id })) : { ...state, id };
    },
  );

  app.post(
    "/job/:id/cancel",
    {
      schema: {
        tags,
        summary: "Cancel a job",
        description:
          "Stops a QUEUED or STARTED job: it ends FAILED with error code CANCELLED, and its partial results are removed. Cancelling a cancelled job returns it again; a job that ended otherwise gets 409 JOB_ALREADY_FINISHED. Unlike DELETE, the job stays.",
        params: jobIdParams,
        response: {
          200: { $ref: "Job#", description: "The cancelled job" },
          ...errorResponses("INVALID_JOB_ID", "UNAUTHORIZED", "JOB_NOT_FOUND", "JOB_ALREADY_FINISHED"),
        },
      },
    },
    async (request) => render(await jobs.cancel(request.application.id, jobId(request.params))),
  );

  app.delete(
    "/job/:id",
    {
      schema: {
        tags,
        summary: "Delete a job (irreversible; stops it if running and deletes its result files)",
        params: jobIdParams,
        response: { 200: idResponse, ...errorResponses("INVALID_JOB_ID", "UNAUTHORIZED", "JOB_NOT_FOUND") },
      },
    },
    async (request) => {
      const id = jobId(request.params);
      await jobs.delete(request.application.id, id);
      return { id };
    },
  );
}
