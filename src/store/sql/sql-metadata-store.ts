import type { Kysely, Selectable } from "kysely";
import {
  type Application,
  type ApplicationActivity,
  type CustomWorkflowDefinition,
  type FailureCount,
  JOB_STATUSES,
  type Job,
  type JobFilter,
  type JobSearch,
  type JobState,
  type JobStatus,
  type Page,
  type Upload,
  type UploadState,
  type WorkflowRecord,
} from "../../domain.ts";
import type { MetadataStore } from "../metadata-store.ts";
import * as customWorkflows from "./custom-workflows.ts";
import { searchJobRows } from "./job-search.ts";
import { JOB_STATE_COLUMNS, type JobStateRow, toJobState } from "./job-state-row.ts";
import type { Database } from "./schema.ts";
import { failuresByCode, runningJobsByWorker } from "./system-overview.ts";

type AppRow = Selectable<Database["applications"]>;
type JobRow = Selectable<Database["jobs"]> & { app_name: string };
type UploadRow = Selectable<Database["uploads"]>;

const toApplication = (row: AppRow): Application => ({
  id: row.id,
  name: row.name,
  createdAt: row.created_at,
  revokedAt: row.revoked_at,
});

const parse = <T>(text: string | null): T | null => (text === null ? null : (JSON.parse(text) as T));

export function toJob(row: JobRow): Job {
  return {
    id: row.id,
    appId: row.app_id,
    appName: row.app_name,
    name: row.name,
    batchName: row.batch_name,
    metadata: JSON.parse(row.metadata),
    workflow: row.workflow,
    params: JSON.parse(row.params),
    status: row.status as JobStatus,
    result: parse(row.result),
    error: parse(row.error),
    createdAt: row.created_at,
    startedAt: row.started_at,
    completedAt: row.completed_at,
    progress: Number(row.progress),
    step: row.step,
  };
}

const toWorkflow = (row: Selectable<Database["workflows"]>): WorkflowRecord => ({
  id: row.id,
  slug: row.slug,
  name: row.name,
  description: row.description,
  definitionHash: row.definition_hash,
  createdAt: row.created_at,
  updatedAt: row.updated_at,
});

const toUpload = (row: UploadRow): Upload => ({
  id: row.id,
  appId: row.app_id,
  state: row.state as UploadState,
  contentType: row.content_type,
  size: row.size,
  createdAt: row.created_at,
  expiresAt: row.expires_at,
});

/** The metadata store on Kysely: the same queries on SQLite (embedded) and Postgres (distributed). */
export class SqlMetadataStore implements MetadataStore {
  private readonly db: Kysely<Database>;

  private readonly externalChanges: () => string;
  private localChanges = 0;

  private readonly directJobState: ((appId: string, id: string) => JobState | undefined) | undefined;

  private readonly workflowChanges: () => string;
  private localWorkflowChanges = 0;

  /**
   * `externalChanges` changes when other processes may have written (dialect-specific); `jobState` is an
   * optional synchronous lookup of the hottest query (SQLite's prepared statement); `workflowChanges` changes when
   * other processes may have changed custom workflows (by default: externalChanges).
   */
  constructor(
    db: Kysely<Database>,
    externalChanges: () => string,
    jobState?: (appId: string, id: string) => JobState | undefined,
    workflowChanges: () => string = externalChanges,
  ) {
    this.db = db;
    this.externalChanges = externalChanges;
    this.directJobState = jobState;
    this.workflowChanges = workflowChanges;
  }

  applicationsVersion(): string {
    return `${this.localChanges}:${this.externalChanges()}`;
  }

  async createApplication(app: Application, keyHash: string): Promise<void> {
    this.localChanges++;
    await this.db
      .insertInto("applications")
      .values({ id: app.id, name: app.name, key_hash: keyHash, created_at: app.createdAt, revoked_at: null })
      .execute();
  }

  async listApplications(): Promise<Application[]> {
    const rows = await this.db.selectFrom("applications").selectAll().orderBy("created_at").execute();
    return rows.map(toApplication);
  }

  async findApplicationByKeyHash(keyHash: string): Promise<Application | undefined> {
    const row = await this.db
      .selectFrom("applications")
      .selectAll()
      .where("key_hash", "=", keyHash)
      .where("revoked_at", "is", null)
      .executeTakeFirst();
    return row && toApplication(row);
  }

  async setApplicationKey(id: string, keyHash: string): Promise<boolean> {
    this.localChanges++;
    const result = await this.db
      .updateTable("applications")
      .set({ key_hash: keyHash })
      .where("id", "=", id)
      .where("revoked_at", "is", null)
      .executeTakeFirst();
    return result.numUpdatedRows > 0n;
  }

