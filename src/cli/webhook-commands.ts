import { parseArgs } from "node:util";
import { loadConfig } from "../config.ts";
import { openStores } from "../runtime.ts";
import { DEFAULT_SECRET_GRACE_HOURS, WebhookError, WebhookService } from "../webhooks/webhook-service.ts";
import { UsageError } from "./app-commands.ts";

export const WEBHOOK_HELP = `Usage: mixdown app webhook <command> APP_ID … [--json]

  add APP_ID URL                     add an endpoint: every job event of the application is POSTed to URL;
                                     prints the endpoint id and its signing secret (whsec_…)
  list APP_ID                        the endpoints, enabled or disabled (a receiver answering 410 Gone
                                     disables its endpoint)
  remove APP_ID ENDPOINT_ID          remove an endpoint; its pending deliveries are not sent
  secret APP_ID [ENDPOINT_ID]        print an endpoint's secret or, without one, the application's secret
                                     that signs deliveries to jobs' own webhookUrl
  rotate-secret APP_ID [ENDPOINT_ID] [--grace-hours N]
                                     a new secret (the endpoint's, or without one the jobs' webhookUrl
                                     secret); every delivery sent from now on, retries of earlier events
                                     included, is signed with it and, for N hours (default ${DEFAULT_SECRET_GRACE_HOURS}; 0: not),
                                     also with the old one: webhook-signature then holds both
  deliveries APP_ID [--endpoint ID] [--job JOB_ID] [--limit N]
                                     the delivery log, newest first (default 50): event, job, status
                                     (PENDING, DELIVERED, FAILED), attempts, last response code and time

Events: job.started, job.succeeded, job.failed, job.cancelled; the body is
{"type", "timestamp", "data": the job as GET /job/:id shows it, with fresh result URLs}, signed per
Standard Webhooks (headers webhook-id, webhook-timestamp, webhook-signature). A delivery counts once the
receiver answers 2xx within 10 s; otherwise it is retried on MIXDOWN_WEBHOOK_RETRY_SCHEDULE (about 24 h).
Works against MIXDOWN_DATA_DIR / MIXDOWN_DATABASE_URL, also while the server runs.`;

function wholeNumber(name: string, raw: string | undefined, fallback: number, max: number): number {
  if (raw === undefined) return fallback;
  if (!/^\d+$/.test(raw) || Number(raw) > max) throw new UsageError(`${name} must be a whole number up to ${max}`);
  return Number(raw);
}

/** `mixdown app webhook …` */
export async function webhookCommand(argv: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      json: { type: "boolean", default: false },
      help: { type: "boolean", short: "h", default: false },
      "grace-hours": { type: "string" },
      endpoint: { type: "string" },
      job: { type: "string" },
      limit: { type: "string" },
    },
  });
  const [sub, appId, arg] = positionals;
  const print = (text: string) => process.stdout.write(`${text}\n`);
  if (values.help || !sub) {
    print(WEBHOOK_HELP);
    return values.help ? 0 : 2;
  }
  if (!appId) throw new UsageError(`app webhook ${sub} needs the application id`);
  const config = loadConfig();
  const { store, webhooks, close } = await openStores(config);
  const service = new WebhookService(webhooks, store, { allowPrivate: config.allowPrivateUrls });
  const output = (json: unknown, text: string) => print(values.json ? JSON.stringify(json) : text);
  try {
    switch (sub) {
      case "add": {
        if (!arg) throw new UsageError("app webhook add needs APP_ID and URL");
        const { endpoint, secret } = await service.add(appId, arg);
        output(
          { ...endpoint, secret },
          `Added webhook endpoint ${endpoint.id} → ${endpoint.url}\nSigning secret (also shown by \`mixdown app webhook secret ${appId} ${endpoint.id}\`):\n${secret}`,
        );
        return 0;
      }
      case "list": {
        const endpoints = await service.list(appId);
        const lines = endpoints.map(
          (e) =>
            `${e.id}  ${e.disabledAt ? `disabled ${e.disabledAt} (${e.disabledReason})` : "enabled"}  ${e.createdAt}  ${e.url}`,
        );
        output(
          endpoints,
          lines.join("\n") || `No webhook endpoints. Add one with: mixdown app webhook add ${appId} URL`,
        );
        return 0;
      }
      case "remove": {
        if (!arg) throw new UsageError("app webhook remove needs APP_ID and ENDPOINT_ID");
        await service.remove(appId, arg);
        output({ id: arg, removed: true }, `Removed webhook endpoint ${arg}; its pending deliveries will not be sent.`);
        return 0;
      }
      case "secret": {
        const secret = await service.secret(appId, arg);
        output({ secret }, secret);
        return 0;
      }
      case "rotate-secret": {
        const graceHours = wholeNumber("--grace-hours", values["grace-hours"], DEFAULT_SECRET_GRACE_HOURS, 24 * 30);
        const rotated = await service.rotateSecret(appId, arg, graceHours);
        const grace = rotated.previousValidUntil
          ? `The old secret also signs every delivery until ${rotated.previousValidUntil}.`
          : "The old secret no longer signs anything.";
        output(rotated, `New signing secret:\n${rotated.secret}\n${grace}`);
        return 0;
      }
      case "deliveries": {
        const deliveries = await service.deliveries(appId, {
          endpointId: values.endpoint,
          jobId: values.job,
          limit: wholeNumber("--limit", values.limit, 50, 10_000),
        });
        const lines = deliveries.map(
          (d) =>
            `${d.createdAt}  ${d.eventType.padEnd(13)}  job ${d.jobId}  ${d.status.padEnd(9)}  attempts ${d.attempts}  last ${d.lastStatusCode ?? "-"} at ${d.lastAttemptAt ?? "-"}${d.lastError ? `  (${d.lastError})` : ""}  → ${d.endpointId ?? "job webhookUrl"}`,
        );
        output(deliveries, lines.join("\n") || "No deliveries.");
        return 0;
      }
      default:
        throw new UsageError(`unknown app webhook command "${sub}"`);
    }
  } catch (error) {
    if (error instanceof WebhookError) throw new UsageError(error.message);
    throw error;
  } finally {
    await close();
  }
}
