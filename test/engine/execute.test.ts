import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, describe, test } from "node:test";
import { executeWorkflow } from "../../src/engine/execute.ts";
import type { Module, WorkflowDefinition } from "../../src/engine/types.ts";
import { JobFailure } from "../../src/jobs/job-failure.ts";

/** A module that finishes only once `expected` copies of it have started: sequential execution would stall. */
function rendezvous(expected: number): Module {
  let started = 0;
  const waiters: (() => void)[] = [];
  return {
    name: "rendezvous",
    description: "",
    params: { type: "object", properties: { fail: { type: "boolean" } } },
    inputs: {},
    outputs: { value: { type: "number", description: "" } },
    async run(ctx) {
      started++;
      if (started >= expected) for (const wake of waiters.splice(0)) wake();
      else {
        const met = await Promise.race([
          new Promise<boolean>((resolve) => waiters.push(() => resolve(true))),
          new Promise<boolean>((resolve) => setTimeout(() => resolve(false), 5000)),
        ]);
        if (!met) throw new Error("ran alone: independent steps did not run concurrently");
      }
      if (ctx.params.fail) throw new JobFailure("BAD_INPUT", "this step fails");
      return { value: started };
    },
  };
}

const sum: Module = {
  name: "sum",
  description: "",
  params: { type: "object", properties: {} },
  inputs: { a: { type: "number", description: "" }, b: { type: "number", description: "" } },
  outputs: { total: { type: "number", description: "" } },
  async run(ctx) {
    return { total: Number(ctx.inputs.a) + Number(ctx.inputs.b) };
  },
};

const definition = (fail = false): WorkflowDefinition => ({
  slug: "test/concurrency",
  name: "t",
  description: "",
  inputSchema: { type: "object" },
  steps: [
    { id: "total", module: "sum", inputs: { a: "$steps.one.value", b: "$steps.two.value" } },
    { id: "one", module: "rendezvous" },
    { id: "two", module: "rendezvous", params: { fail } },
  ],
  outputs: { total: "$steps.total.total" },
});

const scratchDirs: string[] = [];
after(() => {
  for (const dir of scratchDirs) fs.rmSync(dir, { recursive: true, force: true });
});

function environment() {
  const scratchDir = fs.mkdtempSync(path.join(os.tmpdir(), "mixdown-engine-"));
  scratchDirs.push(scratchDir);
  return {
    params: {},
    signal: new AbortController().signal,
    scratchDir,
    modelsDir: scratchDir,
    fetchInput: async () => "",
    storeFile: async () => ({ value: null }),
  };
}

describe("executeWorkflow", () => {
  test("independent steps run concurrently; a step waits for the steps it reads (in any order)", async () => {
    const modules = new Map([
      ["rendezvous", rendezvous(2)],
      ["sum", sum],
    ]);
    const result = await executeWorkflow(definition(), modules, environment());
    assert.deepEqual(result, { total: { value: 4 } });
  });

  test("the first failure is the job's failure; dependent steps never run", async () => {
    const modules = new Map([
      ["rendezvous", rendezvous(2)],
      ["sum", { ...sum, run: async () => assert.fail("sum ran after a failed input") }],
    ]);
    await assert.rejects(executeWorkflow(definition(true), modules, environment()), (error: unknown) => {
      assert.ok(error instanceof JobFailure);
      assert.equal(error.code, "BAD_INPUT");
      return true;
    });
  });
});
