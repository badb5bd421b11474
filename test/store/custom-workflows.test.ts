import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import { setTimeout as delay } from "node:timers/promises";
import { MODULES } from "../../src/modules/index.ts";
import type { StoresWithOperators } from "../../src/runtime.ts";
import { WorkflowService } from "../../src/services/workflows.ts";
import type { MetadataStore } from "../../src/store/metadata-store.ts";
import { openPostgresStores } from "../../src/store/postgres/open.ts";
import { SqlMetadataStore } from "../../src/store/sql/sql-metadata-store.ts";
import { openSqlite } from "../../src/store/sqlite/database.ts";
import { toStored } from "../../src/workflows/custom-definitions.ts";
import { WorkflowRegistry } from "../../src/workflows/registry.ts";
import { WorkflowsDirectory } from "../../src/workflows/workflows-dir.ts";
import { describeOrSkip, postgresUnavailable, provisionDatabase } from "../helpers/backends.ts";

const definition = (slug: string, description = "Integrated loudness of a file.") =>
  JSON.stringify({
    slug,
    name: `Measure ${slug}`,
    description,
    inputSchema: { type: "object", required: ["inputUrl"], properties: { inputUrl: { type: "string" } } },
    steps: [
      { id: "input", module: "fetch", inputs: { url: "$params.inputUrl" } },
      { id: "measure", module: "loudness", inputs: { audio: "$steps.input.file" } },
    ],
    outputs: { loudness: "$steps.measure.integratedLoudness" },
  });

/** Two nodes on one database: each with its own store (connection), registry and service. */
interface Node {
  store: MetadataStore;
  service: WorkflowService;
}
const nodeOn = (store: MetadataStore, dir?: string): Node => {
  const directory = dir ? new WorkflowsDirectory(dir, store) : undefined;
  return {
    store,
    service: new WorkflowService(new WorkflowRegistry(MODULES, { modelsDir: "/none" }, { store, directory }), store),
  };
};

/** Resolves once `check` holds, asking every 20 ms; fails after 5 s (a change is heard within 100 ms). */
async function until(what: string, check: () => Promise<boolean>): Promise<void> {
  const deadline = Date.now() + 5000;
  while (!(await check())) {
    if (Date.now() > deadline) assert.fail(`not within 5 s: ${what}`);
    await delay(20);
  }
}

/** The same black-box behaviour on each metadata store: `open` gives a new node (connection) on one database. */
function conformance(open: () => Promise<MetadataStore>) {
  let a: Node;
  let b: Node;
  const known = async (node: Node, slug: string) => {
    await node.service.registry.refresh();
    return node.service.registry.get(slug) !== undefined;
  };

  before(async () => {
    a = nodeOn(await open());
    b = nodeOn(await open());
    await a.service.start();
    await b.service.start();
  });

  test("put: listed with its text, parse and hash; the same text again changes nothing; the revision moves", async () => {
    const revision = await a.store.customWorkflowsRevision();
    const stored = toStored(definition("acme/one"), "json", "2026-01-01T00:00:00.000Z");
    assert.ok(stored);
    assert.equal(await a.store.putCustomWorkflow(stored.definition, stored.record), true);
    const after = await b.store.customWorkflowsRevision();
    assert.notEqual(after, revision);
    assert.equal(await b.store.putCustomWorkflow(stored.definition, stored.record), false);
    assert.equal(await b.store.customWorkflowsRevision(), after, "an unchanged save does not move it");
    const listed = await b.store.listCustomWorkflows();
    assert.equal(listed.revision, after);
    assert.deepEqual(
      listed.definitions.find((d) => d.slug === "acme/one"),
      stored.definition,
    );
    assert.equal((await b.store.getWorkflow("acme/one"))?.createdAt, "2026-01-01T00:00:00.000Z");
    assert.equal(await b.store.customWorkflowChangedAt("acme/one"), "2026-01-01T00:00:00.000Z");
  });

  test("a workflow installed on one node is known on the other; removed there, it is gone here", async () => {
    assert.equal(await known(b, "acme/two"), false);
    const installed = await a.service.install(definition("acme/two"), "json");
    assert.deepEqual(installed, { slug: "acme/two", errors: [], changed: true });
    await until("node B hears of the install", () => known(b, "acme/two"));
    assert.equal((await b.service.forJob("acme/two")).slug, "acme/two");
    assert.deepEqual(await b.service.source("acme/two"), { text: definition("acme/two"), format: "json" });

    await b.service.remove("acme/two");
    await until("node A hears of the removal", async () => !(await known(a, "acme/two")));
    await assert.rejects(a.service.forJob("acme/two"), { code: "WORKFLOW_NOT_FOUND" });
    assert.equal(await a.store.getWorkflow("acme/two"), undefined);
    assert.equal(await a.store.deleteCustomWorkflow("acme/two", new Date().toISOString()), false);
    assert.ok(await a.store.customWorkflowChangedAt("acme/two"), "the removal's time is kept");
  });

  test("an unknown slug is asked of the store before a job on it is refused", async () => {
    // Written behind both nodes' backs (no version change on either): only the revision tells.
    const stored = toStored(definition("acme/three"), "json", new Date().toISOString());
    assert.ok(stored);
    const third = await open();
    await third.putCustomWorkflow(stored.definition, stored.record);
    assert.equal((await b.service.forJob("acme/three")).slug, "acme/three");
  });

  test("a node's start records its built-ins and leaves the other nodes' custom workflows alone", async () => {
    await a.service.install(definition("acme/kept"), "json");
    const other = nodeOn(await open());
    await other.service.start();
    assert.ok(await other.store.getWorkflow("acme/kept"));
    assert.ok(await other.store.getWorkflow("mixdown/convert"));
    assert.ok(await known(other, "acme/kept"));
  });

  test("a changed definition moves updatedAt, keeps createdAt, and is what every node runs", async () => {
    await a.service.install(definition("acme/revised", "first"), "json");
    const first = await a.store.getWorkflow("acme/revised");
    await delay(5);
    await b.service.install(definition("acme/revised", "second"), "json");
    const second = await a.store.getWorkflow("acme/revised");
    assert.ok(first && second);
    assert.equal(second.createdAt, first.createdAt);
    assert.ok(second.updatedAt > first.updatedAt);
    await until("node A reads the new definition", async () => {
      await a.service.registry.refresh();
      return a.service.registry.get("acme/revised")?.definition.description === "second";
    });
  });
}

