import { execFile } from "node:child_process";
import type { Page } from "playwright-core";
import { MIXDOWN_BIN, type Mixdown } from "../helpers/mixdown.ts";

export const OPERATOR_PASSWORD = "correct horse battery";

/** Creates the first operator through the setup link the server printed at start; `page` is then signed in. */
export async function signInFirstOperator(server: Mixdown, page: Page, name = "admin"): Promise<void> {
  const line = server.output.split("\n").find((l) => l.includes('"setupUrl"'));
  if (!line) throw new Error(`no setup link in the output:\n${server.output}`);
  await page.goto(JSON.parse(line).setupUrl as string);
  await page.getByLabel("Name").fill(name);
  await page.locator("#password").fill(OPERATOR_PASSWORD);
  await page.getByLabel("Password again").fill(OPERATOR_PASSWORD);
  await page.getByRole("button", { name: "Create and sign in" }).click();
  await page.waitForURL("**/dashboard/applications");
}

/** Adds an operator with OPERATOR_PASSWORD through the CLI (`mixdown user add`), as an administrator does. */
export function addOperator(server: Mixdown, name: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = execFile(MIXDOWN_BIN, ["user", "add", name, "--password-stdin"], {
      env: { ...process.env, ...server.env },
    });
    child.on("exit", (code) => (code === 0 ? resolve() : reject(new Error(`user add exited with ${code}`))));
    child.stdin?.end(`${OPERATOR_PASSWORD}\n`);
  });
}

/** The CSRF token of the signed-in page's session (every page's sign-out form carries it). */
export const csrfTokenOf = (page: Page) => page.locator('form.sign-out input[name="_csrf"]').inputValue();
