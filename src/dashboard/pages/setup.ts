import type { FastifyInstance } from "fastify";
import { OperatorError } from "../../services/operators.ts";
import { MIN_PASSWORD_LENGTH } from "../../services/passwords.ts";
import { cookieOptions, type DashboardContext, PREFIX, SESSION_COOKIE } from "../context.ts";
import { csrfToken } from "../csrf-hook.ts";
import { view } from "../render.ts";

type SetupRequest = { Params: { token: string }; Body: { name?: string; password?: string; confirm?: string } };

/** GET/POST /dashboard/setup/TOKEN: the first-run link printed at start, which creates the first operator. */
export function setupPage(dashboard: FastifyInstance, context: DashboardContext): void {
  const { operators } = context.runtime;
  const page = { title: "Set up Mixdown", minLength: MIN_PASSWORD_LENGTH };

  dashboard.get<SetupRequest>("/setup/:token", async (request, reply) => {
    const valid = await operators.setupTokenValid(request.params.token);
    if (!valid) reply.code(410);
    return view(request, reply, "pages/setup", { ...page, valid, csrf: csrfToken(context, request, reply) });
  });

  dashboard.post<SetupRequest>("/setup/:token", async (request, reply) => {
    const name = String(request.body?.name ?? "").trim();
    const password = String(request.body?.password ?? "");
    const again = { ...page, valid: true, name, csrf: csrfToken(context, request, reply) };
    if (password !== String(request.body?.confirm ?? "")) {
      reply.code(400);
      return view(request, reply, "pages/setup", { ...again, error: "The two passwords differ." });
    }
    let sessionId: string | undefined;
    try {
      sessionId = await operators.completeSetup(request.params.token, name, password);
    } catch (error) {
      if (!(error instanceof OperatorError)) throw error;
      reply.code(400);
      return view(request, reply, "pages/setup", { ...again, error: `Not created: ${error.message}.` });
    }
    if (!sessionId) {
      reply.code(410);
      return view(request, reply, "pages/setup", { ...page, valid: false });
    }
    reply.setCookie(SESSION_COOKIE, sessionId, cookieOptions(context));
    return reply.redirect(PREFIX, 303);
  });
}
