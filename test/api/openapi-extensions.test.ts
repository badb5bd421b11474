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
