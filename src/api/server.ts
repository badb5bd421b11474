import http from "node:http";
import swagger from "@fastify/swagger";
import swaggerUi from "@fastify/swagger-ui";
import { Ajv } from "ajv";
import addFormats from "ajv-formats";
import Fastify, { type FastifyInstance } from "fastify";
import { dashboard } from "../dashboard/plugin.ts";
import { loggedRequest } from "../dashboard/setup-link.ts";
import type { Runtime } from "../runtime.ts";
import { WEBHOOKS_OPENAPI } from "../webhooks/openapi.ts";
import { authHook } from "./auth.ts";
import { answerClientError, answerFrameworkError, MAX_PARAM_LENGTH } from "./client-errors.ts";
import { handleError } from "./errors.ts";
import type { Metrics } from "./metrics.ts";
import { rateLimitHook } from "./rate-limit.ts";
import { requestIds, secondsSinceArrival } from "./request-ids.ts";
import type { ApiContext } from "./routes/context.ts";
import { downloadRoutes, filesHostOnly, uploadRoutes } from "./routes/files.ts";
import { jobEventRoutes } from "./routes/job-events.ts";
import { jobRoutes } from "./routes/jobs.ts";
import { opsRoutes } from "./routes/ops.ts";
import { otherRoutes } from "./routes/others.ts";
import { errorResponses, errorSchema, jobSchema, workflowSchema } from "./schemas.ts";

const API_PREFIXES = ["/v1", "/api"];

/** Bodies are validated as sent (no coercion); query strings are coerced from text, repeatable keys to arrays. */
function validators() {
  const options = { allErrors: true, useDefaults: true, strict: false } as const;
  const strictAjv = new Ajv({ ...options, coerceTypes: false });
  const queryAjv = new Ajv({ ...options, coerceTypes: "array" });
  for (const ajv of [strictAjv, queryAjv]) {
    (addFormats as unknown as (a: Ajv) => void)(ajv);
    for (const schema of [errorSchema, jobSchema, workflowSchema]) ajv.addSchema(schema);
  }
  return ({ schema, httpPart }: { schema: object; httpPart?: string }) =>
    (httpPart === "querystring" ? queryAjv : strictAjv).compile(schema);
}

/**
 * The node's HTTP server: the API, its documentation and the upload server, then the unauthenticated
 * operational endpoints (/healthz, /metrics). A worker node (`api: false`) serves only the latter.
 */
export async function buildServer(
  runtime: Runtime,
  metrics: Metrics,
  options: { api: boolean } = { api: true },
): Promise<FastifyInstance> {
  const { config } = runtime;
  // With TLS configured the one listener speaks HTTPS only (API, uploads and downloads alike).
  const https = config.tls ? { https: { cert: config.tls.cert, key: config.tls.key } } : {};
  const app = Fastify({
    ...https,
    // "silent" is no logger at all: pino would still make a child logger for every request.
    logger:
      config.logLevel === "silent"
        ? false
        : { level: config.logLevel, redact: ["req.headers.authorization"], serializers: { req: loggedRequest } },
    genReqId: requestIds(),
    bodyLimit: 1024 * 1024,
    // Behind named reverse proxies, request.ip is the client's (the dashboard throttles sign-ins by it).
    ...(config.trustProxy.length > 0 ? { trustProxy: config.trustProxy } : {}),
    forceCloseConnections: "idle",
    routerOptions: { ignoreTrailingSlash: true, maxParamLength: MAX_PARAM_LENGTH },
    // Malformed HTTP and unroutable paths are answered in the API's error shape too.
    clientErrorHandler: answerClientError,
    frameworkErrors: answerFrameworkError,
  });
  app.setValidatorCompiler(validators());
  for (const schema of [errorSchema, jobSchema, workflowSchema]) app.addSchema(schema);
  app.setErrorHandler(handleError);
  // The path is not repeated: it is the client's own text, of any length.
  app.setNotFoundHandler((request, reply) =>
    reply.code(404).send({
      code: "NOT_FOUND",
      message: `There is no ${request.method} route at this path (the API is under /v1 and /api)`,
    }),
  );
  // MIXDOWN_FILES_URL's host serves files only (never the dashboard).
  const filesHost = filesHostOnly(config);
  if (filesHost) app.addHook("onRequest", filesHost);
  // Every response's request id and latency, in one callback-style hook: the polled status route is the hot path.
  // onSend (the response ready to send), not onResponse (sent): an onResponse hook makes Fastify listen for every
  // response's "finish", which cost that route a fifth of its throughput (bench/status-throughput.ts). A streamed
  // body's sending is therefore not counted.
  app.addHook("onSend", (request, reply, payload, done) => {
    reply.header("x-request-id", request.id);
    metrics.observeRequest(
      request.method,
      request.routeOptions.url ?? "unmatched",
      reply.statusCode,
      secondsSinceArrival(request.raw),
    );
    done(null, payload);
  });

  if (options.api) {
    await apiRoutes(app, runtime);
    await dashboard(app, runtime);
  }
  opsRoutes(app, { metrics });
  return app;
}

