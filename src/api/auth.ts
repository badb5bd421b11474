import type { FastifyInstance } from "fastify";
import type { Application } from "../domain.ts";
import { ApiError } from "../errors.ts";
import type { Runtime } from "../runtime.ts";

const BEARER = /^bearer\s+(\S+)\s*$/i;

/**
 * The API key of an Authorization header. The interface sends the key alone; "Bearer KEY", the habit of most
 * HTTP clients, is taken too, since no key has a space. A bare key (the polled status route) is not looked at.
 */
export function apiKeyOf(header: string | undefined): string | undefined {
  if (header === undefined || header.startsWith("mxd_")) return header;
  return BEARER.exec(header)?.[1] ?? header;
}

/** The 401 for a header that names no valid key, saying what is wrong with it where that can be told. */
export function unauthorized(header: string | undefined): ApiError {
  if (!header?.trim()) {
    return new ApiError("UNAUTHORIZED", "Missing API key: send it as the value of the Authorization header");
  }
  if (/\s/.test(header.trim()) && !BEARER.test(header)) {
    return new ApiError(
      "UNAUTHORIZED",
      "Invalid API key: send the key alone as the Authorization header's value, without a scheme such as Basic",
    );
  }
  return new ApiError("UNAUTHORIZED", "Invalid or revoked API key");
}

/** Every request names its application by its API key; the keys already looked up are answered without a promise. */
export function authHook(api: FastifyInstance, runtime: Runtime): void {
  api.decorateRequest("application");
  api.addHook("onRequest", (request, _reply, done) => {
    const header = request.headers.authorization;
    const accept = (application: Application | undefined) => {
      if (!application) return done(unauthorized(header));
      request.application = application;
      done();
    };
    const key = apiKeyOf(header);
    const known = runtime.applications.cached(key);
    if (known !== "unknown") accept(known);
    else runtime.applications.authenticate(key).then(accept, done);
  });
}
