import http from "node:http";
import type { Socket } from "node:net";
import type { FastifyError, FastifyReply, FastifyRequest } from "fastify";
import { API_ERRORS, type ApiErrorCode } from "../errors.ts";

/** The longest path parameter the router accepts (a custom workflow's slug may be 200 characters). */
export const MAX_PARAM_LENGTH = 500;

type Answer = { code: ApiErrorCode; message: string };
/** What Node's `clientError` gives: an llhttp error, with the bytes it stopped at. */
type ConnectionError = Error & { code?: string; rawPacket?: unknown };

const FRAMING = "The body's framing is invalid: Content-Length or Transfer-Encoding is malformed, or both are given";
const HEADER_LINE = "A header line is malformed (a header name or value has characters HTTP does not allow)";

/** llhttp's error codes (see Node's `clientError` event) → what the client is told; the rest are MALFORMED_REQUEST. */
const PARSER_ERRORS: Record<string, Answer> = {
  ERR_HTTP_REQUEST_TIMEOUT: { code: "REQUEST_TIMEOUT", message: "The request was not received in full in time" },
  ERR_HTTP_HEADERS_TIMEOUT: { code: "REQUEST_TIMEOUT", message: "The request's headers were not received in time" },
  HPE_INVALID_METHOD: { code: "MALFORMED_REQUEST", message: "The request's method is not an HTTP method" },
  HPE_INVALID_URL: { code: "MALFORMED_REQUEST", message: "The request target is not a valid path" },
  HPE_INVALID_VERSION: { code: "MALFORMED_REQUEST", message: "The request is not HTTP/1.0 or HTTP/1.1" },
  HPE_INVALID_CONSTANT: { code: "MALFORMED_REQUEST", message: "The request is not HTTP/1.0 or HTTP/1.1" },
  HPE_INVALID_HEADER_TOKEN: { code: "MALFORMED_REQUEST", message: HEADER_LINE },
  HPE_CR_EXPECTED: { code: "MALFORMED_REQUEST", message: HEADER_LINE },
  HPE_LF_EXPECTED: { code: "MALFORMED_REQUEST", message: HEADER_LINE },
  HPE_UNEXPECTED_SPACE: { code: "MALFORMED_REQUEST", message: HEADER_LINE },
  HPE_INVALID_CONTENT_LENGTH: { code: "MALFORMED_REQUEST", message: FRAMING },
  HPE_UNEXPECTED_CONTENT_LENGTH: { code: "MALFORMED_REQUEST", message: FRAMING },
  HPE_INVALID_TRANSFER_ENCODING: { code: "MALFORMED_REQUEST", message: FRAMING },
  HPE_INVALID_CHUNK_SIZE: { code: "MALFORMED_REQUEST", message: FRAMING },
  HPE_CHUNK_EXTENSIONS_OVERFLOW: { code: "MALFORMED_REQUEST", message: FRAMING },
};

/** How long the request line in the bytes the parser stopped at is, when they begin with one (else 0). */
function requestLineLength(packet: unknown): number {
  if (!Buffer.isBuffer(packet) || !/^[A-Z]{3,10} /.test(packet.subarray(0, 11).toString("latin1"))) return 0;
  const end = packet.indexOf("\r\n");
  return end === -1 ? packet.length : end;
}

/** What a request the HTTP parser refused is answered with; the request's own bytes are never repeated. */
export function describeClientError(error: ConnectionError): Answer {
  const code = error.code ?? "";
  if (code === "HPE_HEADER_OVERFLOW") {
    // Node counts the request line with the headers: a request line past the limit on its own is a URL too long.
    const limit = `${Math.round(http.maxHeaderSize / 1024)} KB`;
    return requestLineLength(error.rawPacket) > http.maxHeaderSize
      ? { code: "URI_TOO_LONG", message: `The request line (method and URL) is longer than ${limit}` }
      : { code: "HEADERS_TOO_LARGE", message: `The request line and headers are larger than ${limit} together` };
  }
  const known = PARSER_ERRORS[code];
  if (known) return known;
  const detail = /^[A-Z_]{1,40}$/.test(code) ? ` (${code})` : "";
  return { code: "MALFORMED_REQUEST", message: `${API_ERRORS.MALFORMED_REQUEST.message}${detail}` };
}

/**
 * The raw HTTP/1.1 answer to a request the parser refused: JSON {code, message}, then the connection closes. The
 * answer to a HEAD has no body (its client would take one for the start of a next response).
 */
export function clientErrorResponse(answer: Answer, head = false): string {
  const status = API_ERRORS[answer.code].status;
  const body = JSON.stringify(answer);
  return [
    `HTTP/1.1 ${status} ${http.STATUS_CODES[status]}`,
    "content-type: application/json; charset=utf-8",
    `content-length: ${Buffer.byteLength(body)}`,
    "connection: close",
    "",
    head ? "" : body,
  ].join("\r\n");
}

/**
 * Fastify's clientErrorHandler (Node's `clientError`): malformed HTTP gets Mixdown's error body. As Node does, it
 * answers only when no response has begun on the connection (a pipelined request's answer must not be corrupted).
 */
export function answerClientError(error: ConnectionError, socket: Socket): void {
  if (error.code === "ECONNRESET" || socket.destroyed) return;
  const inFlight = (socket as Socket & { _httpMessage?: http.ServerResponse | null })._httpMessage;
  if (socket.writable && !inFlight?.headersSent) {
    const head = Buffer.isBuffer(error.rawPacket) && error.rawPacket.subarray(0, 5).toString("latin1") === "HEAD ";
    socket.write(clientErrorResponse(describeClientError(error), head));
  }
  socket.destroy(error);
}

/** Fastify's frameworkErrors: routing failures (a path that does not decode, an over-long parameter). */
export function answerFrameworkError(error: FastifyError, request: FastifyRequest, reply: FastifyReply): void {
  const answers: Record<string, Answer> = {
    FST_ERR_BAD_URL: {
      code: "MALFORMED_REQUEST",
      message: "The request path is not valid: it has a percent-encoding that is not UTF-8 (such as %ff)",
    },
    FST_ERR_MAX_PARAM_LENGTH: {
      code: "INVALID_REQUEST",
      message: `A path parameter is longer than ${MAX_PARAM_LENGTH} characters`,
    },
  };
  const answer = answers[error.code];
  if (!answer) request.log.error({ err: error }, "routing failed");
  const { code, message } = answer ?? { code: "INTERNAL_ERROR", message: API_ERRORS.INTERNAL_ERROR.message };
  reply.header("x-request-id", request.id).code(API_ERRORS[code].status).send({ code, message });
}
