import {
  type ExpressionBuilder,
  type Kysely,
  type Selectable,
  type SelectQueryBuilder,
  SqliteAdapter,
  sql,
} from "kysely";
import type { JobSearch } from "../../domain.ts";
import { isUuid } from "../../ids.ts";
import type { Dialect } from "./migrations.ts";
import type { Database } from "./schema.ts";

export type JobRow = Selectable<Database["jobs"]> & { app_name: string };

/** The trigram index (000004) answers searches of at least this many characters; shorter ones read every name. */
const TRIGRAM = 3;

export const dialectOf = (db: Kysely<Database>): Dialect =>
  db.getExecutor().adapter instanceof SqliteAdapter ? "sqlite" : "postgres";

/** `%text%` for LIKE, with LIKE's own characters escaped (ESCAPE '\'). */
const containsPattern = (text: string) => `%${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;

/** The FTS5 trigram index of job names and its keys (000004, SQLite only). */
type SearchDatabase = Database & {
  job_names: { rowid: number; name: string; job_names: string };
  job_name_keys: { key: number; job_id: string };
};

/** An FTS5 phrase: the trigram tokenizer matches it as a case-insensitive substring. */
const ftsPhrase = (text: string) => `"${text.replaceAll('"', '""')}"`;

/** Jobs whose name contains `text`, case-insensitively, through the dialect's trigram index where it can. */
function nameContains(text: string, dialect: Dialect) {
  if (dialect === "sqlite" && [...text].length >= TRIGRAM) {
    return sql<boolean>`jobs.id IN (SELECT job_id FROM job_name_keys WHERE key IN (
      SELECT rowid FROM job_names WHERE job_names MATCH ${ftsPhrase(text)}))`;
  }
  // SQLite's LIKE ignores the case of ASCII letters (its lower() folds no others, so no lower() on either side).
  if (dialect === "sqlite") return sql<boolean>`jobs.name LIKE ${containsPattern(text)} ESCAPE '\\'`;
  // Postgres: the GIN index on lower(name) serves this LIKE from three characters on.
  return sql<boolean>`lower(jobs.name) LIKE ${containsPattern(text.toLowerCase())} ESCAPE '\\'`;
}

/**
 * SQLite, a name search: the FTS5 index drives the query (CROSS JOIN fixes that order), newest match first by its
 * key, so the first 50 (and a capped count) are read without collecting every match: a common word matches
 * thousands. Keys are given in insertion order, which is the jobs' creation order.
 */
const ftsDriven = (search: JobSearch, dialect: Dialect) =>
  dialect === "sqlite" && search.text !== undefined && [...search.text].length >= TRIGRAM && !isUuid(search.text);

/** The search's jobs, their filters applied (no join to applications: the count needs none). */
function matching(db: Kysely<Database>, search: JobSearch, dialect: Dialect) {
  let query: SelectQueryBuilder<Database, "jobs", object>;
  const text = search.text;
  if (ftsDriven(search, dialect)) {
    query = (db as unknown as Kysely<SearchDatabase>)
      .selectFrom("job_names")
      .crossJoin("job_name_keys as k")
      .crossJoin("jobs")
      .where(sql<boolean>`job_names MATCH ${ftsPhrase(text as string)}`)
      .whereRef("k.key", "=", "job_names.rowid")
      .whereRef("jobs.id", "=", "k.job_id") as unknown as SelectQueryBuilder<Database, "jobs", object>;
  } else {
    query = db.selectFrom("jobs");
    if (text !== undefined) {
      query = query.where((eb: ExpressionBuilder<Database, "jobs">) => {
        const byName = nameContains(text, dialect);
        // Ids are lower-case UUIDs; a search that is one also finds the job it names.
        return isUuid(text) ? eb.or([eb("jobs.id", "=", text.toLowerCase()), byName]) : byName;
      });
    }
  }
  if (search.appIds.length > 0) query = query.where("jobs.app_id", "in", search.appIds);
  if (search.statuses.length > 0) query = query.where("jobs.status", "in", search.statuses);
  if (search.workflows.length > 0) query = query.where("jobs.workflow", "in", search.workflows);
  if (search.batchName !== undefined) query = query.where("jobs.batch_name", "=", search.batchName);
  return query;
}

/**
 * One page of the dashboard's jobs table, newest first, and how many jobs match. A cursor (`before`/`after`, a
 * job id) reads the page from the (filter, id) index without skipping the jobs before it, so page 2,000 costs
 * what page 1 does; without one, `page` is an offset (links from before cursors existed, typed URLs). Counting is
 * what grows with the store: `countLimit` bounds it.
 */
export async function searchJobRows(
  db: Kysely<Database>,
  search: JobSearch,
): Promise<{ rows: JobRow[]; total: number }> {
  const dialect = dialectOf(db);
  let page = matching(db, search, dialect)
    .innerJoin("applications", "applications.id", "jobs.app_id")
    .selectAll("jobs")
    .select("applications.name as app_name")
    .limit(search.size);
  if (ftsDriven(search, dialect)) {
    // The page continues from the cursor's key in the index's order; a cursor job deleted since, from its neighbour's.
    const key = sql.ref("job_names.rowid");
    const olderThan = (id: string) =>
      sql<number>`coalesce((SELECT key FROM job_name_keys WHERE job_id >= ${id} ORDER BY job_id LIMIT 1), ${Number.MAX_SAFE_INTEGER})`;
    const newerThan = (id: string) =>
      sql<number>`coalesce((SELECT key FROM job_name_keys WHERE job_id <= ${id} ORDER BY job_id DESC LIMIT 1), 0)`;
    if (search.before !== undefined) page = page.where(key, "<", olderThan(search.before)).orderBy(key, "desc");
    else if (search.after !== undefined) page = page.where(key, ">", newerThan(search.after)).orderBy(key, "asc");
    else page = page.orderBy(key, "desc").offset(search.page * search.size);
  } else if (search.before !== undefined) page = page.where("jobs.id", "<", search.before).orderBy("jobs.id", "desc");
  else if (search.after !== undefined) page = page.where("jobs.id", ">", search.after).orderBy("jobs.id", "asc");
  else page = page.orderBy("jobs.id", "desc").offset(search.page * search.size);
  const counted =
    search.countLimit === undefined
      ? matching(db, search, dialect).select((eb) => eb.fn.countAll<number>().as("total"))
      : db
          .selectFrom(
            matching(db, search, dialect)
              .select("jobs.id")
              .limit(search.countLimit + 1)
              .as("first"),
          )
          .select((eb) => eb.fn.countAll<number>().as("total"));
  const [rows, count] = await Promise.all([page.execute(), counted.executeTakeFirstOrThrow()]);
  if (search.before === undefined && search.after !== undefined) rows.reverse();
  return { rows, total: Number(count.total) };
}
