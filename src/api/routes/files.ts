import path from "node:path";
import type { FastifyInstance, onRequestHookHandler } from "fastify";
import type { Config } from "../../config.ts";
import { ApiError } from "../../errors.ts";
import { FILES_PATH } from "../../store/local/signed-file-urls.ts";
import {
  contentDisposition,
  fileContentSecurityPolicy,
  NO_FILE_CSP,
  servedContentType,
} from "../../store/served-file.ts";
import { errorResponses } from "../schemas.ts";
import type { ApiContext } from "./context.ts";

/** A refused upload body up to this size is read and discarded, so the client sees the error response. */
const LINGER_BYTES = 1024 * 1024;

const signedQuery = {
  type: "object",
  properties: { expires: { type: "string" }, signature: { type: "string" } },
} as const;

/** Parses a single-range "bytes=" header; undefined means serve the whole file (RFC 9110 allows ignoring). */
export function parseRange(
  header: string | undefined,
  size: number,
): { start: number; end: number } | "unsatisfiable" | undefined {
  const match = header?.match(/^bytes=(\d*)-(\d*)$/);
  if (!match || (match[1] === "" && match[2] === "")) return undefined;
  const [, from = "", to = ""] = match;
  if (from === "") {
    const suffix = Number(to);
    if (suffix === 0) return "unsatisfiable";
    return { start: Math.max(0, size - suffix), end: size - 1 };
  }
  const start = Number(from);
  if (to !== "" && Number(to) < start) return undefined; // invalid: ignored (RFC 9110 §14.2)
  if (start >= size) return "unsatisfiable";
  const end = to === "" ? size - 1 : Math.min(Number(to), size - 1);
  return { start, end };
}

/** The upload server (PUT), authorised by URL signatures instead of API keys. */
export function uploadRoutes(app: FastifyInstance, { runtime }: ApiContext): void {
  const { uploads } = runtime;

  // Upload bodies are any media type (or none) and are streamed, never parsed or buffered.
  app.removeAllContentTypeParsers();
  app.addContentTypeParser("*", (_request, _payload, done) => done(null));

  app.put(
    "/uploads/:id",
    {
      schema: {
        tags: ["uploads"],
        summary: "Upload a file to a URL from GET /upload (once; body streamed to storage)",
        description:
          "An empty body is refused (400 EMPTY_UPLOAD) without using the URL up, as is a failed upload: PUT the file again.",
        params: { type: "object", properties: { id: { type: "string" } } },
        querystring: signedQuery,
        response: {
          200: {
            type: "object",
            description: "The file was stored",
            properties: { size: { type: "integer" }, contentType: { type: "string" } },
          },
          ...errorResponses("EMPTY_UPLOAD", "INVALID_SIGNATURE", "UPLOAD_ALREADY_USED", "PAYLOAD_TOO_LARGE"),
        },
      },
    },
    async (request, reply) => {
      const { id } = request.params as { id: string };
      const length = request.headers["content-length"];
      try {
        const info = await uploads.receive(id, request.query as Record<string, unknown>, request.raw, {
          contentType: request.headers["content-type"],
          contentLength: length === undefined ? undefined : Number(length),
        });
        return { size: info.size, contentType: info.contentType };
      } catch (error) {
        // The client may still be sending: discard the rest so it can read the answer; past a small body,
        // close the connection rather than read it all.
        if (!request.raw.readableEnded) {
          request.raw.resume();
          if (!(Number(length) <= LINGER_BYTES)) reply.header("connection", "close");
        }
        throw error;
      }
    },
  );
}

/** What the files' own host answers besides files: health and metrics, for load balancers and monitoring. */
const OPS_PATHS = new Set(["/healthz", "/metrics"]);

/** The host part (name and port) of a base URL, as a request's Host header gives it. */
const hostOf = (url: string): string => new URL(url).host.toLowerCase();

