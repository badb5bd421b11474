import type { Page } from "playwright-core";
import type { Mixdown } from "../helpers/mixdown.ts";

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

/** The CSRF token of the signed-in page's session (every page's sign-out form carries it). */
export const csrfTokenOf = (page: Page) => page.locator('form.sign-out input[name="_csrf"]').inputValue();
