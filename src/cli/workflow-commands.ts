import fs from "node:fs";
import path from "node:path";
import { parseArgs } from "node:util";
import type { WorkflowDetails } from "../../sdk/src/index.ts";
import { type Config, loadConfig } from "../config.ts";
import type { DefinitionError } from "../engine/types.ts";
import { MODULES } from "../modules/index.ts";
import { openStores } from "../runtime.ts";
import { WorkflowService } from "../services/workflows.ts";
import { checkDefinitionText } from "../workflows/custom-definitions.ts";
import { DEFINITION_EXTENSIONS, formatOf } from "../workflows/load-definition.ts";
import { WorkflowRegistry } from "../workflows/registry.ts";
import { UsageError } from "./app-commands.ts";
import { runClient } from "./client-commands.ts";
import { CONNECTION_HELP } from "./client-common.ts";
import { describeWorkflow, remoteWorkflows } from "./client-workflows.ts";

export const WORKFLOW_HELP = `Usage: mixdown workflow <list|show|validate|add|remove> [options]
       (mixdown workflows … is the same command)

  workflow list [--json]            every workflow, built-in or custom, and its state (ok, or its errors)
  workflow show SLUG [--json]       one workflow: its params (input schema), its results, whether it can run
  workflow validate FILE [--json]   check a definition (.json, .yaml, .yml); exit 1 and list every
                                    error (unknown module, dangling reference, cycle, type mismatch, …)
  workflow add FILE [--json]        validate, then save it in the metadata store (replacing a workflow
                                    with the same slug): every node of the deployment uses it at once
  workflow remove SLUG [--json]     remove a custom workflow (from every node)

list, show, add and remove work on the deployment's own metadata store (MIXDOWN_DATA_DIR, default
./data, or Postgres with MIXDOWN_DATABASE_URL), also while the server runs: run them where the server
runs, with its configuration. validate needs nothing but the file.

  --remote          list and show: ask a running server over HTTP instead, as its API clients see
                    it (from any machine; needs an API key). --url implies --remote.

Files in a node's MIXDOWN_WORKFLOWS_DIR are saved the same way when that node starts or sees one
appear or change, unless the workflow was saved or removed after the file was last modified.
Deleting a file there removes nothing: use workflow remove.

A definition: {slug, name, description, inputSchema, steps: [{id, module, params, inputs}], outputs}.
Inputs and params reference job params as "$params.NAME" and step outputs as "$steps.STEP.OUTPUT".
The "mixdown/" slug prefix is reserved for built-in workflows.

${CONNECTION_HELP.replace("(every client command)", "(list and show with --remote)")}`;

const print = (text: string) => process.stdout.write(`${text}\n`);
const formatErrors = (errors: DefinitionError[]) => errors.map((e) => `  ${e.field}: ${e.message}`).join("\n");

function validateFile(file: string): { slug: string | undefined; errors: DefinitionError[] } {
  if (!DEFINITION_EXTENSIONS.includes(path.extname(file))) {
    return {
      slug: undefined,
      errors: [{ field: "file", message: `must end with ${DEFINITION_EXTENSIONS.join(", ")}` }],
    };
  }
  let text: string;
  try {
    text = fs.readFileSync(file, "utf8");
  } catch (error) {
    return { slug: undefined, errors: [{ field: "file", message: `cannot be read: ${(error as Error).message}` }] };
  }
  return checkDefinitionText(text, formatOf(file), MODULES);
}

const SUBCOMMANDS = ["list", "show", "validate", "add", "remove"];

/**
 * `mixdown workflow list|show|validate|add|remove` (also spelt `workflows`). Exit code 1 when a definition has
 * errors. list and show read the metadata store, or, with --remote / --url, ask a server over HTTP.
 */
export async function workflowCommand(argv: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      json: { type: "boolean", default: false },
      remote: { type: "boolean", default: false },
      url: { type: "string" },
      "api-key": { type: "string" },
      help: { type: "boolean", short: "h", default: false },
    },
  });
  const [sub, target, extra] = positionals;
  if (values.help) {
    print(WORKFLOW_HELP);
    return 0;
  }
  if (!sub || !SUBCOMMANDS.includes(sub))
    throw new UsageError(
      sub ? `unknown workflow command "${sub}"` : `workflow needs a command: ${SUBCOMMANDS.join(", ")}`,
    );
  if (extra !== undefined) throw new UsageError(`unexpected argument "${extra}"`);
  const remote = values.remote || values.url !== undefined;
  if (remote && (sub === "list" || sub === "show")) return runClient(() => remoteWorkflows(sub, target, values));
  if (remote || values["api-key"] !== undefined)
    throw new UsageError(`--remote, --url and --api-key go with workflow list and show only`);
  return localWorkflowCommand(sub === "validate" ? undefined : loadConfig(), sub, target, values.json);
}