/**
 * With MIXDOWN_FILES_URL, the files' own host serves files and nothing else: no dashboard (whose session cookie
 * must never exist there), no API, no documentation; only the health and metrics endpoints besides. A hook for the
 * whole server; undefined when files share the public URL's host.
 */
export function filesHostOnly(config: Config): onRequestHookHandler | undefined {
  if (!config.filesUrl) return undefined;
  const filesHost = hostOf(config.filesUrl);
  return (request, reply, done) => {
    const pathname = request.url.split("?")[0] ?? "";
    if (request.host.toLowerCase() !== filesHost || pathname.startsWith(FILES_PATH) || OPS_PATHS.has(pathname))
      return done();
    reply
      .code(404)
      .header("x-content-type-options", "nosniff")
      .header("content-security-policy", NO_FILE_CSP)
      .send({ code: "NOT_FOUND", message: `${new URL(config.filesUrl ?? "").origin} serves only files` });
  };
}

/**
 * File downloads (GET, HEAD), authorised by URL signatures instead of API keys. Every answer, errors too, is
 * `nosniff` and sandboxed by its CSP; what a browser must not show in place is an attachment, typed as bytes
 * (see served-file.ts): an uploaded HTML or SVG file never runs as a page of this origin.
 */
export function downloadRoutes(app: FastifyInstance, { runtime }: ApiContext): void {
  const { blobs, signer, config } = runtime;
  // Files served on MIXDOWN_FILES_URL are not served on the public URL's host (the dashboard's) too: the signature
  // does not cover the host, so a file URL moved there would otherwise run on the dashboard's origin.
  const refusedHost = config.filesUrl ? hostOf(config.publicUrl) : undefined;

  app.addHook("onRequest", (_request, reply, done) => {
    reply.header("x-content-type-options", "nosniff");
    reply.header("content-security-policy", NO_FILE_CSP);
    // Signed URLs are bearer capabilities with no cookie or other ambient authority: any page holding one may
    // read it (the dashboard on another origin than MIXDOWN_FILES_URL's, and the browser's own sandboxed media
    // viewer, whose origin is opaque).
    reply.header("access-control-allow-origin", "*");
    done();
  });

  // GET and HEAD declared together: Fastify's automatic HEAD route would zero Content-Length.
  app.route({
    method: ["GET", "HEAD"],
    url: `${FILES_PATH}*`,
    schema: {
      tags: ["files"],
      summary: "Download an uploaded or result file (signed URL; supports Range)",
      querystring: signedQuery,
    },
    handler: async (request, reply) => {
      if (refusedHost !== undefined && request.host.toLowerCase() === refusedHost)
        throw new ApiError("FILE_NOT_FOUND", `Files are served at ${new URL(config.filesUrl ?? "").origin}`);
      const pathname = decodeURIComponent(new URL(request.url, "http://relative").pathname);
      const verdict = signer.verify("GET", pathname, request.query as Record<string, unknown>);
      if (verdict !== "valid") throw new ApiError("INVALID_SIGNATURE");
      const key = pathname.slice(FILES_PATH.length);
      const info = await blobs.stat(key);
      if (!info) throw new ApiError("FILE_NOT_FOUND");
      reply.header("accept-ranges", "bytes");
      const range = parseRange(request.headers.range, info.size);
      if (range === "unsatisfiable") {
        reply.header("content-range", `bytes */${info.size}`);
        throw new ApiError("RANGE_NOT_SATISFIABLE");
      }
      reply.header("content-type", servedContentType(info.contentType));
      reply.header("content-disposition", contentDisposition(info.contentType, path.posix.basename(key)));
      reply.header("content-security-policy", fileContentSecurityPolicy(info.contentType));
      if (range) {
        reply.code(206);
        reply.header("content-range", `bytes ${range.start}-${range.end}/${info.size}`);
        reply.header("content-length", range.end - range.start + 1);
      } else {
        reply.header("content-length", info.size);
      }
      if (request.method === "HEAD") return reply.send();
      return reply.send(blobs.read(key, range));
    },
  });
}
