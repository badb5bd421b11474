import assert from "node:assert/strict";
import { test } from "node:test";
import { RequestLatency } from "../../src/api/request-latency.ts";

test("the latency histogram is written out in Prometheus' format: cumulative buckets, +Inf, sum and count", () => {
  const latency = new RequestLatency();
  for (const seconds of [0.0005, 0.003, 0.003, 0.2, 30]) latency.observe("GET", "/v1/job/:id/status", 200, seconds);
  latency.observe("POST", '/a"b\\c', 404, 0.02);
  const text = latency.exposition();
  const line = (le: string) =>
    new RegExp(
      `^mixdown_http_request_duration_seconds_bucket\\{le="${le}",method="GET",route="/v1/job/:id/status",status_code="200"\\} (\\d+)$`,
      "m",
    ).exec(text)?.[1];
  assert.deepEqual(["0.001", "0.005", "0.01", "0.25", "10", "\\+Inf"].map(line), ["1", "3", "3", "4", "4", "5"]);
  assert.match(
    text,
    /^mixdown_http_request_duration_seconds_count\{method="GET",route="\/v1\/job\/:id\/status",status_code="200"\} 5$/m,
  );
  const sum = Number(/^mixdown_http_request_duration_seconds_sum\{method="GET"[^}]*\} (\S+)$/m.exec(text)?.[1]);
  assert.ok(Math.abs(sum - 30.2065) < 1e-9, `sum ${sum}`);
  // A label value's quote and backslash are escaped.
  assert.match(text, /route="\/a\\"b\\\\c",status_code="404"\} 1$/m);
  assert.match(text, /^# TYPE mixdown_http_request_duration_seconds histogram$/m);
});
