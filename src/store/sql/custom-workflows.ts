import type { Kysely, Transaction } from "kysely";
import type { CustomWorkflowDefinition, WorkflowRecord } from "../../domain.ts";
import type { Database } from "./schema.ts";

/** NOTIFY'd (Postgres, by a trigger of migration 000008) with the new revision whenever custom workflows change. */
export const CUSTOM_WORKFLOWS_CHANNEL = "mixdown_custom_workflows";

type NewRecord = Omit<WorkflowRecord, "createdAt" | "updatedAt">;

/** Inserts a workflow's record, or updates it when its definition hash moved (createdAt stays). */
export async function upsertWorkflowRecord(tx: Transaction<Database>, wf: NewRecord, now: string): Promise<void> {
  await tx
    .insertInto("workflows")
    .values({
      slug: wf.slug,
      id: wf.id,
      name: wf.name,
      description: wf.description,
      definition_hash: wf.definitionHash,
      created_at: now,
      updated_at: now,
    })
    .onConflict((oc) =>
      oc
        .column("slug")
        .doUpdateSet({
          name: wf.name,
          description: wf.description,
          definition_hash: wf.definitionHash,
          updated_at: now,
        })
        .where("workflows.definition_hash", "!=", wf.definitionHash),
    )
    .execute();
}

const bumpRevision = (tx: Transaction<Database>) =>
  tx
    .updateTable("custom_workflows_revision")
    .set((eb) => ({ revision: eb("revision", "+", 1) }))
    .where("id", "=", 1)
    .execute();

export function putCustomWorkflow(
  db: Kysely<Database>,
  definition: CustomWorkflowDefinition,
  record: NewRecord,
): Promise<boolean> {
  return db
    .transaction()
    .execute(async (tx) => {
      const row = {
        format: definition.format,
        source: definition.source,
        definition: JSON.stringify(definition.definition),
        definition_hash: definition.hash,
        changed_at: definition.changedAt,
      };
      // The revision row first: it serialises concurrent saves, so the text compared below is the latest.
      await bumpRevision(tx);
      const saved = await tx
        .selectFrom("custom_workflows")
        .select(["format", "source"])
        .where("slug", "=", definition.slug)
        .executeTakeFirst();
      if (saved && saved.source === row.source && saved.format === row.format) {
        throw new Unchanged();
      }
      await tx
        .insertInto("custom_workflows")
        .values({ slug: definition.slug, ...row })
        .onConflict((oc) => oc.column("slug").doUpdateSet(row))
        .execute();
      await upsertWorkflowRecord(tx, record, definition.changedAt);
      return true;
    })
    .catch((error) => {
      if (error instanceof Unchanged) return false; // rolled back: the revision stays where it was
      throw error;
    });
}

/** Thrown to roll a transaction back when it has nothing to write. */
class Unchanged extends Error {}

export function deleteCustomWorkflow(db: Kysely<Database>, slug: string, at: string): Promise<boolean> {
  return db.transaction().execute(async (tx) => {
    const removed = await tx
      .updateTable("custom_workflows")
      .set({ source: null, definition: null, definition_hash: null, changed_at: at })
      .where("slug", "=", slug)
      .where("source", "is not", null)
      .executeTakeFirst();
    if (removed.numUpdatedRows === 0n) return false;
    await tx.deleteFrom("workflows").where("slug", "=", slug).execute();
    await bumpRevision(tx);
    return true;
  });
}

export async function customWorkflowsRevision(db: Kysely<Database>): Promise<string> {
  const row = await db
    .selectFrom("custom_workflows_revision")
    .select("revision")
    .where("id", "=", 1)
    .executeTakeFirstOrThrow();
  return String(row.revision);
}

/** The revision is read first: a change committed between the two reads makes the next look read them again. */
export async function listCustomWorkflows(
  db: Kysely<Database>,
): Promise<{ revision: string; definitions: CustomWorkflowDefinition[] }> {
  const revision = await customWorkflowsRevision(db);
  const rows = await db
    .selectFrom("custom_workflows")
    .selectAll()
    .where("source", "is not", null)
    .orderBy("slug")
    .execute();
  const definitions = rows.map((row) => ({
    slug: row.slug,
    format: row.format === "json" ? ("json" as const) : ("yaml" as const),
    source: row.source ?? "",
    definition: JSON.parse(row.definition ?? "null") as unknown,
    hash: row.definition_hash ?? "",
    changedAt: row.changed_at,
  }));
  return { revision, definitions };
}

export async function customWorkflowChangedAt(db: Kysely<Database>, slug: string): Promise<string | undefined> {
  const row = await db.selectFrom("custom_workflows").select("changed_at").where("slug", "=", slug).executeTakeFirst();
  return row?.changed_at;
}

/** Built-ins' records; rows of neither a listed built-in nor a stored custom workflow go (built-ins since dropped). */
export function syncBuiltInWorkflows(db: Kysely<Database>, builtIns: NewRecord[], now: string): Promise<void> {
  return db.transaction().execute(async (tx) => {
    for (const wf of builtIns) await upsertWorkflowRecord(tx, wf, now);
    let removal = tx
      .deleteFrom("workflows")
      .where(({ not, exists, selectFrom }) =>
        not(
          exists(
            selectFrom("custom_workflows")
              .select("custom_workflows.slug")
              .whereRef("custom_workflows.slug", "=", "workflows.slug")
              .where("custom_workflows.source", "is not", null),
          ),
        ),
      );
    const slugs = builtIns.map((wf) => wf.slug);
    if (slugs.length > 0) removal = removal.where("slug", "not in", slugs);
    await removal.execute();
  });
}
