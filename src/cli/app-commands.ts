import type { Config } from "../config.ts";
import { openStores } from "../runtime.ts";
import { ApplicationService } from "../services/applications.ts";

export class UsageError extends Error {}

/** `mixdown app create|list|revoke|rotate-key`, against the data dir (works while the server runs). */
export async function appCommand(
  config: Config,
  sub: string | undefined,
  args: { name?: string; id?: string; json: boolean },
) {
  const { store, close } = await openStores(config);
  const apps = new ApplicationService(store);
  const print = (text: string) => process.stdout.write(`${text}\n`);
  try {
    switch (sub) {
      case "create": {
        if (!args.name?.trim()) throw new UsageError("app create needs --name NAME");
        // Names need not be unique (ids are), but two alike are easy to confuse: say so, on stderr (--json stays
        // parseable), and create it all the same, as scripts that provision applications expect.
        const taken = await apps.named(args.name.trim());
        const { app, apiKey } = await apps.create(args.name.trim());
        for (const other of taken)
          process.stderr.write(
            `warning: application "${other.name}" (${other.id}, created ${other.createdAt}${other.revokedAt ? ", revoked" : ""}) has the same name; tell them apart by id\n`,
          );
        if (args.json) print(JSON.stringify({ id: app.id, name: app.name, apiKey }));
        else print(`Created application "${app.name}" (${app.id}).\nAPI key (shown once, keep it safe):\n${apiKey}`);
        return;
      }
      case "list": {
        const list = await apps.list();
        if (args.json) print(JSON.stringify(list));
        else if (list.length === 0) print("No applications. Create one with: mixdown app create --name NAME");
        else
          for (const app of list)
            print(`${app.id}  ${app.revokedAt ? "revoked" : "active "}  ${app.createdAt}  ${app.name}`);
        return;
      }
      case "revoke": {
        if (!args.id) throw new UsageError("app revoke needs the application id");
        if (!(await apps.revoke(args.id))) throw new UsageError(`no active application with id ${args.id}`);
        print(
          args.json
            ? JSON.stringify({ id: args.id, revoked: true })
            : `Revoked application ${args.id}; its key no longer works.`,
        );
        return;
      }
      case "rotate-key": {
        if (!args.id) throw new UsageError("app rotate-key needs the application id");
        const apiKey = await apps.rotateKey(args.id);
        if (!apiKey) throw new UsageError(`no active application with id ${args.id}`);
        print(
          args.json
            ? JSON.stringify({ id: args.id, apiKey })
            : `New API key for ${args.id} (the old one no longer works):\n${apiKey}`,
        );
        return;
      }
      default:
        throw new UsageError(sub ? `unknown app command "${sub}"` : "app needs a command");
    }
  } finally {
    await close();
  }
}
