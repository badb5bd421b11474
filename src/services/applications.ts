import { randomUUID } from "node:crypto";
import type { Application } from "../domain.ts";
import type { MetadataStore } from "../store/metadata-store.ts";
import { generateApiKey, hashApiKey, looksLikeApiKey } from "./api-keys.ts";

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

  /** The application an Authorization header value names, if the key is valid and not revoked. */
  async authenticate(apiKey: string | undefined): Promise<Application | undefined> {
    if (!apiKey || !looksLikeApiKey(apiKey)) return undefined;
    return this.store.findApplicationByKeyHash(hashApiKey(apiKey));
  }

  /** Issues a new key; the old one stops working at once. */
  async rotateKey(id: string): Promise<string | undefined> {
    const apiKey = generateApiKey();
    return (await this.store.setApplicationKey(id, hashApiKey(apiKey))) ? apiKey : undefined;
  }

  revoke(id: string): Promise<boolean> {
    return this.store.revokeApplication(id, new Date().toISOString());
  }
}
