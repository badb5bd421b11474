import path from "node:path";
import type { FastifyInstance } from "fastify";
import { ApiError } from "../../errors.ts";
import { FILES_PATH } from "../../store/local/signed-file-urls.ts";
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
        params: { type: "object", properties: { id: { type: "string" } } },
        querystring: signedQuery,
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

/** File downloads (GET, HEAD), authorised by URL signatures instead of API keys. */
export function downloadRoutes(app: FastifyInstance, { runtime }: ApiContext): void {
  const { blobs, signer } = runtime;

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
      const pathname = decodeURIComponent(new URL(request.url, "http://relative").pathname);
      const verdict = signer.verify("GET", pathname, request.query as Record<string, unknown>);
      if (verdict !== "valid") throw new ApiError("INVALID_SIGNATURE");
      const key = pathname.slice(FILES_PATH.length);
      const info = await blobs.stat(key);
      if (!info) throw new ApiError("FILE_NOT_FOUND");
      reply.header("content-type", info.contentType);
      reply.header("accept-ranges", "bytes");
      reply.header("content-disposition", `inline; filename="${path.basename(key)}"`);
      const range = parseRange(request.headers.range, info.size);
      if (range === "unsatisfiable") {
        reply.header("content-range", `bytes */${info.size}`);
        throw new ApiError("RANGE_NOT_SATISFIABLE");
      }
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
