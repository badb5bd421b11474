import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { DatabaseSync } from "node:sqlite";
import { after, before, test } from "node:test";
import type { Kysely } from "kysely";
import pg from "pg";
import type { JobSearch } from "../../src/domain.ts";
import { uuidv7 } from "../../src/ids.ts";
import { openPostgres } from "../../src/store/postgres/database.ts";
import { forDialect, migrationFiles } from "../../src/store/sql/migrations.ts";
import { type Database, newJobRow } from "../../src/store/sql/schema.ts";
import { SqlMetadataStore } from "../../src/store/sql/sql-metadata-store.ts";
import { openSqlite } from "../../src/store/sqlite/database.ts";
import { describeOrSkip, postgresUnavailable, provisionDatabase } from "../helpers/backends.ts";

const NAMES = [
  "Night Drive",
  "NIGHTFALL",
  "Élan vital",
  "50%_off sale",
  'a "quoted" take',
  "back\\slash",
  "Paper Moons",
];

const everything: JobSearch = {
  appIds: [],
  statuses: [],
  workflows: [],
  batchName: undefined,
  text: undefined,
  page: 0,
  size: 50,
};

/** The ids, in insertion order (so id order), of jobs named NAMES, then `extra` more named "filler N". */
async function insertJobs(db: Kysely<Database>, extra = 0): Promise<string[]> {
  const appId = "app-1";
  await db
    .insertInto("applications")
    .values({ id: appId, name: "Label", key_hash: "hash-1", created_at: new Date().toISOString(), revoked_at: null })
    .execute();
  const names = [...NAMES, ...Array.from({ length: extra }, (_, i) => `filler ${i}`)];
  const rows = names.map((name) =>
    newJobRow({
      id: uuidv7(),
      appId,
      name,
      batchName: null,
      metadata: {},
      workflow: "mixdown/convert",
      params: {},
      createdAt: new Date().toISOString(),
    }),
  );
  await db.insertInto("jobs").values(rows).execute();
  return rows.map((row) => row.id);
}

/** The search semantics, the same on both backends: what the dashboard's "Name or id" box finds. */
function searchSuite(open: () => Promise<{ db: Kysely<Database>; close(): Promise<void> }>) {
  let db: Kysely<Database>;
  let close: () => Promise<void>;
  let store: SqlMetadataStore;
  let ids: string[];
  const named = async (text: string) =>
    (await store.searchJobs({ ...everything, text })).items.map((job) => job.name).sort();

  before(async () => {
    ({ db, close } = await open());
    store = new SqlMetadataStore(db, () => "");
    ids = await insertJobs(db, 120);
  });
  after(() => close());

  test("names contain the text, whatever its case", async () => {
    assert.deepEqual(await named("night"), ["NIGHTFALL", "Night Drive"]);
    assert.deepEqual(await named("GHT D"), ["Night Drive"]);
    assert.deepEqual(await named("paper moons"), ["Paper Moons"]);
    assert.deepEqual(await named("Élan"), ["Élan vital"]);
    assert.deepEqual(await named("moonshine"), []);
  });

  test("one or two characters still search (without the index)", async () => {
    assert.deepEqual(await named("tf"), ["NIGHTFALL"]);
    assert.deepEqual(await named("É"), ["Élan vital"]);
  });

  test("LIKE's and FTS's own characters are plain text", async () => {
    assert.deepEqual(await named("%"), ["50%_off sale"]);
    assert.deepEqual(await named("0%_o"), ["50%_off sale"]);
    assert.deepEqual(await named("_"), ["50%_off sale"]);
    assert.deepEqual(await named('"quoted"'), ['a "quoted" take']);
    assert.deepEqual(await named("k\\s"), ["back\\slash"]);
    assert.deepEqual(await named("ight OR Paper"), []);
    assert.deepEqual(await named("Moon*"), []);
  });

  test("an id finds its job, in either case; the total counts the matches", async () => {
    const id = ids[3] as string;
    for (const text of [id, id.toUpperCase()]) {
      const page = await store.searchJobs({ ...everything, text });
      assert.deepEqual(
        page.items.map((job) => job.id),
        [id],
      );
      assert.equal(page.total, 1);
    }
    const fillers = await store.searchJobs({ ...everything, text: "FILLER 1" });
    assert.equal(fillers.total, 1 + 10 + 20); // filler 1, 10–19, 100–119
    assert.equal(fillers.items.length, 31);
  });

  test("a deleted job is no longer found", async () => {
    const [job] = (await store.searchJobs({ ...everything, text: "paper moons" })).items;
    assert.ok(job);
    assert.equal(await store.deleteJob(job.appId, job.id), true);
    assert.deepEqual(await named("paper moons"), []);
  });

  test("keyset pages (before/after a job id) are the offset pages", async () => {
    const size = 25;
    const byOffset = [];
    for (let page = 0; page * size < ids.length; page++)
      byOffset.push((await store.searchJobs({ ...everything, page, size })).items.map((job) => job.id));
    let cursor: string | undefined;
    for (const [page, expected] of byOffset.entries()) {
      // The page number is ignored with a cursor.
      const result = await store.searchJobs({ ...everything, size, page: cursor ? 999 : 0, before: cursor });
      const got = result.items.map((job) => job.id);
      assert.deepEqual(got, expected, `page ${page + 1}`);
      if (page > 0) {
        const back = await store.searchJobs({ ...everything, size, page: 999, after: got[0] });
        assert.deepEqual(
          back.items.map((job) => job.id),
          byOffset[page - 1],
          `back to page ${page}`,
        );
      }
      cursor = got.at(-1);
    }
    const filtered = await store.searchJobs({ ...everything, text: "filler", size: 10, before: ids.at(-5) });
    assert.deepEqual(
      filtered.items.map((job) => job.name),
      Array.from({ length: 10 }, (_, i) => `filler ${114 - i}`),
    );
    const newer = await store.searchJobs({ ...everything, text: "filler", size: 3, after: ids.at(-5) });
    assert.deepEqual(
      newer.items.map((job) => job.name),
      ["filler 118", "filler 117", "filler 116"],
    );
  });

  test("a page link whose job was deleted since still leads to the page next to it", async () => {
    const cursor = ids.at(-20) as string;
    const [olderNeighbour, newerNeighbour] = [ids.at(-21), ids.at(-19)];
    assert.equal(await store.deleteJob("app-1", cursor), true);
    for (const text of [undefined, "filler"]) {
      const older = await store.searchJobs({ ...everything, text, size: 2, before: cursor });
      assert.equal(older.items[0]?.id, olderNeighbour, `older, text ${text}`);
      const newer = await store.searchJobs({ ...everything, text, size: 2, after: cursor });
      assert.equal(newer.items.at(-1)?.id, newerNeighbour, `newer, text ${text}`);
    }
  });
}

