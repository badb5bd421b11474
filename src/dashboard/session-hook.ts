import type { FastifyReply, FastifyRequest } from "fastify";
import { type DashboardContext, PREFIX, SESSION_COOKIE } from "./context.ts";
import { view } from "./render.ts";

/** Pages a visitor without a session may open. */
const PUBLIC = [/^\/dashboard\/sign-in$/, /^\/dashboard\/setup\/[\w-]+$/];
const ASSETS = `${PREFIX}/assets/`;

/**
 * The one authentication hook of the dashboard: a session cookie or nothing. An API key is refused (the
 * dashboard is for people); without a session every page but sign-in and setup redirects to sign-in.
 */
export function sessionHook(context: DashboardContext) {
  return async (request: FastifyRequest, reply: FastifyReply) => {
    const path = request.url.split("?")[0]?.replace(/\/+$/, "") ?? "";
    if (path.startsWith(ASSETS)) return;
    reply.header("cache-control", "no-store");
    if (request.headers.authorization !== undefined) {
      reply.code(401);
      return view(request, reply, "pages/error", {
        title: "Not signed in",
        message: "The dashboard does not accept API keys. Sign in as an operator instead.",
      });
    }
    const sessionId = request.cookies[SESSION_COOKIE];
    request.operatorSession = await context.runtime.operators.session(sessionId);
    if (sessionId && !request.operatorSession) reply.clearCookie(SESSION_COOKIE, { path: PREFIX });
    if (request.operatorSession || PUBLIC.some((pattern) => pattern.test(path))) return;
    return reply.redirect(`${PREFIX}/sign-in`, 303);
  };
}
