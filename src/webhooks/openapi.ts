import type { OpenAPIV3_1 } from "openapi-types";
import { JOB_EVENT_TYPES } from "../store/sql/job-events.ts";

const header = (name: string, description: string): OpenAPIV3_1.ParameterObject => ({
  name,
  in: "header",
  required: true,
  schema: { type: "string" },
  description,
});

const DESCRIPTIONS: Record<(typeof JOB_EVENT_TYPES)[number], string> = {
  "job.started": "A worker started the job (QUEUED → STARTED).",
  "job.succeeded": "The job SUCCEEDED; data.result holds fresh result URLs.",
  "job.failed": "The job FAILED; data.error says why.",
  "job.cancelled": "The job was cancelled (FAILED with error code CANCELLED).",
};

/**
 * The OpenAPI 3.1 `webhooks` of the document: what Mixdown POSTs to an application's webhook endpoints
 * (`mixdown app webhook add`) and to a job's webhookUrl.
 */
export const WEBHOOKS_OPENAPI: Record<string, OpenAPIV3_1.PathItemObject> = Object.fromEntries(
  JOB_EVENT_TYPES.map((type): [string, OpenAPIV3_1.PathItemObject] => [
    type,
    {
      post: {
        summary: type,
        description: `${DESCRIPTIONS[type]} Signed per Standard Webhooks (https://www.standardwebhooks.com): verify webhook-signature over \`\${webhook-id}.\${webhook-timestamp}.\${body}\` with the endpoint's whsec_ secret (or, for a job's webhookUrl, the application's: \`mixdown app webhook secret APP_ID\`). Delivered at least once: a 2xx within 10 s counts; otherwise retried with exponential backoff and jitter for about 24 h (MIXDOWN_WEBHOOK_RETRY_SCHEDULE); 410 Gone disables the endpoint. webhook-id is the same on every attempt (deduplicate on it). No order is guaranteed between events: data is the job as it is at delivery.`,
        parameters: [
          header("webhook-id", "The message id: the same on every attempt of this delivery"),
          header("webhook-timestamp", "Seconds since the epoch when this attempt was signed"),
          header(
            "webhook-signature",
            "Space-separated v1,<base64 HMAC-SHA256>: one per valid secret (two during a rotation's grace period)",
          ),
        ],
        requestBody: {
          required: true,
          content: {
            "application/json": {
              schema: {
                type: "object",
                required: ["type", "timestamp", "data"],
                properties: {
                  type: { type: "string", enum: [type] },
                  timestamp: { type: "string", format: "date-time", description: "When the event happened" },
                  data: { type: "object", description: "The job as GET /v1/job/{id} returns it at delivery time" },
                },
              },
            },
          },
        },
        responses: { "2XX": { description: "Received; any other answer (or none within 10 s) is retried" } },
      },
    },
  ]),
);
