import type { FastifyInstance } from "fastify";
import { JOB_STATUSES, type JobStatus } from "../../domain.ts";
import { isUuid } from "../../ids.ts";
import { labelled } from "../app-labels.ts";
import type { DashboardContext } from "../context.ts";
import { fragment, view } from "../render.ts";

export const JOBS_PER_PAGE = 50;
/**
 * Matches are counted up to this many (counting is what grows with the store), past it: "more than 10,000". A name
 * search counts fewer: each match is found in the trigram index, then checked.
 */
const COUNT_LIMIT = 10_000;
const SEARCH_COUNT_LIMIT = 200;

type JobsQuery = {
  q?: string;
  app?: string;
  status?: string;
  workflow?: string;
  batch?: string;
  page?: string;
  /** Cursors of the page links: the jobs just older than this job id, or just newer. */
  before?: string;
  after?: string;
};

/** The filters as given (blank ones dropped), for the form and the links. */
function cleanQuery(raw: JobsQuery): JobsQuery {
  const query: JobsQuery = {};
  for (const key of ["q", "app", "status", "workflow", "batch", "page", "before", "after"] as const) {
    const value = typeof raw[key] === "string" ? raw[key].trim() : "";
    if (value) query[key] = value.slice(0, 200);
  }
  return query;
}

const jobsUrl = (query: JobsQuery, extra: Record<string, string> = {}) => {
  const params = new URLSearchParams({ ...query, ...extra } as Record<string, string>).toString();
  return `/dashboard/jobs${params ? `?${params}` : ""}`;
};

/** GET /dashboard/jobs: every application's jobs, filtered, searched, paginated; its table refreshes itself. */
export function jobsPage(dashboard: FastifyInstance, { runtime }: DashboardContext): void {
  dashboard.get<{ Querystring: JobsQuery & { fragment?: string } }>("/jobs", async (request, reply) => {
    const query = cleanQuery(request.query);
    const page = Math.max(1, Math.min(1_000_000, Number.parseInt(query.page ?? "1", 10) || 1));
    const status = JOB_STATUSES.find((s) => s === query.status) as JobStatus | undefined;
    // A cursor that is not a job id would compare as text: ignore it (the page is then found by its number).
    const cursor = (id: string | undefined) => (id !== undefined && isUuid(id) ? id.toLowerCase() : undefined);
    const countLimit = query.q ? SEARCH_COUNT_LIMIT : COUNT_LIMIT;
    const result = await runtime.jobs.search({
      appIds: query.app ? [query.app] : [],
      statuses: status ? [status] : [],
      workflows: query.workflow ? [query.workflow] : [],
      batchName: query.batch,
      text: query.q,
      page: page - 1,
      size: JOBS_PER_PAGE,
      before: cursor(query.before),
      after: cursor(query.before) ? undefined : cursor(query.after),
      countLimit,
    });
    const counted = result.total <= countLimit;
    const pages = counted ? Math.max(1, Math.ceil(result.total / JOBS_PER_PAGE)) : undefined;
    const { page: _page, before: _before, after: _after, ...filters } = query;
    const newest = result.items[0]?.id;
    const oldest = result.items.at(-1)?.id;
    const results = {
      jobs: result.items,
      total: result.total,
      totalText: counted ? result.total.toLocaleString("en") : `more than ${countLimit.toLocaleString("en")}`,
      filtered: Object.keys(filters).length > 0,
      page,
      pages,
      first: (page - 1) * JOBS_PER_PAGE + 1,
      last: (page - 1) * JOBS_PER_PAGE + result.items.length,
      // Page 1 is the live head of the table; deeper pages are reached by keyset links, never by OFFSET.
      prevUrl:
        page > 1 ? jobsUrl(filters, page > 2 && newest ? { page: String(page - 1), after: newest } : {}) : undefined,
      nextUrl:
        (pages === undefined ? result.items.length === JOBS_PER_PAGE : page < pages) && oldest
          ? jobsUrl(filters, { page: String(page + 1), before: oldest })
          : undefined,
    };
    if (request.query.fragment === "results") return fragment(reply, "pages/jobs-results", results);
    const [apps, workflows] = await Promise.all([runtime.applications.list(), runtime.workflows.list(0, 1000)]);
    // A filter from a link that names no known application, status or workflow is still said, never hidden
    // behind an "All" that does not apply: its value stays selected, with a notice and a link that removes it.
    const without = (key: keyof JobsQuery) =>
      jobsUrl(Object.fromEntries(Object.entries(filters).filter(([k]) => k !== key)));
    const unknown = {
      app: query.app && !apps.some((app) => app.id === query.app) ? query.app : undefined,
      status: query.status && !status ? query.status : undefined,
      workflow:
        query.workflow && !workflows.items.some((wf) => wf.slug === query.workflow) ? query.workflow : undefined,
    };
    return view(request, reply, "pages/jobs", {
      title: "Jobs",
      ...results,
      query,
      unknown,
      clear: { app: without("app"), status: without("status"), workflow: without("workflow") },
      apps: labelled(apps),
      workflows: workflows.items,
      statuses: JOB_STATUSES,
      liveUrl: jobsUrl(query, { fragment: "results" }),
      scripts: ["live.js"],
    });
  });
}
