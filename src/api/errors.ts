import type { FastifyError, FastifyReply, FastifyRequest } from "fastify";
import { API_ERRORS, ApiError, type ErrorDetail } from "../errors.ts";
import { describeIssues, type SchemaIssue } from "../schema-issues.ts";

function summary(prefix: string, details: ErrorDetail[]): string {
  return `${prefix}: ${details.map((d) => `${d.field} ${d.message}`).join("; ")}`;
}

/** Maps everything thrown in a request to the catalogue's JSON error body. */
export function handleError(error: FastifyError, request: FastifyRequest, reply: FastifyReply) {
  if (error instanceof ApiError) {
    const message = error.details?.length ? summary(error.message, error.details) : error.message;
    if (error.retryAfterSeconds !== undefined) reply.header("retry-after", String(error.retryAfterSeconds));
    return reply.code(error.status).send({ code: error.code, message, details: error.details });
  }
  if (error.validation) {
    const details = describeIssues(error.validation as SchemaIssue[]);
    const prefix = error.validationContext === "body" ? "Invalid fields" : "Invalid parameters";
    return reply.code(400).send({ code: "INVALID_REQUEST", message: summary(prefix, details), details });
  }
  if (error.statusCode === 413) {
    return reply.code(413).send({ code: "PAYLOAD_TOO_LARGE", message: "The request body is too large" });
  }
  if (error.code === "FST_ERR_CTP_INVALID_JSON_BODY" || error.code === "FST_ERR_CTP_EMPTY_JSON_BODY") {
    const details = [
      { field: "body", message: error.code.includes("EMPTY") ? "must not be empty" : "is not valid JSON" },
    ];
    return reply.code(400).send({ code: "INVALID_REQUEST", message: summary("Invalid fields", details), details });
  }
  if (error.statusCode === 415) {
    return reply.code(415).send({ code: "UNSUPPORTED_MEDIA_TYPE", message: API_ERRORS.UNSUPPORTED_MEDIA_TYPE.message });
  }
  if (error.statusCode && error.statusCode >= 400 && error.statusCode < 500) {
    // Fastify's own message (e.g. a body shorter than its Content-Length), cut short: it may quote the request.
    const message = error.message.length > 200 ? `${error.message.slice(0, 200)}…` : error.message;
    return reply.code(400).send({ code: "INVALID_REQUEST", message });
  }
  request.log.error({ err: error }, "request failed");
  return reply.code(500).send({ code: "INTERNAL_ERROR", message: "Internal server error" });
}
