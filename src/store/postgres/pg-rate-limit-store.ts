import { type Kysely, sql } from "kysely";
import type { RateLimit } from "../../api/rate-limit-config.ts";
import type { RateLimitStore } from "../rate-limit-store.ts";
import type { Database } from "../sql/schema.ts";

/**
 * Token buckets in Postgres: one upsert per take, the refill computed from the database's clock (nodes' clocks
 * may differ) and from the row as it is when the statement holds its lock, so concurrent takes never overdraw.
 */
export class PgRateLimitStore implements RateLimitStore {
  private readonly db: Kysely<Database>;

  constructor(db: Kysely<Database>) {
    this.db = db;
  }

  async takeTokens(appId: string, want: number, limit: RateLimit): Promise<{ granted: number; waitMs: number }> {
    const perMs = limit.perSecond / 1000;
    const now = sql`(extract(epoch FROM clock_timestamp()) * 1000)::bigint`;
    const available = sql`LEAST(${limit.burst}::float8, b.tokens + GREATEST(0, ${now} - b.updated_at) * ${perMs}::float8)`;
    const first = Math.min(want, limit.burst);
    const { rows } = await sql<{ last_grant: number; tokens: number }>`
      INSERT INTO rate_limit_buckets AS b (app_id, tokens, updated_at, last_grant)
      VALUES (${appId}, ${limit.burst - first}::float8, ${now}, ${first})
      ON CONFLICT (app_id) DO UPDATE SET
        tokens = ${available} - LEAST(${want}, FLOOR(${available})),
        last_grant = LEAST(${want}, FLOOR(${available}))::int,
        updated_at = GREATEST(b.updated_at, ${now})
      RETURNING last_grant, tokens`.execute(this.db);
    const row = rows[0];
    const granted = Number(row?.last_grant ?? 0);
    const tokens = Number(row?.tokens ?? 0);
    return { granted, waitMs: granted > 0 ? 0 : Math.ceil((1 - tokens) / perMs) };
  }
}
