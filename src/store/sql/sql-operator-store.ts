import { type Kysely, type Selectable, sql } from "kysely";
import type { Operator, OperatorSession, OperatorStore } from "../operator-store.ts";
import type { Database } from "./schema.ts";

const toOperator = (row: Selectable<Database["operators"]>): Operator => ({
  id: row.id,
  name: row.name,
  createdAt: row.created_at,
  updatedAt: row.updated_at,
});

/** The operator store on Kysely: the same queries on SQLite (embedded) and Postgres (distributed). */
export class SqlOperatorStore implements OperatorStore {
  private readonly db: Kysely<Database>;

  constructor(db: Kysely<Database>) {
    this.db = db;
  }

  async createOperator(operator: Operator, passwordHash: string): Promise<boolean> {
    const result = await this.db
      .insertInto("operators")
      .values({
        id: operator.id,
        name: operator.name,
        password_hash: passwordHash,
        created_at: operator.createdAt,
        updated_at: operator.updatedAt,
      })
      .onConflict((oc) => oc.column("name").doNothing())
      .executeTakeFirst();
    return Number(result.numInsertedOrUpdatedRows ?? 0n) > 0;
  }

  async listOperators(): Promise<Operator[]> {
    return (await this.db.selectFrom("operators").selectAll().orderBy("name").execute()).map(toOperator);
  }

  async countOperators(): Promise<number> {
    const row = await this.db
      .selectFrom("operators")
      .select((eb) => eb.fn.countAll<number>().as("count"))
      .executeTakeFirstOrThrow();
    return Number(row.count);
  }

  async findOperator(name: string): Promise<{ operator: Operator; passwordHash: string } | undefined> {
    const row = await this.db.selectFrom("operators").selectAll().where("name", "=", name).executeTakeFirst();
    return row && { operator: toOperator(row), passwordHash: row.password_hash };
  }

  async setOperatorPassword(name: string, passwordHash: string, at: string): Promise<boolean> {
    return this.db.transaction().execute(async (tx) => {
      const row = await tx
        .updateTable("operators")
        .set({ password_hash: passwordHash, updated_at: at })
        .where("name", "=", name)
        .returning("id")
        .executeTakeFirst();
      if (!row) return false;
      await tx.deleteFrom("operator_sessions").where("operator_id", "=", row.id).execute();
      return true;
    });
  }

  async removeOperator(name: string): Promise<boolean> {
    return this.db.transaction().execute(async (tx) => {
      const row = await tx.deleteFrom("operators").where("name", "=", name).returning("id").executeTakeFirst();
      if (!row) return false;
      // ON DELETE CASCADE does the same where foreign keys are enforced; said here so it never depends on it.
      await tx.deleteFrom("operator_sessions").where("operator_id", "=", row.id).execute();
      return true;
    });
  }

  async createSession(
    idHash: string,
    operatorId: string,
    csrfToken: string,
    nowMs: number,
    idleSinceMs: number,
  ): Promise<void> {
    await this.db.deleteFrom("operator_sessions").where("last_seen_at", "<", idleSinceMs).execute();
    await this.db
      .insertInto("operator_sessions")
      .values({
        id_hash: idHash,
        operator_id: operatorId,
        csrf_token: csrfToken,
        created_at: new Date(nowMs).toISOString(),
        last_seen_at: nowMs,
      })
      .execute();
  }

  async findSession(
    idHash: string,
    times: { nowMs: number; idleSinceMs: number; touchBeforeMs: number },
  ): Promise<OperatorSession | undefined> {
    const row = await this.db
      .selectFrom("operator_sessions")
      .innerJoin("operators", "operators.id", "operator_sessions.operator_id")
      .selectAll("operators")
      .select(["operator_sessions.csrf_token", "operator_sessions.last_seen_at"])
      .where("operator_sessions.id_hash", "=", idHash)
      .executeTakeFirst();
    if (!row) return undefined;
    if (row.last_seen_at < times.idleSinceMs) {
      await this.deleteSession(idHash);
      return undefined;
    }
    if (row.last_seen_at < times.touchBeforeMs) {
      await this.db
        .updateTable("operator_sessions")
        .set({ last_seen_at: times.nowMs })
        .where("id_hash", "=", idHash)
        .execute();
    }
    return { operator: toOperator(row), csrfToken: row.csrf_token, lastSeenAt: row.last_seen_at };
  }

  async deleteSession(idHash: string): Promise<void> {
    await this.db.deleteFrom("operator_sessions").where("id_hash", "=", idHash).execute();
  }

  async createSetupToken(tokenHash: string, expiresAtMs: number): Promise<void> {
    await this.db.insertInto("setup_tokens").values({ token_hash: tokenHash, expires_at: expiresAtMs }).execute();
  }

  async setupTokenValid(tokenHash: string, nowMs: number): Promise<boolean> {
    const row = await this.db
      .selectFrom("setup_tokens")
      .select("token_hash")
      .where("token_hash", "=", tokenHash)
      .where("expires_at", ">", nowMs)
      .executeTakeFirst();
    return row !== undefined;
  }

  async takeSetupToken(tokenHash: string, nowMs: number): Promise<boolean> {
    await this.db.deleteFrom("setup_tokens").where("expires_at", "<=", nowMs).execute();
    const result = await this.db.deleteFrom("setup_tokens").where("token_hash", "=", tokenHash).executeTakeFirst();
    return result.numDeletedRows > 0n;
  }

  async signInBlockedUntil(subjects: string[], nowMs: number): Promise<number> {
    if (subjects.length === 0) return 0;
    const row = await this.db
      .selectFrom("sign_in_failures")
      .select((eb) => eb.fn.max("blocked_until").as("until"))
      .where("subject", "in", subjects)
      .where("blocked_until", ">", nowMs)
      .executeTakeFirst();
    return Number(row?.until ?? 0);
  }

  async recordSignInFailure(
    subjects: string[],
    nowMs: number,
    windowMs: number,
    blockFor: (failures: number) => number,
  ): Promise<number> {
    await this.db
      .deleteFrom("sign_in_failures")
      .where("last_failure_at", "<", nowMs - windowMs)
      .where("blocked_until", "<", nowMs)
      .execute();
    let until = 0;
    for (const subject of subjects) {
      // One statement, so failures counted on several nodes at once all count.
      const row = await this.db
        .insertInto("sign_in_failures")
        .values({ subject, failures: 1, last_failure_at: nowMs, blocked_until: 0 })
        .onConflict((oc) =>
          oc.column("subject").doUpdateSet({
            failures: sql<number>`CASE WHEN sign_in_failures.last_failure_at < ${nowMs - windowMs} THEN 1 ELSE sign_in_failures.failures + 1 END`,
            last_failure_at: nowMs,
          }),
        )
        .returning("failures")
        .executeTakeFirstOrThrow();
      const block = blockFor(Number(row.failures));
      if (block > 0) {
        await this.db
          .updateTable("sign_in_failures")
          .set({ blocked_until: nowMs + block })
          .where("subject", "=", subject)
          .execute();
        until = Math.max(until, nowMs + block);
      }
    }
    return until;
  }

  async clearSignInFailures(subjects: string[]): Promise<void> {
    if (subjects.length > 0) await this.db.deleteFrom("sign_in_failures").where("subject", "in", subjects).execute();
  }
}
