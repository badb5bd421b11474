import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { after, before, test } from "node:test";
import {
  CreateBucketCommand,
  DeleteBucketCommand,
  GetBucketCorsCommand,
  PutBucketCorsCommand,
  S3Client,
} from "@aws-sdk/client-s3";
import { allowBrowserOrigin } from "../../src/store/s3/browser-cors.ts";
import { describeOrSkip, distributedUnavailable, TEST_S3 } from "../helpers/backends.ts";

const DASHBOARD = "https://mixdown.example.com";
const OPERATOR_RULE = { AllowedOrigins: ["https://shop.example.com"], AllowedMethods: ["GET"], MaxAgeSeconds: 60 };

/** A browser's preflight for a PUT from `origin`, as the dashboard's upload sends it. */
const preflight = (bucket: string, origin: string) =>
  fetch(`${TEST_S3.endpoint}/${bucket}/uploads/x`, {
    method: "OPTIONS",
    headers: { origin, "access-control-request-method": "PUT", "access-control-request-headers": "content-type" },
  });

describeOrSkip("S3: the bucket lets the dashboard's origin upload and read", distributedUnavailable, () => {
  const bucket = `mixdown-t-cors-${randomBytes(4).toString("hex")}`;
  const client = new S3Client({
    endpoint: TEST_S3.endpoint,
    region: "us-east-1",
    forcePathStyle: true,
    credentials: { accessKeyId: TEST_S3.accessKeyId, secretAccessKey: TEST_S3.secretAccessKey },
  });
  before(async () => {
    await client.send(new CreateBucketCommand({ Bucket: bucket }));
  });
  after(async () => {
    await client.send(new DeleteBucketCommand({ Bucket: bucket })).catch(() => undefined);
    client.destroy();
  });

  test("a rule for the origin is added beside the operator's own, once, and preflights then pass", async () => {
    assert.equal((await preflight(bucket, DASHBOARD)).status, 403, "refused before");
    await client.send(new PutBucketCorsCommand({ Bucket: bucket, CORSConfiguration: { CORSRules: [OPERATOR_RULE] } }));

    assert.equal(await allowBrowserOrigin(client, bucket, DASHBOARD), undefined);
    assert.equal(await allowBrowserOrigin(client, bucket, DASHBOARD), undefined, "a second node changes nothing");
    const rules = (await client.send(new GetBucketCorsCommand({ Bucket: bucket }))).CORSRules ?? [];
    assert.equal(rules.length, 2);
    assert.deepEqual(rules[0]?.AllowedOrigins, OPERATOR_RULE.AllowedOrigins);
    assert.deepEqual(rules[1]?.AllowedOrigins, [DASHBOARD]);
    assert.deepEqual([...(rules[1]?.AllowedMethods ?? [])].sort(), ["GET", "HEAD", "PUT"]);

    const allowed = await preflight(bucket, DASHBOARD);
    assert.equal(allowed.status, 200);
    assert.equal(allowed.headers.get("access-control-allow-origin"), DASHBOARD);
    assert.equal((await preflight(bucket, "https://elsewhere.example.com")).status, 403);
  });

  test("when the rules cannot be set, the reason is returned rather than thrown", async () => {
    const missing = `${bucket}-absent`;
    const reason = await allowBrowserOrigin(client, missing, DASHBOARD);
    assert.match(reason ?? "", /CORS rules could not be set for https:\/\/mixdown\.example\.com/);
  });
});
