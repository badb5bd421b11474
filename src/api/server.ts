import { randomUUID } from "node:crypto";
import swagger from "@fastify/swagger";
import swaggerUi from "@fastify/swagger-ui";
import { Ajv } from "ajv";
import addFormats from "ajv-formats";
import Fastify, { type FastifyInstance } from "fastify";
import { dashboard } from "../dashboard/plugin.ts";
import { loggedRequest } from "../dashboard/setup-link.ts";
import type { Application } from "../domain.ts";
import { ApiError } from "../errors.ts";
import type { Runtime } from "../runtime.ts";
import { WEBHOOKS_OPENAPI } from "../webhooks/openapi.ts";
import { handleError } from "./errors.ts";
import type { Metrics } from "./metrics.ts";
import { rateLimitHook } from "./rate-limit.ts";
import type { ApiContext } from "./routes/context.ts";
import { downloadRoutes, uploadRoutes } from "./routes/files.ts";
import { jobEventRoutes } from "./routes/job-events.ts";
import { jobRoutes } from "./routes/jobs.ts";
import { opsRoutes } from "./routes/ops.ts";
import { otherRoutes } from "./routes/others.ts";
import { errorSchema, jobSchema, workflowSchema } from "./schemas.ts";

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
    genReqId: (request) => {
      const given = request.headers["x-request-id"];
      return typeof given === "string" && /^[\w.-]{1,100}$/.test(given) ? given : randomUUID();
    },
    bodyLimit: 1024 * 1024,
    // Behind named reverse proxies, request.ip is the client's (the dashboard throttles sign-ins by it).
    ...(config.trustProxy.length > 0 ? { trustProxy: config.trustProxy } : {}),
    forceCloseConnections: "idle",
    routerOptions: { ignoreTrailingSlash: true },
  });
  app.setValidatorCompiler(validators());
  for (const schema of [errorSchema, jobSchema, workflowSchema]) app.addSchema(schema);
  app.setErrorHandler(handleError);
  app.setNotFoundHandler((request, reply) =>
    reply
      .code(404)
      .send({ code: "NOT_FOUND", message: `Route ${request.method} ${request.url.split("?")[0]} not found` }),
  );
  // Callback-style hooks: they run on every request, and the polled status route is the hot path.
  app.addHook("onRequest", (request, reply, done) => {
    reply.header("x-request-id", request.id);
    done();
  });
  app.addHook("onResponse", (request, reply, done) => {
    metrics.observeRequest(
      request.method,
      request.routeOptions.url ?? "unmatched",
      reply.statusCode,
      reply.elapsedTime / 1000,
    );
    done();
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
    transform: ({ schema, url }) => ({
      schema: {
        ...schema,
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
          // With MIXDOWN_RATE_LIMIT every API route may answer 429: documented on each.
          const response = route.schema.response as Record<string, unknown> | undefined;
          if (runtime.rateLimiter && response) route.schema.response = { ...response, 429: { $ref: "Error#" } };
        });
        api.decorateRequest("application");
        api.addHook("onRequest", (request, _reply, done) => {
          const accept = (application: Application | undefined) => {
            if (!application) return done(new ApiError("UNAUTHORIZED"));
            request.application = application;
            done();
          };
          const header = request.headers.authorization;
          const known = runtime.applications.cached(header);
          if (known !== "unknown") accept(known);
          else runtime.applications.authenticate(header).then(accept, done);
        });
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
