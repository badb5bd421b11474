import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, test } from "node:test";
import type { Module } from "../../src/engine/types.ts";
import { MODULES } from "../../src/modules/index.ts";
import { SqlMetadataStore } from "../../src/store/sql/sql-metadata-store.ts";
import { openSqlite } from "../../src/store/sqlite/database.ts";
import { WorkflowRegistry } from "../../src/workflows/registry.ts";
import { WorkflowsDirectory } from "../../src/workflows/workflows-dir.ts";

const dir = fs.mkdtempSync(path.join(os.tmpdir(), "mixdown-availability-"));
after(() => fs.rmSync(dir, { recursive: true, force: true }));

/** Needs a model file named by its param, looked up in the models dir. */
const needsModel: Module = {
  name: "needs-model",
  description: "",
  params: { type: "object", properties: { model: { type: "string" } } },
  inputs: { audio: { type: "audio", description: "" } },
  outputs: { audio: { type: "audio", description: "" } },
  availability: (params, env) =>
    fs.existsSync(path.join(env.modelsDir, String(params.model)))
      ? undefined
      : `model file ${String(params.model)} not found`,
  run: async (ctx) => ({ audio: ctx.inputs.audio }),
};

test("a workflow whose module lacks its model is reported unavailable, with the reason, until the model appears", async () => {
  const modules = new Map<string, Module>([...MODULES, ["needs-model", needsModel]]);
  fs.writeFileSync(
    path.join(dir, "uses-model.json"),
    JSON.stringify({
      slug: "acme/uses-model",
      name: "Uses a model",
      description: "",
      inputSchema: { type: "object", properties: { inputUrl: { type: "string" } } },
      steps: [
        { id: "input", module: "fetch", inputs: { url: "$params.inputUrl" } },
        { id: "model", module: "needs-model", params: { model: "tiny.onnx" }, inputs: { audio: "$steps.input.file" } },
      ],
      outputs: { out: "$steps.model.audio" },
    }),
  );
  const modelsDir = path.join(dir, "models");
  const { db, externalChanges } = openSqlite(path.join(dir, "data"));
  after(() => db.destroy());
  const store = new SqlMetadataStore(db, externalChanges);
  const registry = new WorkflowRegistry(
    modules,
    { modelsDir },
    { store, directory: new WorkflowsDirectory(dir, store) },
  );
  await registry.refresh(true);
  const wf = registry.get("acme/uses-model");
  assert.ok(wf);
  assert.deepEqual(wf.errors, []);
  assert.deepEqual(registry.unavailability(wf), [
    { field: "steps[1]", message: 'module "needs-model" cannot run here: model file tiny.onnx not found' },
  ]);
  fs.mkdirSync(modelsDir);
  fs.writeFileSync(path.join(modelsDir, "tiny.onnx"), "");
  assert.deepEqual(registry.unavailability(wf), []);
});

test("every module lives in src/modules/<name>/index.ts (module processes load heavy modules from there)", async () => {
  for (const [name, module] of MODULES) {
    const exports = (await import(`../../src/modules/${name}/index.ts`)) as Record<string, unknown>;
    assert.ok(Object.values(exports).includes(module), name);
  }
});
