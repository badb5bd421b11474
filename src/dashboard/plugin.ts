import type { IncomingMessage, ServerResponse } from "node:http";
import path from "node:path";
import cookie from "@fastify/cookie";
import formbody from "@fastify/formbody";
import helmet from "@fastify/helmet";
import fastifyStatic from "@fastify/static";
import type { FastifyError, FastifyInstance } from "fastify";
import type { Runtime } from "../runtime.ts";
import { loadSecret } from "../secret.ts";
import { type DashboardContext, PREFIX } from "./context.ts";
import { csrfHook } from "./csrf-hook.ts";
import { favicons } from "./favicon.ts";
import { fileOrigins } from "./file-origins.ts";
import { FlashCookie, flashKey } from "./flash.ts";
import { applicationPage } from "./pages/application.ts";
import { applicationsPage } from "./pages/applications.ts";
import { jobPage } from "./pages/job.ts";
import { jobsPage } from "./pages/jobs.ts";
import { runPage } from "./pages/run.ts";
import { setupPage } from "./pages/setup.ts";
import { signInPage } from "./pages/sign-in.ts";
import { systemPage } from "./pages/system.ts";
import { webhooksPage } from "./pages/webhooks.ts";
import { workflowPage } from "./pages/workflow.ts";
import { workflowEditorPage } from "./pages/workflow-editor.ts";
import { workflowsPage } from "./pages/workflows.ts";
import { view } from "./render.ts";
import { sessionHook } from "./session-hook.ts";
import { styleNonce } from "./style-nonce.ts";
import { vendorFiles } from "./vendor.ts";

/** Security headers of every dashboard response: no inline script, no framing, no referrer. */
function helmetOptions(tls: boolean, files: string[]) {
  return {
    contentSecurityPolicy: {
      useDefaults: false,
      directives: {
        defaultSrc: ["'self'"],
        scriptSrc: ["'self'"],
        // wavesurfer.js styles its waveform with a <style> element, given this response's nonce.
        styleSrc: [
          "'self'",
          (_request: IncomingMessage, response: ServerResponse) => `'nonce-${styleNonce(response)}'`,
        ],
        // Result files: players, images, and the audio the stem mixer and waveforms fetch to decode.
        imgSrc: ["'self'", "data:", ...files],
        mediaSrc: ["'self'", ...files],
        // The run page PUTs uploads to the object store's presigned URLs (S3 mode).
        connectSrc: ["'self'", ...files],
        objectSrc: ["'none'"],
        baseUri: ["'none'"],
        formAction: ["'self'"],
        frameAncestors: ["'none'"],
        // Over plain HTTP (local use) an upgrade would break every asset.
        ...(tls ? { upgradeInsecureRequests: [] } : {}),
      },
    },
    strictTransportSecurity: tls,
    referrerPolicy: { policy: "no-referrer" as const },
    frameguard: { action: "deny" as const },
    crossOriginEmbedderPolicy: false,
  };
}

/**
 * The web console under /dashboard, on the API nodes: pages rendered on the server from templates that
 * escape by default, calling the same services as the API in process. Authentication, CSRF and security
 * headers are each one hook for the whole scope.
 */
export async function dashboard(app: FastifyInstance, runtime: Runtime): Promise<void> {
  const secureCookies = runtime.config.tls !== undefined;
  const flash = new FlashCookie(flashKey(loadSecret(runtime.config.secret, runtime.config.dataDir)), secureCookies);
  const context: DashboardContext = { runtime, secureCookies, flash };
  await app.register(
    async (scope) => {
      // Pages for people, not part of the documented API.
      scope.addHook("onRoute", (route) => {
        route.schema = { ...route.schema, hide: true };
      });
      await scope.register(cookie);
      await scope.register(formbody, { bodyLimit: 64 * 1024 });
      await scope.register(helmet, helmetOptions(context.secureCookies, fileOrigins(runtime.config)));
      await scope.register(fastifyStatic, {
        root: path.join(import.meta.dirname, "assets"),
        prefix: "/assets/",
        index: false,
        maxAge: "1h",
      });
      vendorFiles(scope);
      scope.decorateRequest("operatorSession", undefined);
      scope.addHook("onRequest", sessionHook(context));
      scope.addHook("preHandler", csrfHook(context));
      scope.setErrorHandler((error: FastifyError, request, reply) => {
        const status = error.statusCode && error.statusCode >= 400 ? error.statusCode : 500;
        if (status >= 500) request.log.error({ err: error }, "dashboard page failed");
        reply.code(status);
        return view(request, reply, "pages/error", {
          title: status >= 500 ? "Something went wrong" : "Request refused",
          message: status >= 500 ? `The page could not be shown (request ${request.id}).` : error.message,
        });
      });
      scope.setNotFoundHandler((request, reply) => {
        reply.code(404);
        return view(request, reply, "pages/error", { title: "Not found", message: "There is no such page." });
      });
      scope.get("/", (_request, reply) => reply.redirect(`${PREFIX}/applications`, 303));
      signInPage(scope, context);
      setupPage(scope, context);
      applicationsPage(scope, context);
      applicationPage(scope, context);
      jobsPage(scope, context);
      jobPage(scope, context);
      systemPage(scope, context);
      runPage(scope, context);
      workflowsPage(scope, context);
      workflowPage(scope, context);
      workflowEditorPage(scope, context);
      webhooksPage(scope, context);
    },
    { prefix: PREFIX },
  );
  app.get("/", { schema: { hide: true } }, (_request, reply) => reply.redirect(PREFIX, 302));
  favicons(app);
}
