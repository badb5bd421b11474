import type { FastifyError, FastifyReply, FastifyRequest } from "fastify";
import { ApiError, type ErrorDetail } from "../errors.ts";

interface ValidationIssue {
  keyword: string;
  instancePath: string;
  params: Record<string, unknown>;
  message?: string;
}

/** A field-level description of one JSON Schema violation. */
export function describeIssue(issue: ValidationIssue, root = ""): ErrorDetail {
  const path = issue.instancePath.split("/").filter(Boolean);
  if (issue.keyword === "required") path.push(String(issue.params.missingProperty));
  if (issue.keyword === "additionalProperties") path.push(String(issue.params.additionalProperty));
  const field = [root, ...path].filter(Boolean).join(".") || root || "body";
  const messages: Record<string, () => string> = {
    required: () => "is required",
    additionalProperties: () => "is not a known field",
    type: () => `must be of type ${[issue.params.type].flat().join(" or ")}`,
    enum: () => `must be one of ${(issue.params.allowedValues as unknown[]).map(String).join(", ")}`,
  };
  return { field, message: messages[issue.keyword]?.() ?? issue.message ?? "is invalid" };
}

function summary(prefix: string, details: ErrorDetail[]): string {
  return `${prefix}: ${details.map((d) => `${d.field} ${d.message}`).join("; ")}`;
}

/** Maps everything thrown in a request to the catalogue's JSON error body. */
export function handleError(error: FastifyError, request: FastifyRequest, reply: FastifyReply) {
  if (error instanceof ApiError) {
    const message = error.details?.length ? summary(error.message, error.details) : error.message;
    return reply.code(error.status).send({ code: error.code, message, details: error.details });
  }
  if (error.validation) {
    const details = error.validation.map((issue) => describeIssue(issue as ValidationIssue));
    const prefix = error.validationContext === "body" ? "Invalid fields" : "Invalid parameters";
    return reply.code(400).send({ code: "INVALID_REQUEST", message: summary(prefix, details), details });
  }
  if (error.statusCode === 413) {
    return reply.code(413).send({ code: "PAYLOAD_TOO_LARGE", message: "The request body is too large" });
  }
  if (error.statusCode && error.statusCode >= 400 && error.statusCode < 500) {
    return reply.code(error.statusCode === 415 ? 415 : 400).send({ code: "INVALID_REQUEST", message: error.message });
  }
  request.log.error({ err: error }, "request failed");
  return reply.code(500).send({ code: "INTERNAL_ERROR", message: "Internal server error" });
}
