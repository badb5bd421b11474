import type { Job, JobResult, WorkflowRecord } from "../domain.ts";
import type { FileUrls } from "../store/file-urls.ts";

/** Result files become signed download URLs, minted on each read; values stay inline. */
async function renderResult(result: JobResult | null, fileUrls: FileUrls, ttlSeconds: number) {
  if (result === null) return null;
  const entries = await Promise.all(
    Object.entries(result).map(async ([key, entry]) => [
      key,
      "file" in entry ? await fileUrls.downloadUrl(entry.file, ttlSeconds) : entry.value,
    ]),
  );
  return Object.fromEntries(entries);
}

/** The job as the API shows it (spec 2.2, string-slug form). */
export async function renderJob(job: Job, fileUrls: FileUrls, ttlSeconds: number) {
  return {
    id: job.id,
    app: job.appName,
    name: job.name,
    batchName: job.batchName,
    metadata: job.metadata,
    workflow: job.workflow,
    workflowParams: job.params,
    status: job.status,
    result: await renderResult(job.result, fileUrls, ttlSeconds),
    error: job.error,
    createdAt: job.createdAt,
    startedAt: job.startedAt,
    completedAt: job.completedAt,
    progress: job.progress,
    step: job.step,
  };
}

export function renderWorkflow(wf: WorkflowRecord) {
  return {
    id: wf.id,
    name: wf.name,
    slug: wf.slug,
    description: wf.description,
    createdAt: wf.createdAt,
    updatedAt: wf.updatedAt,
  };
}

/** RFC 8288 Link header for a paginated list (next/prev/first/last), keeping the other query parameters. */
export function paginationLinks(
  baseUrl: string,
  query: URLSearchParams,
  page: number,
  size: number,
  total: number,
): string {
  const lastPage = Math.max(0, Math.ceil(total / size) - 1);
  const link = (target: number, rel: string) => {
    const params = new URLSearchParams(query);
    params.set("page", String(target));
    params.set("size", String(size));
    return `<${baseUrl}?${params}>; rel="${rel}"`;
  };
  const links = [link(0, "first")];
  if (page > 0) links.push(link(Math.min(page - 1, lastPage), "prev"));
  if (page < lastPage) links.push(link(page + 1, "next"));
  links.push(link(lastPage, "last"));
  return links.join(", ");
}