  async revokeApplication(id: string, at: string): Promise<boolean> {
    this.localChanges++;
    const result = await this.db
      .updateTable("applications")
      .set({ revoked_at: at })
      .where("id", "=", id)
      .where("revoked_at", "is", null)
      .executeTakeFirst();
    return result.numUpdatedRows > 0n;
  }

  async renameApplication(id: string, name: string): Promise<boolean> {
    this.localChanges++; // cached keys carry the application's name
    const result = await this.db.updateTable("applications").set({ name }).where("id", "=", id).executeTakeFirst();
    return result.numUpdatedRows > 0n;
  }

  async applicationActivity(): Promise<Map<string, ApplicationActivity>> {
    // Counts come from the (app_id, status) index alone; each application's newest job from jobs_by_app.
    const [counts, newest] = await Promise.all([
      this.db
        .selectFrom("jobs")
        .select((eb) => ["app_id", "status", eb.fn.countAll<number>().as("count")])
        .groupBy(["app_id", "status"])
        .execute(),
      this.db
        .selectFrom("applications")
        .select((eb) => [
          "applications.id",
          eb
            .selectFrom("jobs")
            .select("jobs.created_at")
            .whereRef("jobs.app_id", "=", "applications.id")
            .orderBy("jobs.id", "desc")
            .limit(1)
            .as("newest"),
        ])
        .execute(),
    ]);
    const activity = new Map<string, ApplicationActivity>();
    for (const row of newest) {
      if (!row.newest) continue;
      const jobsByStatus = Object.fromEntries(JOB_STATUSES.map((s) => [s, 0])) as Record<JobStatus, number>;
      activity.set(row.id, { jobsByStatus, lastActivityAt: row.newest });
    }
    for (const row of counts) {
      const entry = activity.get(row.app_id);
      if (entry) entry.jobsByStatus[row.status as JobStatus] = Number(row.count);
    }
    return activity;
  }

  private jobsOf(appId: string) {
    return this.db
      .selectFrom("jobs")
      .innerJoin("applications", "applications.id", "jobs.app_id")
      .where("jobs.app_id", "=", appId);
  }

  async getJob(appId: string, id: string): Promise<Job | undefined> {
    const row = await this.jobsOf(appId)
      .selectAll("jobs")
      .select("applications.name as app_name")
      .where("jobs.id", "=", id)
      .executeTakeFirst();
    return row && toJob(row);
  }

  /** The hottest query (clients poll status): built and compiled once, run with fresh parameters. */
  private readonly stateQuery = () =>
    this.db.selectFrom("jobs").select(JOB_STATE_COLUMNS).where("app_id", "=", "").where("id", "=", "").compile();
  private compiledState: ReturnType<typeof this.stateQuery> | undefined;

  getJobState(appId: string, id: string): JobState | undefined | Promise<JobState | undefined> {
    if (this.directJobState) return this.directJobState(appId, id);
    return this.queryJobState(appId, id);
  }

  private async queryJobState(appId: string, id: string): Promise<JobState | undefined> {
    this.compiledState ??= this.stateQuery();
    const { rows } = await this.db.executeQuery<JobStateRow>({ ...this.compiledState, parameters: [appId, id] });
    const row = rows[0];
    return row && toJobState(row);
  }

  async listJobs(filter: JobFilter): Promise<Page<Job>> {
    let query = this.jobsOf(filter.appId);
    if (filter.statuses.length > 0) query = query.where("jobs.status", "in", filter.statuses);
    if (filter.workflows.length > 0) query = query.where("jobs.workflow", "in", filter.workflows);
    if (filter.batchName !== undefined) query = query.where("jobs.batch_name", "=", filter.batchName);
    const [rows, count] = await Promise.all([
      query
        .selectAll("jobs")
        .select("applications.name as app_name")
        .orderBy("jobs.id", "desc")
        .limit(filter.size)
        .offset(filter.page * filter.size)
        .execute(),
      query.select((eb) => eb.fn.countAll<number>().as("total")).executeTakeFirstOrThrow(),
    ]);
    return { items: rows.map(toJob), total: Number(count.total) };
  }

  async searchJobs(search: JobSearch): Promise<Page<Job>> {
    const { rows, total } = await searchJobRows(this.db, search);
    return { items: rows.map(toJob), total };
  }

  async deleteJob(appId: string, id: string): Promise<boolean> {
    const result = await this.db.deleteFrom("jobs").where("app_id", "=", appId).where("id", "=", id).executeTakeFirst();
    return result.numDeletedRows > 0n;
  }

  runningJobsByWorker(): Promise<Record<string, number>> {
    return runningJobsByWorker(this.db);
  }

  failuresByCode(since: string): Promise<FailureCount[]> {
    return failuresByCode(this.db, since);
  }

