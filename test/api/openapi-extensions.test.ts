import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { assertNoneRunning, Mixdown } from "../helpers/mixdown.ts";

let server: Mixdown;
before(async () => {
  server = await Mixdown.start({ MIXDOWN_WORKERS: "0", MIXDOWN_RATE_LIMIT: "100/s" });
});
after(async () => {
  await server.dispose();
  assertNoneRunning();
});

test("the OpenAPI document describes cancel, the event stream, Idempotency-Key, progress and their errors", async () => {
  const { body } = await server.api("GET", "/openapi.json");
  const paths = body.paths as Record<string, Record<string, any>>;
  const cancel = paths["/v1/job/{id}/cancel"]?.post;
  assert.ok(cancel, "POST /job/{id}/cancel documented");
  assert.ok(cancel.responses["409"], "409 JOB_ALREADY_FINISHED documented");
  const events = paths["/v1/job/{id}/events"]?.get;
  assert.ok(events, "GET /job/{id}/events documented");
  assert.ok(events.responses["200"].content["text/event-stream"], "an event stream");
  const create = paths["/v1/job"]?.post;
  assert.ok(
    create.parameters.some((p: { in: string; name: string }) => p.in === "header" && p.name === "idempotency-key"),
    "Idempotency-Key header documented",
  );
  assert.ok(create.responses["409"], "409 IDEMPOTENCY_KEY_REUSED documented");
  for (const [path, method] of [
    ["/v1/job", "post"],
    ["/v1/job/{id}/status", "get"],
    ["/v1/workflow", "get"],
  ] as const) {
    assert.ok(paths[path]?.[method].responses["429"], `429 documented on ${method} ${path}`);
  }
  const status = paths["/v1/job/{id}/status"]?.get.responses["200"].content["application/json"].schema;
  assert.deepEqual(Object.keys(status.properties).sort(), ["id", "progress", "status", "step"]);
  assert.ok(JSON.stringify(body.components.schemas).includes("how much of the job is done"), "Job.progress described");
  assert.ok(JSON.stringify(body).includes("CANCELLED"), "the CANCELLED failure code is listed");
});

test("the OpenAPI document names its schemas and describes every response", async () => {
  const { body } = await server.api("GET", "/openapi.json");
  const names = Object.keys(body.components.schemas);
  assert.deepEqual(names.sort(), ["Error", "Job", "Workflow"]);
  const text = JSON.stringify(body);
  assert.doesNotMatch(text, /def-\d+/, "no generated def-N names or references");
  assert.ok(!text.includes("Default Response"), "no placeholder descriptions");
  const operations = Object.entries(body.paths as Record<string, Record<string, any>>).flatMap(([path, methods]) =>
    Object.entries(methods).map(([method, operation]) => [`${method} ${path}`, operation] as const),
  );
  assert.ok(operations.length >= 10, `${operations.length} operations`);
  for (const [what, operation] of operations) {
    for (const [status, response] of Object.entries(operation.responses as Record<string, any>)) {
      assert.equal(typeof response.description, "string", `${what} ${status}`);
      assert.ok(response.description.length > 1, `${what} ${status}`);
      const ref = Object.values((response.content ?? {}) as Record<string, any>)[0]?.schema?.$ref;
      if (Number(status) >= 400) assert.equal(ref, "#/components/schemas/Error", `${what} ${status}`);
    }
  }
  // Each error status says which codes it carries, e.g. creating a job's 422.
  const create = body.paths["/v1/job"].post.responses;
  for (const code of ["INVALID_WORKFLOW_PARAMS", "WORKFLOW_HAS_ERRORS", "WORKFLOW_UNAVAILABLE"]) {
    assert.ok(create["422"].description.includes(code), code);
  }
  assert.ok(create["429"].description.includes("RATE_LIMITED"), create["429"].description);
  assert.ok(create["429"].description.includes("TOO_MANY_QUEUED_JOBS"), create["429"].description);
  assert.equal(
    body.paths["/v1/job/{id}"].get.responses["200"].content["application/json"].schema.$ref,
    "#/components/schemas/Job",
  );
});