describeOrSkip("job search [sqlite]", undefined, () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "mixdown-job-search-"));
  searchSuite(async () => {
    const { db } = openSqlite(dir);
    return {
      db,
      async close() {
        await db.destroy();
        fs.rmSync(dir, { recursive: true, force: true });
      },
    };
  });
});

describeOrSkip("job search [postgres]", postgresUnavailable, () => {
  let drop: () => Promise<void>;
  searchSuite(async () => {
    const database = await provisionDatabase();
    drop = database.drop;
    const { db, close } = await openPostgres(database.url);
    return {
      db,
      async close() {
        await close();
        await drop();
      },
    };
  });
});

const EARLIER = migrationFiles("sqlite").filter((file) => file.name < "000004");

test("the SQLite migration indexes the names of jobs that existed before it", async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "mixdown-job-search-upgrade-"));
  const file = new DatabaseSync(path.join(dir, "mixdown.sqlite"));
  file.exec("CREATE TABLE schema_migrations (name TEXT PRIMARY KEY, applied_at TEXT NOT NULL)");
  for (const { name, sql } of EARLIER) {
    file.exec(sql);
    file.prepare("INSERT INTO schema_migrations VALUES (?, ?)").run(name, new Date().toISOString());
  }
  file.exec("INSERT INTO applications VALUES ('app-1', 'Label', 'hash-1', '2026-01-01T00:00:00Z', NULL)");
  const insert = file.prepare(
    "INSERT INTO jobs (id, app_id, name, metadata, workflow, params, status, created_at) VALUES (?, 'app-1', ?, '{}', 'mixdown/convert', '{}', 'SUCCEEDED', '2026-01-01T00:00:00Z')",
  );
  for (const name of ["Old Night Drive", "Old Paper Moons"]) insert.run(uuidv7(), name);
  file.close();
  const { db } = openSqlite(dir);
  try {
    const store = new SqlMetadataStore(db, () => "");
    const found = await store.searchJobs({ ...everything, text: "NIGHT DR" });
    assert.deepEqual(
      found.items.map((job) => job.name),
      ["Old Night Drive"],
    );
  } finally {
    await db.destroy();
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

describeOrSkip("the Postgres migration on jobs that existed before it", postgresUnavailable, () => {
  test("their names are found through the trigram index", async () => {
    const database = await provisionDatabase();
    const client = new pg.Client({ connectionString: database.url });
    try {
      await client.connect();
      await client.query("CREATE TABLE schema_migrations (name TEXT PRIMARY KEY, applied_at TEXT NOT NULL)");
      for (const { name, sql } of migrationFiles("postgres").filter((file) => file.name < "000004")) {
        await client.query(sql);
        await client.query("INSERT INTO schema_migrations VALUES ($1, $2)", [name, new Date().toISOString()]);
      }
      await client.query("INSERT INTO applications VALUES ('app-1', 'Label', 'hash-1', '2026-01-01T00:00:00Z', NULL)");
      await client.query(
        "INSERT INTO jobs (id, app_id, name, metadata, workflow, params, status, created_at) VALUES ($1, 'app-1', 'Old Night Drive', '{}', 'mixdown/convert', '{}', 'SUCCEEDED', '2026-01-01T00:00:00Z')",
        [uuidv7()],
      );
      await client.end();
      const { db, close } = await openPostgres(database.url);
      try {
        const store = new SqlMetadataStore(db, () => "");
        const found = await store.searchJobs({ ...everything, text: "night dr" });
        assert.deepEqual(
          found.items.map((job) => job.name),
          ["Old Night Drive"],
        );
        const plan = await db
          .selectFrom("pg_indexes" as never)
          .select("indexname" as never)
          .where("indexname" as never, "=", "jobs_by_name_trigrams" as never)
          .execute();
        assert.equal(plan.length, 1, "the trigram index exists");
      } finally {
        await close();
      }
    } finally {
      await client.end().catch(() => undefined);
      await database.drop();
    }
  });
});

test("a migration's dialect sections reach only their dialect", () => {
  const text =
    "CREATE TABLE a (x TEXT);\n-- dialect: sqlite\nCREATE VIRTUAL TABLE f;\n-- dialect: postgres\nCREATE EXTENSION e;\n";
  assert.equal(forDialect(text, "sqlite").trim(), "CREATE TABLE a (x TEXT);\nCREATE VIRTUAL TABLE f;");
  assert.equal(forDialect(text, "postgres").trim(), "CREATE TABLE a (x TEXT);\nCREATE EXTENSION e;");
});