describe("custom workflows on SQLite: two processes on one database file", () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "mixdown-custom-workflows-"));
  const opened: { destroy(): Promise<void> }[] = [];
  after(async () => {
    for (const db of opened) await db.destroy();
    fs.rmSync(dir, { recursive: true, force: true });
  });
  conformance(async () => {
    const { db, externalChanges } = openSqlite(path.join(dir, "data"));
    opened.push(db);
    return new SqlMetadataStore(db, externalChanges);
  });

  test("MIXDOWN_WORKFLOWS_DIR: a file is saved at start and when it changes, unless the store's is newer", async () => {
    const { db, externalChanges } = openSqlite(path.join(dir, "data"));
    opened.push(db);
    const store = new SqlMetadataStore(db, externalChanges);
    const files = path.join(dir, "workflows");
    fs.mkdirSync(files);
    const file = path.join(files, "dropped.json");
    const old = new Date(Date.now() - 60_000);
    fs.writeFileSync(file, definition("acme/dropped", "from the file"));
    fs.utimesSync(file, old, old);

    const node = nodeOn(store, files);
    await node.service.start();
    assert.equal(node.service.registry.get("acme/dropped")?.definition.description, "from the file");

    // Saved in the dashboard after the file was written: a restart keeps the dashboard's.
    await node.service.install(definition("acme/dropped", "from the dashboard"), "json");
    const restarted = nodeOn(store, files);
    await restarted.service.start();
    assert.equal(restarted.service.registry.get("acme/dropped")?.definition.description, "from the dashboard");

    // The file changed afterwards: it wins, on the running node at its next look.
    fs.writeFileSync(file, definition("acme/dropped", "edited file"));
    await restarted.service.registry.refresh(true);
    assert.equal(restarted.service.registry.get("acme/dropped")?.definition.description, "edited file");

    // Removed: a start does not bring the older file back; deleting the file removes nothing.
    await restarted.service.remove("acme/dropped");
    fs.utimesSync(file, old, old);
    const again = nodeOn(store, files);
    await again.service.start();
    assert.equal(again.service.registry.get("acme/dropped"), undefined);
    fs.writeFileSync(path.join(files, "kept.json"), definition("acme/kept-file"));
    await again.service.registry.refresh(true);
    assert.ok(again.service.registry.get("acme/kept-file"));
    fs.rmSync(path.join(files, "kept.json"));
    await again.service.registry.refresh(true);
    assert.ok(again.service.registry.get("acme/kept-file"), "a file deleted on one node removes nothing");

    // Not definitions, or a reserved slug: not saved.
    fs.writeFileSync(path.join(files, "garbled.yaml"), "slug: [acme\n  name: {");
    fs.writeFileSync(path.join(files, "impostor.json"), definition("mixdown/convert"));
    await again.service.registry.refresh(true);
    assert.equal((await store.listCustomWorkflows()).definitions.filter((d) => d.slug === "mixdown/convert").length, 0);
    assert.equal(again.service.registry.get("mixdown/convert")?.builtIn, true);
  });
});

describeOrSkip("custom workflows on Postgres: two nodes on one database", postgresUnavailable, () => {
  let database: Awaited<ReturnType<typeof provisionDatabase>>;
  const opened: StoresWithOperators[] = [];
  before(async () => {
    database = await provisionDatabase();
  });
  after(async () => {
    for (const stores of opened) await stores.close();
    await database?.drop();
  });
  conformance(async () => {
    const stores = await openPostgresStores(database.url, { leaseMs: 30_000, appConcurrency: 0 });
    opened.push(stores);
    return stores.store;
  });
});
