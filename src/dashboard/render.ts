import { Eta } from "eta";
import type { FastifyReply, FastifyRequest } from "fastify";

/** Templates live beside their routes; every value printed with <%= %> is HTML-escaped. */
const eta = new Eta({ views: import.meta.dirname, cache: true, autoEscape: true });

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}/;

/** "1.2 s", "3 min 5 s", "2 h 4 min". */
function span(ms: number): string {
  if (ms < 60_000) return `${(ms / 1000).toFixed(ms < 10_000 ? 1 : 0)} s`;
  const s = Math.round(ms / 1000);
  if (s < 3600) return `${Math.floor(s / 60)} min ${s % 60} s`;
  return `${Math.floor(s / 3600)} h ${Math.floor((s % 3600) / 60)} min`;
}

/** Helpers templates share. */
const helpers = {
  /** "2026-11-24 07:10:05 UTC" from an ISO timestamp. */
  when: (iso: string | null | undefined) =>
    iso && ISO.test(iso) ? `${iso.slice(0, 10)} ${iso.slice(11, 19)} UTC` : "—",
  /** How long from one ISO time to another (or to now), "—" before it started. */
  duration: (from: string | null, to: string | null) =>
    from ? span(Math.max(0, (to ? Date.parse(to) : Date.now()) - Date.parse(from))) : "—",
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

/** Renders a part of a page alone (no layout), for the live regions that refresh themselves. */
export function fragment(reply: FastifyReply, template: string, data: Record<string, unknown>): FastifyReply {
  return reply.type("text/html; charset=utf-8").send(eta.render(`./${template}`, { ...helpers, ...data }));
}
