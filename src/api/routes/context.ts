import type { Application } from "../../domain.ts";
import type { Runtime } from "../../runtime.ts";

export interface ApiContext {
  runtime: Runtime;
}

declare module "fastify" {
  interface FastifyRequest {
    /** The application of the request's API key (set by the auth hook on API routes). */
    application: Application;
  }
}
