// `npm start` in a terminal: the first-run setup link, and where Mixdown is, in plain words, not only inside a
// JSON log line; on a pipe (a service manager, a log collector) only the JSON lines.
import assert from "node:assert/strict";
import { type ChildProcess, spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, describe, test } from "node:test";
import { setTimeout as delay } from "node:timers/promises";
import { assertNoneRunning, freePort, MIXDOWN_BIN, Mixdown } from "../helpers/mixdown.ts";

const hasScript = ["/usr/bin/script", "/bin/script"].some((file) => fs.existsSync(file));

/** Waits until `output()` matches `pattern` (bounded), or the process has exited. */
async function waitFor(child: ChildProcess, output: () => string, pattern: RegExp): Promise<RegExpMatchArray> {
  for (let i = 0; i < 600; i++) {
    const match = output().match(pattern);
    if (match) return match;
    if (child.exitCode !== null) break;
    await delay(50);
  }
  assert.fail(`no ${pattern} in the output:\n${output()}`);
}

describe("the setup link and the address on a terminal", () => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "mixdown-setup-link-"));
  after(() => {
    fs.rmSync(dataDir, { recursive: true, force: true });
    assertNoneRunning();
  });

  test("bin/mixdown serve on a terminal prints the setup link and the address as plain lines", {
    skip: !hasScript && "no script(1) to give the server a terminal",
  }, async () => {
    const port = await freePort();
    // script(1) runs the server on a pseudo-terminal: its stdout and stderr are a TTY, as under `npm start`.
    const child = spawn("script", ["-qfec", `${MIXDOWN_BIN} serve`, "/dev/null"], {
      env: { ...process.env, MIXDOWN_DATA_DIR: dataDir, PORT: String(port), MIXDOWN_WORKERS: "0" },
      stdio: ["pipe", "pipe", "pipe"],
    });
    let output = "";
    child.stdout?.on("data", (chunk) => (output += chunk));
    child.stderr?.on("data", (chunk) => (output += chunk));
    const exited = new Promise((resolve) => child.once("exit", resolve));
    let serverPid: number | undefined;
    try {
      const [, link] = await waitFor(
        child,
        () => output,
        /No dashboard operator yet\. Open this link within 15 minutes to create the first one \(it works once\):\r?\n {2}(http:\/\/localhost:\d+\/dashboard\/setup\/[\w-]+)\r?\nOr run: bin\/mixdown user add NAME/,
      );
      await waitFor(
        child,
        () => output,
        new RegExp(
          `^Mixdown is running at http://localhost:${port}: the API under /v1, the dashboard at /dashboard, API docs at /docs\\. Stop it with Ctrl-C\\.\\r?$`,
          "m",
        ),
      );
      serverPid = Number(output.match(/"pid":(\d+)/)?.[1]);
      const page = await fetch(String(link).replace("localhost", "127.0.0.1"));
      assert.equal(page.status, 200, "the link printed is the live setup link");
      assert.match(await page.text(), /first operator|Create/i);
    } finally {
      child.kill("SIGTERM");
      await exited;
      // script(1) hangs up its terminal, which ends the server; make sure of it.
      for (let i = 0; serverPid && i < 100; i++) {
        try {
          process.kill(serverPid, 0);
        } catch {
          serverPid = undefined;
          break;
        }
        await delay(50);
      }
      if (serverPid) {
        process.kill(serverPid, "SIGKILL");
        assert.fail("the server outlived its terminal");
      }
    }
  });

  test("on pipes, only the JSON log lines: the link is in the setupUrl field", async () => {
    const server = await Mixdown.start({ MIXDOWN_WORKERS: "0" });
    try {
      for (let i = 0; i < 100 && !server.output.includes('"setupUrl"'); i++) await delay(50);
      const lines = server.output.trim().split("\n");
      const entries = lines.map((line) => JSON.parse(line) as { setupUrl?: string });
      assert.ok(entries.some((entry) => entry.setupUrl?.includes("/dashboard/setup/")));
      assert.doesNotMatch(server.output, /Open this link|Mixdown is running at/);
    } finally {
      await server.dispose();
    }
  });
});
