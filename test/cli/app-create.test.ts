import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import { MIXDOWN_BIN } from "../helpers/mixdown.ts";

interface Run {
  stdout: string;
  stderr: string;
  code: number;
}

describe("mixdown app create", () => {
  let dataDir = "";
  const mixdown = (...args: string[]): Promise<Run> =>
    new Promise((resolve) => {
      execFile(MIXDOWN_BIN, args, { env: { ...process.env, MIXDOWN_DATA_DIR: dataDir } }, (error, stdout, stderr) =>
        resolve({ stdout, stderr, code: error ? Number((error as { code?: number }).code ?? 1) : 0 }),
      );
    });

  before(() => {
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "mixdown-app-create-"));
  });
  after(() => fs.rmSync(dataDir, { recursive: true, force: true }));

  test("app create warns on stderr when the name is taken, and still creates it; --json stays parseable", async () => {
    const first = await mixdown("app", "create", "--name", "my-app", "--json");
    assert.equal(first.code, 0);
    assert.equal(first.stderr, "", "a new name: no warning");
    const one = JSON.parse(first.stdout) as { id: string; name: string; apiKey: string };

    const second = await mixdown("app", "create", "--name", "My-App ", "--json");
    assert.equal(second.code, 0);
    const two = JSON.parse(second.stdout) as { id: string; name: string };
    assert.equal(two.name, "My-App");
    assert.notEqual(two.id, one.id);
    assert.match(
      second.stderr,
      new RegExp(
        `^warning: application "my-app" \\(${one.id}, created \\d{4}-\\d\\d-\\d\\dT[\\d:.]+Z\\) has the same name; tell them apart by id\\n$`,
      ),
    );

    // Without --json the key is printed as before, the warnings (one per namesake) on stderr.
    await mixdown("app", "revoke", one.id);
    const third = await mixdown("app", "create", "--name", "my-app");
    assert.equal(third.code, 0);
    assert.match(
      third.stdout,
      /^Created application "my-app" \([0-9a-f-]{36}\)\.\nAPI key \(shown once, keep it safe\):\nmxd_/,
    );
    const warnings = third.stderr.trim().split("\n");
    assert.equal(warnings.length, 2);
    assert.match(warnings[0] ?? "", new RegExp(`${one.id}, created .*, revoked\\) has the same name`));
    assert.match(warnings[1] ?? "", new RegExp(`"My-App" \\(${two.id}, created`));

    const listed = JSON.parse((await mixdown("app", "list", "--json")).stdout) as unknown[];
    assert.equal(listed.length, 3);
  });
});
