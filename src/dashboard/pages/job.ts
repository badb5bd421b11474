import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import type { DashboardContext } from "../context.ts";
import { view } from "../render.ts";

type JobRequest = { Params: { id: string } };

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
    const results = await Promise.all(
      Object.entries(job.result ?? {}).map(async ([key, entry]) =>
        "file" in entry
          ? {
              key,
              url: await runtime.fileUrls.downloadUrl(entry.file, runtime.config.urlTtlSeconds),
              contentType: entry.contentType,
            }
          : { key, json: JSON.stringify(entry.value, null, 2) },
      ),
    );
    return view(request, reply, "pages/job", {
      title: job.name,
      job,
      results,
      params: JSON.stringify(job.params, null, 2),
      metadata: Object.keys(job.metadata).length > 0 ? JSON.stringify(job.metadata, null, 2) : undefined,
    });
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
