import { randomUUID } from "node:crypto";
import type { Application, ApplicationActivity } from "../domain.ts";
import type { MetadataStore } from "../store/metadata-store.ts";
import { generateApiKey, hashApiKey, looksLikeApiKey } from "./api-keys.ts";

/** A name as people tell names apart: case, spacing and Unicode forms ignored ("My  App" is "my app"). */
export const nameKey = (name: string): string => name.normalize("NFKC").trim().replace(/\s+/g, " ").toLowerCase();

export class ApplicationService {
  private readonly store: MetadataStore;

  constructor(store: MetadataStore) {
    this.store = store;
  }

  async create(name: string): Promise<{ app: Application; apiKey: string }> {
    const app: Application = { id: randomUUID(), name, createdAt: new Date().toISOString(), revokedAt: null };
    const apiKey = generateApiKey();
    await this.store.createApplication(app, hashApiKey(apiKey));
    return { app, apiKey };
  }

  list(): Promise<Application[]> {
    return this.store.listApplications();
  }

  /** The applications (revoked ones too) already called `name`, oldest first, but for `exceptId`. */
  async named(name: string, exceptId?: string): Promise<Application[]> {
    const key = nameKey(name);
    return (await this.store.listApplications()).filter((app) => app.id !== exceptId && nameKey(app.name) === key);
  }

  /** Keys already looked up (kept in memory only), valid while the store's applications version stays the same. */
  private readonly cache = new Map<string, Application | undefined>();
  private cacheVersion = "";

  /** The application of a key already looked up (undefined: invalid), or "unknown" when it must be looked up. */
  cached(apiKey: string | undefined): Application | undefined | "unknown" {
    if (!apiKey || !looksLikeApiKey(apiKey)) return undefined;
    const version = this.store.applicationsVersion();
    if (version !== this.cacheVersion) {
      this.cache.clear();
      this.cacheVersion = version;
    }
    const app = this.cache.get(apiKey);
    return app !== undefined || this.cache.has(apiKey) ? app : "unknown";
  }

  /** The application an Authorization header value names, if the key is valid and not revoked. */
  async authenticate(apiKey: string | undefined): Promise<Application | undefined> {
    const known = this.cached(apiKey);
    if (known !== "unknown" || apiKey === undefined) return known === "unknown" ? undefined : known;
    const app = await this.store.findApplicationByKeyHash(hashApiKey(apiKey));
    if (this.cache.size >= 10_000) this.cache.clear();
    this.cache.set(apiKey, app);
    return app;
  }

  /** Issues a new key; the old one stops working at once. */
  async rotateKey(id: string): Promise<string | undefined> {
    const apiKey = generateApiKey();
    return (await this.store.setApplicationKey(id, hashApiKey(apiKey))) ? apiKey : undefined;
  }

  /** False when there is no such application. Revoked ones may be renamed too (their jobs keep the name). */
  rename(id: string, name: string): Promise<boolean> {
    return this.store.renameApplication(id, name);
  }

  /** Every application with its jobs by status and last activity, newest first. */
  async overview(): Promise<(Application & ApplicationActivity)[]> {
    const [apps, activity] = await Promise.all([this.store.listApplications(), this.store.applicationActivity()]);
    return apps.reverse().map((app) => ({
      ...app,
      ...(activity.get(app.id) ?? {
        jobsByStatus: { QUEUED: 0, STARTED: 0, SUCCEEDED: 0, FAILED: 0 },
        lastActivityAt: null,
      }),
    }));
  }

  revoke(id: string): Promise<boolean> {
    return this.store.revokeApplication(id, new Date().toISOString());
  }
}