  async countQueuedJobs(appId: string): Promise<number> {
    const row = await this.db
      .selectFrom("jobs")
      .select((eb) => eb.fn.countAll<number>().as("n"))
      .where("app_id", "=", appId)
      .where("status", "=", "QUEUED")
      .executeTakeFirstOrThrow();
    return Number(row.n);
  }

  async countJobsByStatus(): Promise<Record<JobStatus, number>> {
    const rows = await this.db
      .selectFrom("jobs")
      .select(["status", (eb) => eb.fn.countAll<number>().as("count")])
      .groupBy("status")
      .execute();
    const counts = Object.fromEntries(JOB_STATUSES.map((s) => [s, 0])) as Record<JobStatus, number>;
    for (const row of rows) counts[row.status as JobStatus] = Number(row.count);
    return counts;
  }

  syncBuiltInWorkflows(builtIns: Omit<WorkflowRecord, "createdAt" | "updatedAt">[], now: string): Promise<void> {
    return customWorkflows.syncBuiltInWorkflows(this.db, builtIns, now);
  }

  async putCustomWorkflow(
    definition: CustomWorkflowDefinition,
    record: Omit<WorkflowRecord, "createdAt" | "updatedAt">,
  ): Promise<boolean> {
    const saved = await customWorkflows.putCustomWorkflow(this.db, definition, record);
    if (saved) this.localWorkflowChanges++;
    return saved;
  }

  async deleteCustomWorkflow(slug: string, at: string): Promise<boolean> {
    const deleted = await customWorkflows.deleteCustomWorkflow(this.db, slug, at);
    if (deleted) this.localWorkflowChanges++;
    return deleted;
  }

  listCustomWorkflows(): Promise<{ revision: string; definitions: CustomWorkflowDefinition[] }> {
    return customWorkflows.listCustomWorkflows(this.db);
  }

  customWorkflowChangedAt(slug: string): Promise<string | undefined> {
    return customWorkflows.customWorkflowChangedAt(this.db, slug);
  }

  customWorkflowsRevision(): Promise<string> {
    return customWorkflows.customWorkflowsRevision(this.db);
  }

  customWorkflowsVersion(): string {
    return `${this.localWorkflowChanges}:${this.workflowChanges()}`;
  }

  async listWorkflows(page: number, size: number): Promise<Page<WorkflowRecord>> {
    const [rows, count] = await Promise.all([
      this.db
        .selectFrom("workflows")
        .selectAll()
        .orderBy("created_at")
        .orderBy("slug")
        .limit(size)
        .offset(page * size)
        .execute(),
      this.db
        .selectFrom("workflows")
        .select((eb) => eb.fn.countAll<number>().as("total"))
        .executeTakeFirstOrThrow(),
    ]);
    return { items: rows.map(toWorkflow), total: Number(count.total) };
  }

  async getWorkflow(slug: string): Promise<WorkflowRecord | undefined> {
    const row = await this.db.selectFrom("workflows").selectAll().where("slug", "=", slug).executeTakeFirst();
    return row && toWorkflow(row);
  }

  async createUpload(upload: Upload): Promise<void> {
    await this.db
      .insertInto("uploads")
      .values({
        id: upload.id,
        app_id: upload.appId,
        state: upload.state,
        content_type: upload.contentType,
        size: upload.size,
        created_at: upload.createdAt,
        expires_at: upload.expiresAt,
      })
      .execute();
  }

  async getUpload(id: string): Promise<Upload | undefined> {
    const row = await this.db.selectFrom("uploads").selectAll().where("id", "=", id).executeTakeFirst();
    return row && toUpload(row);
  }

  async beginUpload(id: string): Promise<boolean> {
    const result = await this.db
      .updateTable("uploads")
      .set({ state: "RECEIVING" })
      .where("id", "=", id)
      .where("state", "=", "PENDING")
      .executeTakeFirst();
    return result.numUpdatedRows > 0n;
  }

  async finishUpload(id: string, outcome: { contentType: string; size: number } | null): Promise<void> {
    const values = outcome
      ? { state: "COMPLETE", content_type: outcome.contentType, size: outcome.size }
      : { state: "PENDING" };
    await this.db.updateTable("uploads").set(values).where("id", "=", id).execute();
  }

  async takeExpiredUploads(nowMs: number): Promise<string[]> {
    const rows = await this.db
      .deleteFrom("uploads")
      .where("expires_at", "<", nowMs)
      .where("state", "!=", "RECEIVING")
      .where(({ not, exists, selectFrom }) =>
        not(exists(selectFrom("job_inputs").select("job_id").whereRef("job_inputs.upload_id", "=", "uploads.id"))),
      )
      .returning("id")
      .execute();
    return rows.map((row) => row.id);
  }
}
