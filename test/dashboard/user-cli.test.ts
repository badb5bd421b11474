import assert from "node:assert/strict";
import { execFile, spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { DatabaseSync } from "node:sqlite";
import { after, before, test } from "node:test";
import pg from "pg";
import { describeOrSkip, postgresUnavailable, provisionDatabase } from "../helpers/backends.ts";
import { MIXDOWN_BIN } from "../helpers/mixdown.ts";

interface Run {
  stdout: string;
  stderr: string;
  code: number;
}

function mixdown(env: Record<string, string>, args: string[], stdin?: string): Promise<Run> {
  return new Promise((resolve) => {
    const child = execFile(MIXDOWN_BIN, args, { env: { ...process.env, ...env } }, (error, stdout, stderr) =>
      resolve({ stdout, stderr, code: error ? Number((error as { code?: number }).code ?? 1) : 0 }),
    );
    child.stdin?.end(stdin ?? "");
  });
}

const BACKENDS: {
  name: string;
  skip: string | undefined;
  env: () => Promise<[Record<string, string>, () => Promise<void>]>;
}[] = [
  {
    name: "sqlite",
    skip: undefined,
    env: async () => {
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), "mixdown-users-"));
      return [{ MIXDOWN_DATA_DIR: dir }, async () => fs.rmSync(dir, { recursive: true, force: true })];
    },
  },
  {
    name: "postgres",
    skip: postgresUnavailable,
    env: async () => {
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), "mixdown-users-"));
      const database = await provisionDatabase();
      return [
        { MIXDOWN_DATA_DIR: dir, MIXDOWN_DATABASE_URL: database.url },
        async () => {
          fs.rmSync(dir, { recursive: true, force: true });
          await database.drop();
        },
      ];
    },
  },
];

/** The stored password hashes by operator name, read straight from the database. */
async function storedHashes(env: Record<string, string>): Promise<Map<string, string>> {
  let rows: { name: string; password_hash: string }[];
  if (env.MIXDOWN_DATABASE_URL) {
    const client = new pg.Client({ connectionString: env.MIXDOWN_DATABASE_URL });
    await client.connect();
    rows = (await client.query("SELECT name, password_hash FROM operators")).rows;
    await client.end();
  } else {
    const db = new DatabaseSync(path.join(env.MIXDOWN_DATA_DIR as string, "mixdown.sqlite"));
    rows = db.prepare("SELECT name, password_hash FROM operators").all() as typeof rows;
    db.close();
  }
  return new Map(rows.map((r) => [r.name, r.password_hash]));
}

for (const backend of BACKENDS)
  describeOrSkip(`mixdown user [${backend.name}]`, backend.skip, () => {
    let env: Record<string, string>;
    let cleanup: () => Promise<void>;
    before(async () => {
      [env, cleanup] = await backend.env();
    });
    after(() => cleanup());

    test("add, list, reset-password and remove an operator", async () => {
      const added = await mixdown(env, ["user", "add", "alice", "--password-stdin", "--json"], "a long passphrase\n");
      assert.equal(added.code, 0, added.stderr);
      assert.equal(JSON.parse(added.stdout).name, "alice");
      await mixdown(env, ["user", "add", "bob", "--password-stdin"], "a long passphrase\n");

      const list = await mixdown(env, ["user", "list", "--json"]);
      assert.deepEqual(
        JSON.parse(list.stdout).map((o: { name: string }) => o.name),
        ["alice", "bob"],
      );
      assert.match((await mixdown(env, ["user", "list"])).stdout, /^alice {2}created \d{4}-/m);

      // The same password, two different salts; never the password itself.
      const hashes = await storedHashes(env);
      const [alice, bob] = [hashes.get("alice"), hashes.get("bob")];
      assert.match(alice ?? "", /^scrypt\$32768\$8\$1\$[\w-]{22}\$[\w-]{43}$/);
      assert.notEqual(alice, bob);
      assert.ok(!alice?.includes("passphrase"));

      const reset = await mixdown(env, ["user", "reset-password", "alice", "--password-stdin"], "another passphrase\n");
      assert.equal(reset.code, 0, reset.stderr);
      assert.notEqual((await storedHashes(env)).get("alice"), alice);

      assert.equal((await mixdown(env, ["user", "remove", "bob"])).code, 0);
      assert.deepEqual([...(await storedHashes(env)).keys()], ["alice"]);
    });

    test("refuses a short password, a taken name, a bad name and an unknown operator, with exit code 2", async () => {
      const short = await mixdown(env, ["user", "add", "carol", "--password-stdin"], "elevenchars\n");
      assert.equal(short.code, 2);
      assert.match(short.stderr, /at least 12 characters/);
      await mixdown(env, ["user", "add", "dave", "--password-stdin"], "a long passphrase\n");
      const taken = await mixdown(env, ["user", "add", "dave", "--password-stdin"], "a long passphrase\n");
      assert.equal(taken.code, 2);
      assert.match(taken.stderr, /already exists/);
      const bad = await mixdown(env, ["user", "add", "<b>", "--password-stdin"], "a long passphrase\n");
      assert.equal(bad.code, 2);
      assert.match(bad.stderr, /the name must be/);
      for (const sub of ["remove", "reset-password"]) {
        const missing = await mixdown(env, ["user", sub, "nobody", "--password-stdin"], "a long passphrase\n");
        assert.equal(missing.code, 2);
        assert.match(missing.stderr, /no operator named "nobody"/);
      }
      assert.ok(!(await storedHashes(env)).has("carol"));
    });

    test("without a terminal and without --password-stdin, add says how to give the password", async () => {
      const run = await mixdown(env, ["user", "add", "erin"]);
      assert.equal(run.code, 2);
      assert.match(run.stderr, /use --password-stdin/);
    });
  });

const hasScript = spawnSync("script", ["--version"]).status === 0;
test("user add on a terminal asks twice without echoing the password", {
  skip: !hasScript && "no script(1)",
}, async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "mixdown-users-"));
  try {
    const env = { MIXDOWN_DATA_DIR: dir };
    // script(1) gives the command a terminal; the password is typed once each prompt has been shown.
    const child = execFile("script", ["-qec", `${MIXDOWN_BIN} user add tty-user`, "/dev/null"], {
      env: { ...process.env, ...env },
    });
    let output = "";
    let typed = 0;
    child.stdout?.on("data", (d) => {
      output += d;
      const prompts = (output.match(/Password \(at least|Password again: /g) ?? []).length;
      for (; typed < prompts; typed++) child.stdin?.write("terminal password\r");
    });
    await new Promise((resolve) => child.on("exit", resolve));
    assert.match(output, /Created operator "tty-user"/);
    assert.ok(!output.includes("terminal password"), output);
    assert.ok((await storedHashes(env)).has("tty-user"));
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
