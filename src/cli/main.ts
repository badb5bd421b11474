import { parseArgs } from "node:util";
import { CONFIG_HELP, ConfigError, loadConfig } from "../config.ts";
import { appCommand, UsageError } from "./app-commands.ts";
import { CLIENT_COMMANDS, clientCommand } from "./client-commands.ts";
import { DEV_CERT_HELP, DevCertError, devCertCommand } from "./dev-cert.ts";
import { ROLES, type Role, serve } from "./serve.ts";
import { USER_HELP, userCommand } from "./user-commands.ts";
import { WEBHOOK_HELP, webhookCommand } from "./webhook-commands.ts";
import { WORKFLOW_HELP, workflowCommand } from "./workflow-commands.ts";

const HELP: Record<string, string> = {
  main: `Usage: mixdown <command> [options]

Commands:
  serve [--role ROLE]         start Mixdown: api, worker or all (default: API, upload server and workers)
  app create --name NAME      create an application and print its API key (once)
  app list                    list applications
  app revoke ID               revoke an application's key
  app rotate-key ID           issue a new key for an application
  app webhook add|list|remove|secret|rotate-secret|deliveries APP_ID …
                              signed webhooks of job events (see "mixdown app webhook --help")
  user add NAME               create a dashboard operator (asks for the password, or --password-stdin)
  user list                   list dashboard operators
  user remove NAME            remove an operator and end their sessions
  user reset-password NAME    set an operator's password and end their sessions
  workflow list               list built-in and custom workflows (--remote: as a server lists them)
  workflow show SLUG          a workflow's params and results (--remote: ask a server)
  workflow validate FILE      check a workflow definition (JSON or YAML) and list its errors
  workflow add FILE           validate and install a custom workflow
  workflow remove SLUG        remove a custom workflow
                              ("workflows" is the same command)
  dev-cert [--out DIR]        write a self-signed TLS certificate and key for local HTTPS

Client commands (talk to a running server; MIXDOWN_URL, MIXDOWN_API_KEY or --url, --api-key):
  run WORKFLOW FILE_OR_URL    check the params, upload, run a job, show its status, download its results
      [--param K=V]… [--out DIR]
  jobs list|get|cancel|delete|wait
                              list, show, cancel, delete or wait for jobs
  upload FILE                 upload a file and print its download URL

The server is http://localhost:8080 by default (npm start); MIXDOWN_URL=https://… for one with TLS.
Run "mixdown <command> --help" for details.`,
  serve: `Usage: mixdown serve [--role all|api|worker]

Starts a Mixdown node. By default (embedded mode) everything runs here: SQLite
database, files on local disk and workers, all under MIXDOWN_DATA_DIR. With
MIXDOWN_DATABASE_URL and MIXDOWN_S3_* set (distributed mode), nodes share Postgres
and the object store, and --role splits them: "api" serves HTTP only, "worker"
runs jobs only, "all" (the default) does both. Every node answers GET /healthz
and GET /metrics on PORT (a worker serves nothing else), so nodes sharing one
machine each need their own PORT. SIGTERM or SIGINT stops a node
gracefully: no new requests or claims, running jobs finish within
MIXDOWN_SHUTDOWN_GRACE_MS or return to the queue, exit code 0.

${CONFIG_HELP}`,
  app: `Usage: mixdown app <create|list|revoke|rotate-key> [options]

  app create --name NAME [--json]   create an application; prints its API key once
                                    (--json: {"id":…,"name":…,"apiKey":…}); warns on stderr
                                    if the name is already taken, and creates it anyway
  app list [--json]                 list applications
  app revoke ID [--json]            revoke an application (its key stops working)
  app rotate-key ID [--json]        replace an application's key; prints the new key once
  app webhook …                     webhook endpoints, secrets and deliveries (mixdown app webhook --help)

Works against MIXDOWN_DATA_DIR (default ./data), also while the server runs.`,
  workflow: WORKFLOW_HELP,
  workflows: WORKFLOW_HELP,
  user: USER_HELP,
  webhook: WEBHOOK_HELP,
  "dev-cert": DEV_CERT_HELP,
  ...Object.fromEntries(Object.entries(CLIENT_COMMANDS).map(([name, command]) => [name, command.help])),
};

/** `mixdown dev-cert`: needs no configuration (the TLS variables may point at the files it is about to write). */
function devCert(argv: string[]): number {
  const { values } = parseArgs({
    args: argv,
    options: {
      out: { type: "string" },
      host: { type: "string", multiple: true, default: [] },
      days: { type: "string", default: "365" },
      force: { type: "boolean", default: false },
      json: { type: "boolean", default: false },
      help: { type: "boolean", short: "h", default: false },
    },
  });
  if (values.help) {
    process.stdout.write(`${DEV_CERT_HELP}\n`);
    return 0;
  }
  if (!/^\d+$/.test(values.days) || Number(values.days) < 1) throw new UsageError(`--days must be a whole number ≥ 1`);
  devCertCommand({
    out: values.out,
    hosts: values.host,
    days: Number(values.days),
    force: values.force,
    json: values.json,
  });
  return 0;
}

async function main(argv: string[]): Promise<number> {
  const [first, ...rest] = argv;
  if (first !== undefined && first in CLIENT_COMMANDS) return clientCommand(first, rest);
  if (first === "dev-cert") return devCert(rest);
  if (first === "workflow" || first === "workflows") return workflowCommand(rest);
  if (first === "app" && rest[0] === "webhook") return webhookCommand(rest.slice(1));
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      help: { type: "boolean", short: "h", default: false },
      json: { type: "boolean", default: false },
      name: { type: "string" },
      role: { type: "string", default: "all" },
      "password-stdin": { type: "boolean", default: false },
    },
  });
  const [command, sub, id] = positionals;
  if (!command || (command === "help" && !sub)) {
    process.stdout.write(`${HELP.main}\n`);
    return command ? 0 : values.help ? 0 : 2;
  }
  if (values.help || command === "help") {
    const topic = command === "help" ? (sub ?? "main") : command;
    process.stdout.write(`${HELP[topic] ?? HELP.main}\n`);
    return 0;
  }
  const config = loadConfig();
  switch (command) {
    case "serve":
      if (!ROLES.includes(values.role as Role)) throw new UsageError(`--role must be one of ${ROLES.join(", ")}`);
      await serve(config, values.role as Role);
      return -1;
    case "app":
      await appCommand(config, sub, { name: values.name, id, json: values.json });
      return 0;
    case "user":
      await userCommand(config, sub, { name: id, passwordStdin: values["password-stdin"], json: values.json });
      return 0;
    default:
      throw new UsageError(`unknown command "${command}"`);
  }
}

main(process.argv.slice(2)).then(
  (code) => {
    if (code >= 0) process.exitCode = code;
  },
  (error: unknown) => {
    if (error instanceof ConfigError) {
      process.stderr.write(`mixdown: configuration error: ${error.message}\n`);
      process.exit(2);
    }
    if (error instanceof DevCertError) {
      process.stderr.write(`mixdown: ${error.message}\n`);
      process.exit(1);
    }
    if (error instanceof UsageError || (error as { code?: string }).code?.startsWith("ERR_PARSE_ARGS")) {
      process.stderr.write(`mixdown: ${(error as Error).message}\nRun "mixdown --help" for usage.\n`);
      process.exit(2);
    }
    process.stderr.write(`mixdown: ${(error as Error).stack ?? error}\n`);
    process.exit(1);
  },
);
