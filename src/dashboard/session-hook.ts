import type { FastifyReply, FastifyRequest } from "fastify";
import { type DashboardContext, PREFIX, SESSION_COOKIE } from "./context.ts";
import { view } from "./render.ts";

/** Routes a visitor without a session may open (by the route matched, never by the raw URL). */
const PUBLIC = new Set([`${PREFIX}/sign-in`, `${PREFIX}/setup/:token`]);
const ASSETS = `${PREFIX}/assets/`;

/**
 * The one authentication hook of the dashboard: a session cookie or nothing. An API key is refused (the
 * dashboard is for people); without a session every page but sign-in and setup redirects to sign-in.
 */
export function sessionHook(context: DashboardContext) {
  return async (request: FastifyRequest, reply: FastifyReply) => {
    const route = request.routeOptions.url ?? "";
    if (route.startsWith(ASSETS)) return;
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
    if (request.operatorSession || PUBLIC.has(route)) return;
    // After signing in, back to the page asked for (sign-in checks that `next` stays on the dashboard).
    const next = request.method === "GET" ? `?next=${encodeURIComponent(request.url)}` : "";
    return reply.redirect(`${PREFIX}/sign-in${next}`, 303);
  };
}