async function localWorkflowCommand(
  config: Config | undefined,
  sub: string,
  target: string | undefined,
  json: boolean,
): Promise<number> {
  const withStore = <T>(use: (workflows: WorkflowService) => Promise<T>) => {
    if (!config) throw new Error("no configuration");
    return withWorkflows(config, use);
  };
  switch (sub) {
    case "validate": {
      if (!target) throw new UsageError("workflow validate needs a FILE");
      const { slug, errors } = validateFile(target);
      if (json) print(JSON.stringify({ slug: slug ?? null, valid: errors.length === 0, errors }));
      else if (errors.length === 0) print(`${target}: valid workflow "${slug}"`);
      else print(`${target}: ${errors.length} error${errors.length > 1 ? "s" : ""}\n${formatErrors(errors)}`);
      return errors.length === 0 ? 0 : 1;
    }
    case "add": {
      if (!target) throw new UsageError("workflow add needs a FILE");
      const { slug, errors } = validateFile(target);
      if (errors.length > 0 || !slug) {
        process.stderr.write(`mixdown: ${target} was not added: ${errors.length} error(s)\n${formatErrors(errors)}\n`);
        return 1;
      }
      const text = fs.readFileSync(target, "utf8");
      const { changed } = await withStore((workflows) => workflows.install(text, formatOf(target)));
      if (json) print(JSON.stringify({ slug, changed: changed ?? false }));
      else print(changed ? `Added workflow "${slug}".` : `Added workflow "${slug}" (the same definition was saved).`);
      return 0;
    }
    case "remove": {
      if (!target) throw new UsageError("workflow remove needs a SLUG");
      await withStore(async (workflows) => {
        await workflows.registry.refresh(true);
        const wf = workflows.registry.get(target);
        if (!wf) throw new UsageError(`no workflow "${target}"`);
        if (wf.builtIn) throw new UsageError(`"${target}" is built in and cannot be removed`);
        await workflows.remove(target);
      });
      print(json ? JSON.stringify({ slug: target, removed: true }) : `Removed workflow "${target}".`);
      return 0;
    }
    case "list": {
      const all = await withStore(async (workflows) => {
        await workflows.registry.refresh(true);
        return workflows.registry.all();
      });
      if (json) {
        print(
          JSON.stringify(
            all.map((wf) => ({
              slug: wf.slug,
              builtIn: wf.builtIn,
              source: wf.source,
              ...(wf.saved ? { savedAt: wf.saved.changedAt } : {}),
              errors: wf.errors,
            })),
          ),
        );
      } else {
        for (const wf of all) {
          const state = wf.errors.length ? `${wf.errors.length} error(s)` : "ok";
          print(
            `${wf.slug.padEnd(36)} ${wf.builtIn ? "built-in" : "custom  "}  ${state}${wf.saved ? `  saved ${wf.saved.changedAt}` : ""}`,
          );
        }
      }
      return 0;
    }
    case "show": {
      if (!target) throw new UsageError("workflow show needs a workflow SLUG");
      const described = await withStore(async (workflows) => {
        await workflows.registry.refresh(true);
        return workflows.describe(target).catch((error: { code?: string }) => {
          if (error.code === "WORKFLOW_NOT_FOUND")
            throw new UsageError(`no workflow "${target}" (workflow list lists them)`);
          throw error;
        });
      });
      // The same description as GET /v1/workflow/SLUG, so the same rendering as `workflow show --remote`.
      print(json ? JSON.stringify(described, null, 2) : describeWorkflow(described as WorkflowDetails));
      return 0;
    }
    default:
      throw new UsageError(`unknown workflow command "${sub}"`);
  }
}

/**
 * Runs `use` with the workflows of the configured metadata store (custom definitions are kept there for every
 * node; this command's MIXDOWN_WORKFLOWS_DIR is read by the servers, not here).
 */
async function withWorkflows<T>(config: Config, use: (workflows: WorkflowService) => Promise<T>): Promise<T> {
  const { store, close } = await openStores(config);
  try {
    return await use(
      new WorkflowService(new WorkflowRegistry(MODULES, { modelsDir: config.modelsDir }, { store }), store),
    );
  } finally {
    await close();
  }
}
