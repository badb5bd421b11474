/** Every error the HTTP API answers with: code → status and default message. */
export const API_ERRORS = {
  INVALID_REQUEST: { status: 400, message: "The request is invalid" },
  INVALID_JOB_ID: { status: 400, message: "The job id is not a valid UUID" },
  MALFORMED_REQUEST: { status: 400, message: "The request is not valid HTTP/1.1" },
  EMPTY_UPLOAD: { status: 400, message: "The upload is empty: send the file's bytes as the PUT body" },
  UNAUTHORIZED: { status: 401, message: "Missing or invalid API key" },
  INVALID_SIGNATURE: { status: 403, message: "The URL signature is invalid or has expired" },
  UPLOAD_ALREADY_USED: { status: 403, message: "This upload URL has already been used" },
  NOT_FOUND: { status: 404, message: "Route not found" },
  JOB_NOT_FOUND: { status: 404, message: "Job not found" },
  WORKFLOW_NOT_FOUND: { status: 404, message: "Workflow not found" },
  FILE_NOT_FOUND: { status: 404, message: "File not found" },
  JOB_ALREADY_FINISHED: { status: 409, message: "The job has already finished" },
  IDEMPOTENCY_KEY_REUSED: {
    status: 409,
    message: "This Idempotency-Key was already used with a different request body",
  },
  REQUEST_TIMEOUT: { status: 408, message: "The request was not received in time" },
  PAYLOAD_TOO_LARGE: { status: 413, message: "The body is larger than allowed" },
  URI_TOO_LONG: { status: 414, message: "The request's URL is longer than the server accepts" },
  UNSUPPORTED_MEDIA_TYPE: { status: 415, message: "The body's Content-Type is not one this endpoint reads" },
  RANGE_NOT_SATISFIABLE: { status: 416, message: "The requested range is not satisfiable" },
  INVALID_WORKFLOW_PARAMS: { status: 422, message: "The params do not match the workflow's input schema" },
  WORKFLOW_HAS_ERRORS: { status: 422, message: "The workflow contains errors" },
  WORKFLOW_UNAVAILABLE: {
    status: 422,
    message: "The workflow cannot run on this server (a program or model is missing)",
  },
  RATE_LIMITED: { status: 429, message: "Too many requests for this application" },
  HEADERS_TOO_LARGE: { status: 431, message: "The request's headers are larger than the server accepts" },
  TOO_MANY_QUEUED_JOBS: { status: 429, message: "This application has too many jobs waiting to start" },
  INTERNAL_ERROR: { status: 500, message: "Internal server error" },
  SHUTTING_DOWN: { status: 503, message: "The server is shutting down" },
} as const;

export type ApiErrorCode = keyof typeof API_ERRORS;

export interface ErrorDetail {
  field: string;
  message: string;
}

export class ApiError extends Error {
  readonly status: number;
  readonly code: ApiErrorCode;
  readonly details?: ErrorDetail[];
  /** Sent as Retry-After (429): when the client may try again. */
  readonly retryAfterSeconds?: number;

  constructor(
    code: ApiErrorCode,
    message?: string,
    details?: ErrorDetail[],
    options?: { cause?: unknown; retryAfterSeconds?: number },
  ) {
    super(message ?? API_ERRORS[code].message, options);
    this.code = code;
    this.details = details;
    this.status = API_ERRORS[code].status;
    this.retryAfterSeconds = options?.retryAfterSeconds;
  }
}