/** The API under both prefixes, documented (OpenAPI at /openapi.json, pages at /docs), and the file routes it serves. */
async function apiRoutes(app: FastifyInstance, runtime: Runtime): Promise<void> {
  const { config } = runtime;
  await app.register(swagger, {
    openapi: {
      openapi: "3.1.0",
      info: {
        title: "Mixdown API",
        version: "1.0.0",
        description:
          "The Music.AI job API, self-hosted. Every endpoint is served under /v1 and, identically, under /api (documented once, under /v1).",
      },
      servers: [{ url: config.publicUrl }],
      components: { securitySchemes: { apiKey: { type: "apiKey", in: "header", name: "Authorization" } } },
      webhooks: WEBHOOKS_OPENAPI,
    },
    // Shared schemas are named by their $id (Job, Workflow, Error) rather than def-0, def-1…
    refResolver: {
      buildLocalReference: (json: { $id?: unknown }, _baseUri: unknown, _fragment: unknown, i: number) =>
        typeof json.$id === "string" ? json.$id : `def-${i}`,
    },
    transform: ({ schema, url }) => ({
      schema: {
        ...schema,
        response: describedResponses((schema as { response?: Record<string, object> })?.response),
        hide: (schema as { hide?: boolean })?.hide || url.startsWith("/api/"),
      } as typeof schema,
      url,
    }),
  });
  app.get("/openapi.json", { schema: { hide: true } }, () => app.swagger());
  await app.register(swaggerUi, { routePrefix: "/docs" });

  const context: ApiContext = { runtime };
  for (const prefix of API_PREFIXES) {
    await app.register(
      async (api) => {
        api.addHook("onRoute", (route) => {
          route.schema = { ...route.schema, security: [{ apiKey: [] }] };
          // With MIXDOWN_RATE_LIMIT every API route may answer 429: documented on each (with the route's own 429s).
          const response = route.schema.response as Record<string, { description?: string }> | undefined;
          if (runtime.rateLimiter && response) {
            const limited = errorResponses("RATE_LIMITED")[429] as { $ref: string; description: string };
            const own = response[429]?.description;
            route.schema.response = {
              ...response,
              429: { ...limited, description: own ? `${limited.description}; ${own}` : limited.description },
            };
          }
        });
        authHook(api, runtime);
        if (runtime.rateLimiter) rateLimitHook(api, runtime.rateLimiter);
        jobRoutes(api, context);
        jobEventRoutes(api, context);
        otherRoutes(api, context);
      },
      { prefix },
    );
  }
  if (runtime.serves.uploads) await app.register(async (files) => uploadRoutes(files, context));
  if (runtime.serves.downloads) await app.register(async (files) => downloadRoutes(files, context));
}

/** Every documented response with a description: the route's own, else the status's name ("Default Response" never). */
function describedResponses(response: Record<string, object> | undefined): Record<string, object> {
  if (!response) return { 200: { description: "Success" } };
  return Object.fromEntries(
    Object.entries(response).map(([status, entry]) => [
      status,
      "description" in entry ? entry : { ...entry, description: http.STATUS_CODES[status] ?? "Response" },
    ]),
  );
}
