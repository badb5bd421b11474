/** Detail of a validation error, as Mixdown sends it. */
export interface ErrorDetail {
  field?: string;
  message: string;
  [key: string]: unknown;
}

/**
 * An error answered by the service (`status` is the HTTP status, `code` its error code), or a request that
 * got no answer (`status` 0, `code` "NETWORK_ERROR", the cause attached).
 */
export class MixdownError extends Error {
  readonly status: number;
  readonly code: string;
  readonly details: ErrorDetail[] | undefined;
  /** The server's request id (X-Request-Id), to find the request in its logs. */
  readonly requestId: string | undefined;
  /** How long the server asked to wait before trying again (Retry-After, on 429 and 503), in ms. */
  readonly retryAfterMs: number | undefined;

  constructor(
    message: string,
    options: {
      status: number;
      code: string;
      details?: ErrorDetail[];
      requestId?: string;
      retryAfterMs?: number;
      cause?: unknown;
    },
  ) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = "MixdownError";
    this.status = options.status;
    this.code = options.code;
    this.details = options.details;
    this.requestId = options.requestId;
    this.retryAfterMs = options.retryAfterMs;
  }
}

/** Retry-After as milliseconds: delay-seconds or an HTTP date; undefined when absent or unreadable. */
export function retryAfterMs(header: string | null, now = Date.now()): number | undefined {
  if (header === null || header.trim() === "") return undefined;
  if (/^\s*\d+\s*$/.test(header)) return Number(header) * 1000;
  const at = Date.parse(header);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}

/** waitForJobCompletion gave up: the job had not finished within `timeoutMs`. */
export class JobTimeoutError extends Error {
  readonly jobId: string;
  readonly lastStatus: string | undefined;

  constructor(jobId: string, timeoutMs: number, lastStatus: string | undefined) {
    super(`job ${jobId} did not finish within ${timeoutMs} ms (last status: ${lastStatus ?? "unknown"})`);
    this.name = "JobTimeoutError";
    this.jobId = jobId;
    this.lastStatus = lastStatus;
  }
}

/**
 * The `<Code>` and `<Message>` of an S3 XML error (files in distributed mode are served by the object store,
 * e.g. `SignatureDoesNotMatch`, `NoSuchKey`, `AccessDenied` for an expired URL).
 */
function s3Error(text: string): { code: string; message?: string } | undefined {
  const code = /<Error>[\s\S]*?<Code>([^<]+)<\/Code>/.exec(text)?.[1];
  if (!code) return undefined;
  const message = /<Message>([^<]+)<\/Message>/.exec(text)?.[1];
  return { code, message };
}

/**
 * Builds the error for a non-2xx response, from a JSON body `{code, message, details}` or an S3 XML error
 * when there is one.
 */
export async function errorFromResponse(response: Response, what: string): Promise<MixdownError> {
  const text = await response.text().catch(() => "");
  let body: { code?: unknown; message?: unknown; details?: unknown } | undefined;
  try {
    const parsed: unknown = JSON.parse(text);
    if (parsed && typeof parsed === "object") body = parsed as typeof body;
  } catch {
    body = s3Error(text);
  }
  const code = typeof body?.code === "string" ? body.code : `HTTP_${response.status}`;
  const message =
    typeof body?.message === "string" && body.message
      ? body.message
      : `${what} failed: HTTP ${response.status} ${response.statusText}${
          typeof body?.code === "string" ? ` (${body.code})` : text ? `: ${text.slice(0, 200)}` : ""
        }`;
  return new MixdownError(message, {
    status: response.status,
    code,
    details: Array.isArray(body?.details) ? (body.details as ErrorDetail[]) : undefined,
    requestId: response.headers.get("x-request-id") ?? undefined,
    retryAfterMs: retryAfterMs(response.headers.get("retry-after")),
  });
}

export function networkError(error: unknown, what: string): MixdownError {
  if (error instanceof MixdownError) return error;
  const reason = (error as { cause?: { message?: string } })?.cause?.message ?? (error as Error)?.message;
  return new MixdownError(`${what} failed: ${reason ?? String(error)}`, {
    status: 0,
    code: "NETWORK_ERROR",
    cause: error,
  });
}
