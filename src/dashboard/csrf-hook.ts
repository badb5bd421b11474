import { randomBytes } from "node:crypto";
import type { FastifyReply, FastifyRequest } from "fastify";
import { sameToken } from "../services/operators.ts";
import { cookieOptions, type DashboardContext, PRE_SESSION_COOKIE } from "./context.ts";
import { view } from "./render.ts";

const SAFE_METHODS = new Set(["GET", "HEAD", "OPTIONS"]);

/** The token forms must send back: the session's, or before sign-in the pre-session cookie's (set if absent). */
export function csrfToken(context: DashboardContext, request: FastifyRequest, reply: FastifyReply): string {
  if (request.operatorSession) return request.operatorSession.csrfToken;
  let token = request.cookies[PRE_SESSION_COOKIE];
  if (!token || !/^[\w-]{43}$/.test(token)) {
    token = randomBytes(32).toString("base64url");
    reply.setCookie(PRE_SESSION_COOKIE, token, cookieOptions(context));
    request.cookies[PRE_SESSION_COOKIE] = token;
  }
  return token;
}

/**
 * The one CSRF hook: every state-changing request carries the token bound to its session (form field
 * `_csrf` or header `X-CSRF-Token`), else 403. Runs after the body is parsed.
 */
export function csrfHook(context: DashboardContext) {
  return async (request: FastifyRequest, reply: FastifyReply) => {
    if (SAFE_METHODS.has(request.method)) return;
    const expected = request.operatorSession?.csrfToken ?? request.cookies[PRE_SESSION_COOKIE];
    const body = request.body as Record<string, unknown> | undefined;
    const given = body?._csrf ?? request.headers["x-csrf-token"];
    if (typeof expected === "string" && typeof given === "string" && sameToken(expected, given)) return;
    reply.code(403);
    return view(request, reply, "pages/error", {
      title: "Form expired",
      message: "This form did not come from this dashboard session, or it has expired. Go back, reload and try again.",
      csrf: csrfToken(context, request, reply),
    });
  };
}
