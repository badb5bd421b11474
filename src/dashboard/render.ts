import { Eta } from "eta";
import type { FastifyReply, FastifyRequest } from "fastify";

/** Templates live beside their routes; every value printed with <%= %> is HTML-escaped. */
const eta = new Eta({ views: import.meta.dirname, cache: true, autoEscape: true });

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}/;

/** Helpers templates share. */
const helpers = {
  /** "2026-11-24 07:10 UTC" from an ISO timestamp. */
  when: (iso: string | null | undefined) =>
    iso && ISO.test(iso) ? `${iso.slice(0, 10)} ${iso.slice(11, 16)} UTC` : "—",
};

/** Renders `template` (relative to src/dashboard, e.g. "pages/applications") in the layout. */
export function view(
  request: FastifyRequest,
  reply: FastifyReply,
  template: string,
  data: Record<string, unknown> & { title: string },
): FastifyReply {
  const html = eta.render(`./${template}`, {
    operator: request.operatorSession?.operator.name,
    csrf: request.operatorSession?.csrfToken,
    path: request.url.split("?")[0],
    ...helpers,
    ...data,
  });
  return reply.type("text/html; charset=utf-8").send(html);
}
