import type { FastifyInstance } from "fastify";
import { cookieOptions, type DashboardContext, PREFIX, SESSION_COOKIE } from "../context.ts";
import { csrfToken } from "../csrf-hook.ts";
import { view } from "../render.ts";

const WRONG = "Wrong name or password.";

/** GET/POST /dashboard/sign-in, POST /dashboard/sign-out. */
export function signInPage(dashboard: FastifyInstance, context: DashboardContext): void {
  const { operators } = context.runtime;

  dashboard.get("/sign-in", async (request, reply) => {
    if (request.operatorSession) return reply.redirect(PREFIX, 303);
    return view(request, reply, "pages/sign-in", { title: "Sign in", csrf: csrfToken(context, request, reply) });
  });

  dashboard.post<{ Body: { name?: string; password?: string } }>("/sign-in", async (request, reply) => {
    const name = String(request.body?.name ?? "").trim();
    const password = String(request.body?.password ?? "");
    const outcome = await operators.signIn(name, password, request.ip);
    if (outcome.ok) {
      reply.setCookie(SESSION_COOKIE, outcome.sessionId, cookieOptions(context));
      return reply.redirect(PREFIX, 303);
    }
    const page = { title: "Sign in", name, csrf: csrfToken(context, request, reply) };
    if (outcome.retryAfterMs !== undefined) {
      const seconds = Math.ceil(outcome.retryAfterMs / 1000);
      reply.code(429).header("retry-after", String(seconds));
      return view(request, reply, "pages/sign-in", {
        ...page,
        error: `Too many failed sign-ins. Try again in ${seconds} seconds.`,
      });
    }
    reply.code(401);
    return view(request, reply, "pages/sign-in", { ...page, error: WRONG });
  });

  dashboard.post("/sign-out", async (request, reply) => {
    const sessionId = request.cookies[SESSION_COOKIE];
    if (sessionId) await operators.signOut(sessionId);
    reply.clearCookie(SESSION_COOKIE, { path: PREFIX });
    return reply.redirect(`${PREFIX}/sign-in`, 303);
  });
}
