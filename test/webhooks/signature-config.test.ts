import assert from "node:assert/strict";
import { test } from "node:test";
import { Webhook } from "standardwebhooks";
import { ConfigError, DEFAULT_WEBHOOK_RETRY_SCHEDULE, loadConfig } from "../../src/config.ts";
import { newWebhookSecret, signature, webhookHeaders } from "../../src/webhooks/signature.ts";

test("signatures match the standardwebhooks package's own, for several secrets and bodies", () => {
  for (let i = 0; i < 20; i++) {
    const secret = newWebhookSecret();
    const body = JSON.stringify({ type: "job.succeeded", data: { i, text: "é😀\n" } });
    const at = new Date(1_795_000_000_000 + i * 1000);
    const id = `msg_${i}`;
    assert.equal(signature(secret, id, Math.floor(at.getTime() / 1000), body), new Webhook(secret).sign(id, at, body));
  }
});

test("with two secrets (a rotation's grace period) either verifies; a third does not", () => {
  const [current, previous, other] = [newWebhookSecret(), newWebhookSecret(), newWebhookSecret()];
  const body = '{"type":"job.started"}';
  const headers = webhookHeaders([current, previous], "msg_1", Math.floor(Date.now() / 1000), body);
  assert.deepEqual(new Webhook(current).verify(body, headers), { type: "job.started" });
  assert.deepEqual(new Webhook(previous).verify(body, headers), { type: "job.started" });
  assert.throws(() => new Webhook(other).verify(body, headers));
});

test("MIXDOWN_WEBHOOK_RETRY_SCHEDULE: seconds (decimals allowed), or none; anything else is refused by name", () => {
  assert.deepEqual(loadConfig({}).webhookRetrySchedule, DEFAULT_WEBHOOK_RETRY_SCHEDULE);
  const total = DEFAULT_WEBHOOK_RETRY_SCHEDULE.reduce((sum, s) => sum + s, 0);
  assert.ok(total > 23 * 3600 && total <= 24 * 3600, `the default spans about 24 h (${total} s)`);
  assert.deepEqual(loadConfig({ MIXDOWN_WEBHOOK_RETRY_SCHEDULE: "0.5, 10,60" }).webhookRetrySchedule, [0.5, 10, 60]);
  assert.deepEqual(loadConfig({ MIXDOWN_WEBHOOK_RETRY_SCHEDULE: "none" }).webhookRetrySchedule, []);
  for (const bad of ["5,x", "-1", "5,,6", "1e3", "700000"]) {
    assert.throws(
      () => loadConfig({ MIXDOWN_WEBHOOK_RETRY_SCHEDULE: bad }),
      (error: Error) => {
        assert.ok(error instanceof ConfigError);
        assert.match(error.message, /MIXDOWN_WEBHOOK_RETRY_SCHEDULE/);
        return true;
      },
    );
  }
});

test("MIXDOWN_JOB_RETENTION_DAYS: 30 by default, 0 keeps forever, a whole number or refused by name", () => {
  assert.equal(loadConfig({}).jobRetentionDays, 30);
  assert.equal(loadConfig({ MIXDOWN_JOB_RETENTION_DAYS: "0" }).jobRetentionDays, 0);
  assert.equal(loadConfig({ MIXDOWN_JOB_RETENTION_DAYS: "7" }).jobRetentionDays, 7);
  for (const bad of ["-1", "1.5", "forever"])
    assert.throws(() => loadConfig({ MIXDOWN_JOB_RETENTION_DAYS: bad }), /MIXDOWN_JOB_RETENTION_DAYS/);
});
