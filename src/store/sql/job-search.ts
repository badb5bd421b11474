import { type ExpressionBuilder, type Kysely, type Selectable, SqliteAdapter, sql } from "kysely";
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

/** Jobs whose name contains `text`, case-insensitively, through the dialect's trigram index where it can. */
function nameContains(text: string, dialect: Dialect) {
  if (dialect === "sqlite" && [...text].length >= TRIGRAM) {
    // An FTS5 phrase: the trigram tokenizer matches it as a case-insensitive substring.
    const phrase = `"${text.replaceAll('"', '""')}"`;
    return sql<boolean>`jobs.id IN (SELECT job_id FROM job_name_keys WHERE key IN (
      SELECT rowid FROM job_names WHERE job_names MATCH ${phrase}))`;
  }
  // SQLite's LIKE ignores the case of ASCII letters (its lower() folds no others, so no lower() on either side).
  if (dialect === "sqlite") return sql<boolean>`jobs.name LIKE ${containsPattern(text)} ESCAPE '\\'`;
  // Postgres: the GIN index on lower(name) serves this LIKE from three characters on.
  return sql<boolean>`lower(jobs.name) LIKE ${containsPattern(text.toLowerCase())} ESCAPE '\\'`;
}

/** The search's conditions on the jobs table (no join: the count needs none). */
function matching(db: Kysely<Database>, search: JobSearch, dialect: Dialect) {
  let query = db.selectFrom("jobs");
  if (search.appIds.length > 0) query = query.where("jobs.app_id", "in", search.appIds);
  if (search.statuses.length > 0) query = query.where("jobs.status", "in", search.statuses);
  if (search.workflows.length > 0) query = query.where("jobs.workflow", "in", search.workflows);
  if (search.batchName !== undefined) query = query.where("jobs.batch_name", "=", search.batchName);
  const text = search.text;
  if (text !== undefined) {
    query = query.where((eb: ExpressionBuilder<Database, "jobs">) => {
      const byName = nameContains(text, dialect);
      // Ids are lower-case UUIDs; a search that is one also finds the job it names.
      return isUuid(text) ? eb.or([eb("jobs.id", "=", text.toLowerCase()), byName]) : byName;
    });
  }
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
  if (search.before !== undefined) page = page.where("jobs.id", "<", search.before).orderBy("jobs.id", "desc");
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
