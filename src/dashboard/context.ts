import type { Runtime } from "../runtime.ts";
import type { OperatorSession } from "../store/operator-store.ts";
import type { FlashCookie } from "./flash.ts";

/** What every dashboard page is given. */
export interface DashboardContext {
  runtime: Runtime;
  /** Cookies carry `Secure` when the server speaks HTTPS. */
  secureCookies: boolean;
  /** What a POST shows once on the page it redirects to (a new key or secret). */
  flash: FlashCookie;
}

export const PREFIX = "/dashboard";
export const SESSION_COOKIE = "mixdown_session";
/** Before sign-in there is no session to bind a CSRF token to: this cookie holds one (double submit). */
export const PRE_SESSION_COOKIE = "mixdown_csrf";

export const cookieOptions = (context: Pick<DashboardContext, "secureCookies">) =>
  ({ path: PREFIX, httpOnly: true, sameSite: "strict", secure: context.secureCookies }) as const;

declare module "fastify" {
  interface FastifyRequest {
    /** The signed-in operator's session (set by the session hook on dashboard routes). */
    operatorSession: OperatorSession | undefined;
  }
}
