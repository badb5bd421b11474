import fs from "node:fs";
import path from "node:path";
import type { Config } from "../config.ts";
import type { DefinitionError } from "../engine/types.ts";
import { MODULES } from "../modules/index.ts";
import { openStores } from "../runtime.ts";
import { WorkflowService } from "../services/workflows.ts";
import { checkDefinitionText } from "../workflows/custom-definitions.ts";
import { DEFINITION_EXTENSIONS, formatOf } from "../workflows/load-definition.ts";
import { WorkflowRegistry } from "../workflows/registry.ts";
import { UsageError } from "./app-commands.ts";

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

/** `mixdown workflow validate|add|list|remove`. Exit code 1 when a definition has errors. */
export async function workflowCommand(
  config: Config,
  sub: string | undefined,
  target: string | undefined,
  json: boolean,
) {
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
      const { changed } = await withWorkflows(config, (workflows) => workflows.install(text, formatOf(target)));
      if (json) print(JSON.stringify({ slug, changed: changed ?? false }));
      else print(changed ? `Added workflow "${slug}".` : `Added workflow "${slug}" (the same definition was saved).`);
      return 0;
    }
    case "remove": {
      if (!target) throw new UsageError("workflow remove needs a SLUG");
      await withWorkflows(config, async (workflows) => {
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
      const all = await withWorkflows(config, async (workflows) => {
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
    default:
      throw new UsageError(sub ? `unknown workflow command "${sub}"` : "workflow needs a command");
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
