import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import type { DashboardContext } from "../context.ts";
import { fragment, view } from "../render.ts";
import { styleNonce } from "../style-nonce.ts";
import { type ResultViews, resultViews } from "./result-views.ts";

type JobRequest = { Params: { id: string } };

const running = (status: string) => status === "QUEUED" || status === "STARTED";

/** "1:05.3": a time in a recording, to the tenth of a second. */
const clock = (seconds: number) => {
  const tenths = Math.round(seconds * 10);
  return `${Math.floor(tenths / 600)}:${String(((tenths % 600) / 10).toFixed(1)).padStart(4, "0")}`;
};

/** The browser modules the page's views need, each one small file under assets/. */
function scriptsFor(views: ResultViews): string[] {
  const scripts: string[] = [];
  if (views.audio.length === 1 || views.source) scripts.push("player.js");
  if (views.audio.length > 1) scripts.push("mixer.js");
  if (views.beats || views.chords || views.sections) scripts.push("timeline.js");
  if (views.notes) scripts.push("piano-roll.js");
  if (views.transcript || views.words) scripts.push("transcript.js");
  return scripts;
}

/** /dashboard/jobs/ID: what a job was asked, its timeline, error and results; delete after confirmation. */
export function jobPage(dashboard: FastifyInstance, { runtime }: DashboardContext): void {
  const find = async (request: FastifyRequest<JobRequest>, reply: FastifyReply) => {
    const job = await runtime.jobs.findForOperator(request.params.id);
    if (!job) {
      reply.code(404);
      view(request, reply, "pages/error", { title: "Not found", message: "There is no such job." });
    }
    return job;
  };

  dashboard.get<JobRequest>("/jobs/:id", async (request, reply) => {
    const job = await find(request, reply);
    if (!job) return reply;
    const views = await resultViews(runtime, job);
    const live = running(job.status);
    return view(request, reply, "pages/job", {
      title: job.name,
      job,
      views,
      live,
      hasResults: job.result !== null && Object.keys(job.result).length > 0,
      styles: ["results.css"],
      scripts: live ? [...scriptsFor(views), "live.js"] : scriptsFor(views),
      styleNonce: styleNonce(reply.raw),
      // Media fetched with CORS, as the waveforms and the mixer fetch it, so the browser caches one response
      // for both; when the object store refuses CORS, players still play (without waveforms).
      cors: runtime.corsProblem === undefined,
      corsProblem: runtime.corsProblem,
      clock,
      params: JSON.stringify(job.params, null, 2),
      metadata: Object.keys(job.metadata).length > 0 ? JSON.stringify(job.metadata, null, 2) : undefined,
    });
  });

  // The live part of the page while the job runs; once it has ended, the fragment asks the page to reload.
  dashboard.get<JobRequest>("/jobs/:id/state", async (request, reply) => {
    const job = await find(request, reply);
    if (!job) return reply;
    return fragment(reply, "pages/job-state", { job, reload: !running(job.status) });
  });

  dashboard.get<JobRequest>("/jobs/:id/delete", async (request, reply) => {
    const job = await find(request, reply);
    if (!job) return reply;
    return view(request, reply, "pages/confirm", {
      title: `Delete the job ${job.name}?`,
      message: "The job and its result files are removed; a running job is stopped. This cannot be undone.",
      action: `/dashboard/jobs/${job.id}/delete`,
      confirm: "Delete job",
      danger: true,
      back: `/dashboard/jobs/${job.id}`,
    });
  });

  dashboard.post<JobRequest>("/jobs/:id/delete", async (request, reply) => {
    const job = await find(request, reply);
    if (!job) return reply;
    await runtime.jobs.delete(job.appId, job.id);
    return reply.redirect("/dashboard/jobs", 303);
  });
}
