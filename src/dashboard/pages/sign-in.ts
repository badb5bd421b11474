import type { FastifyInstance } from "fastify";
import { cookieOptions, type DashboardContext, PREFIX, SESSION_COOKIE } from "../context.ts";
import { csrfToken } from "../csrf-hook.ts";
import { view } from "../render.ts";

const WRONG = "Wrong name or password.";
const SITE = "http://mixdown.invalid";

const hasControlCharacter = (text: string) => [...text].some((c) => c < " ");

/**
 * Where to go after signing in: the dashboard page the operator asked for (`next`), as a path of this site, or the
 * dashboard's home for anything else (another site, `//host`, `/\host`, a path outside the dashboard, the sign-in or
 * setup pages): the parameter can be set by anyone who sends a link, so it must not redirect off-site.
 */
export function nextPage(raw: unknown): string {
  if (typeof raw !== "string" || raw.length > 2000 || raw.includes("\\") || hasControlCharacter(raw)) return PREFIX;
  if (!(raw === PREFIX || raw.startsWith(`${PREFIX}/`) || raw.startsWith(`${PREFIX}?`))) return PREFIX;
  const url = new URL(raw, SITE);
  const inside = url.pathname === PREFIX || url.pathname.startsWith(`${PREFIX}/`);
  if (url.origin !== SITE || !inside || /^\/dashboard\/(sign-|setup)/.test(url.pathname)) return PREFIX;
  return `${url.pathname}${url.search}`;
}

/** GET/POST /dashboard/sign-in, POST /dashboard/sign-out. */
export function signInPage(dashboard: FastifyInstance, context: DashboardContext): void {
  const { operators } = context.runtime;

  dashboard.get<{ Querystring: { next?: string } }>("/sign-in", async (request, reply) => {
    const next = nextPage(request.query.next);
    if (request.operatorSession) return reply.redirect(next, 303);
    return view(request, reply, "pages/sign-in", {
      title: "Sign in",
      csrf: csrfToken(context, request, reply),
      next: next === PREFIX ? undefined : next,
    });
  });

  dashboard.post<{ Body: { name?: string; password?: string; next?: string } }>("/sign-in", async (request, reply) => {
    const name = String(request.body?.name ?? "").trim();
    const password = String(request.body?.password ?? "");
    const next = nextPage(request.body?.next);
    const outcome = await operators.signIn(name, password, request.ip);
    if (outcome.ok) {
      reply.setCookie(SESSION_COOKIE, outcome.sessionId, cookieOptions(context));
      return reply.redirect(next, 303);
    }
    const page = {
      title: "Sign in",
      name,
      csrf: csrfToken(context, request, reply),
      next: next === PREFIX ? undefined : next,
    };
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
