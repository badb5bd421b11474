import type { Config } from "../config.ts";
import { OperatorError, OperatorService } from "../services/operators.ts";
import { MIN_PASSWORD_LENGTH } from "../services/passwords.ts";
import type { OperatorStore } from "../store/operator-store.ts";
import { UsageError } from "./app-commands.ts";

export const USER_HELP = `Usage: mixdown user <add|list|remove|reset-password> [options]

Operator accounts: the people who sign in to the dashboard (/dashboard).

  user add NAME [--password-stdin] [--json]   create an operator; asks for the password twice on a
                                              terminal, or reads it from standard input
  user list [--json]                          list operators
  user remove NAME [--json]                   remove an operator and end their sessions
  user reset-password NAME [--password-stdin] set a new password and end the operator's sessions

Names: letters, digits, '.', '_', '@', '-' (up to 64). Passwords: at least ${MIN_PASSWORD_LENGTH} characters,
stored as scrypt hashes with a salt of their own. With --password-stdin the first line of standard input
is the password (e.g. from a secrets manager). Works against MIXDOWN_DATA_DIR, or Postgres when
MIXDOWN_DATABASE_URL is set, also while the server runs.`;

/** The operator store alone: no queue, no pg-boss. */
async function openOperatorStore(config: Config): Promise<{ operators: OperatorStore; close(): Promise<void> }> {
  const { SqlOperatorStore } = await import("../store/sql/sql-operator-store.ts");
  if (config.databaseUrl) {
    const { openPostgres } = await import("../store/postgres/database.ts");
    const { db, close } = await openPostgres(config.databaseUrl);
    return { operators: new SqlOperatorStore(db), close };
  }
  const { openSqlite } = await import("../store/sqlite/database.ts");
  const { db } = openSqlite(config.dataDir);
  return { operators: new SqlOperatorStore(db), close: () => db.destroy() };
}

async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  const text = Buffer.concat(chunks).toString("utf8");
  return text.split(/\r?\n/)[0] ?? "";
}

/** Reads a line from the terminal without echoing it. */
function promptHidden(question: string): Promise<string> {
  const stdin = process.stdin;
  // Raw (no echo) before the prompt shows, so nothing typed ahead is echoed.
  stdin.setRawMode(true);
  process.stderr.write(question);
  stdin.setEncoding("utf8");
  stdin.resume();
  let value = "";
  return new Promise((resolve, reject) => {
    const finish = () => {
      stdin.off("data", onData);
      stdin.setRawMode(false);
      stdin.pause();
      process.stderr.write("\n");
    };
    const onData = (chunk: string) => {
      for (const char of chunk) {
        if (char === "\r" || char === "\n") {
          finish();
          return resolve(value);
        }
        if (char === "\u0003" || char === "\u0004") {
          finish();
          return reject(new UsageError("cancelled"));
        }
        if (char === "\u007f" || char === "\b") value = [...value].slice(0, -1).join("");
        else if (char >= " ") value += char;
      }
    };
    stdin.on("data", onData);
  });
}

async function newPassword(fromStdin: boolean): Promise<string> {
  if (fromStdin) return readStdin();
  if (!process.stdin.isTTY) throw new UsageError("no terminal to ask for the password: use --password-stdin");
  const first = await promptHidden(`Password (at least ${MIN_PASSWORD_LENGTH} characters): `);
  const second = await promptHidden("Password again: ");
  if (first !== second) throw new UsageError("the passwords differ");
  return first;
}

/** `mixdown user add|list|remove|reset-password`. */
export async function userCommand(
  config: Config,
  sub: string | undefined,
  args: { name?: string; passwordStdin: boolean; json: boolean },
): Promise<void> {
  const print = (text: string) => process.stdout.write(`${text}\n`);
  const needName = (verb: string) => {
    if (!args.name) throw new UsageError(`user ${verb} needs the operator's name`);
    return args.name;
  };
  if (!["add", "list", "remove", "reset-password"].includes(sub ?? ""))
    throw new UsageError(sub ? `unknown user command "${sub}"` : "user needs a command");
  const name = sub === "list" ? undefined : needName(sub as string);
  const nameProblem = name && sub === "add" ? OperatorService.nameProblem(name) : undefined;
  if (nameProblem) throw new UsageError(nameProblem);
  // Asked before the database is opened, so a slow typist holds no connection.
  const password = sub === "add" || sub === "reset-password" ? await newPassword(args.passwordStdin) : "";
  const { operators: store, close } = await openOperatorStore(config);
  const operators = new OperatorService(store, { sessionIdleMs: config.dashboardSessionIdleMs });
  try {
    switch (sub) {
      case "add": {
        const operator = await operators.add(name as string, password);
        print(
          args.json
            ? JSON.stringify({ id: operator.id, name: operator.name })
            : `Created operator "${operator.name}"; sign in at /dashboard.`,
        );
        return;
      }
      case "list": {
        const list = await operators.list();
        if (args.json) print(JSON.stringify(list.map((o) => ({ id: o.id, name: o.name, createdAt: o.createdAt }))));
        else if (list.length === 0) print("No operators. Create one with: mixdown user add NAME");
        else for (const o of list) print(`${o.name}  created ${o.createdAt}`);
        return;
      }
      case "remove": {
        if (!(await operators.remove(name as string))) throw new UsageError(`no operator named "${name}"`);
        print(
          args.json ? JSON.stringify({ name, removed: true }) : `Removed operator "${name}"; their sessions ended.`,
        );
        return;
      }
      case "reset-password": {
        if (!(await operators.resetPassword(name as string, password)))
          throw new UsageError(`no operator named "${name}"`);
        print(
          args.json
            ? JSON.stringify({ name, passwordReset: true })
            : `New password set for "${name}"; their sessions ended.`,
        );
        return;
      }
    }
  } catch (error) {
    if (error instanceof OperatorError) throw new UsageError(error.message);
    throw error;
  } finally {
    await close();
  }
}
