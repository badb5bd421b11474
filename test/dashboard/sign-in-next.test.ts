import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { setTimeout as delay } from "node:timers/promises";
import { assertNoneRunning, Mixdown } from "../helpers/mixdown.ts";

const PASSWORD = "correct horse battery";

let server: Mixdown;
let token = "";

/** A form as a browser would post it: the pre-session cookie and CSRF token of `formPath`, then the fields. */
async function postForm(formPath: string, fields: Record<string, string>): Promise<Response> {
  const form = await fetch(`${server.url}${formPath}`);
  const cookie = (form.headers.get("set-cookie") ?? "").split(";")[0] ?? "";
  const csrf = /name="_csrf" value="([\w-]+)"/.exec(await form.text())?.[1] ?? "";
  return fetch(`${server.url}${formPath.split("?")[0]}`, {
    method: "POST",
    redirect: "manual",
    headers: { cookie, "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({ _csrf: csrf, ...fields }),
  });
}

/** Where signing in with `next` leads. */
async function signInTo(next: string): Promise<string | null> {
  const response = await postForm("/dashboard/sign-in", { name: "admin", password: PASSWORD, next });
  assert.equal(response.status, 303, `next=${next}`);
  return response.headers.get("location");
}

before(async () => {
  // Request logs (level info) are on: they must not carry the setup link's token.
  server = await Mixdown.start({ MIXDOWN_LOG_LEVEL: "info", MIXDOWN_WORKERS: "0" });
  const line = server.output.split("\n").find((l) => l.includes('"setupUrl"'));
  assert.ok(line, `no setup link in the output:\n${server.output}`);
  token = new URL(JSON.parse(line).setupUrl).pathname.split("/").at(-1) ?? "";
  assert.match(token, /^[\w-]{43}$/);
});
after(async () => {
  await server?.dispose();
  assertNoneRunning();
});

test("the setup token is in the announcement only, never in the request log", async () => {
  const created = await postForm(`/dashboard/setup/${token}`, {
    name: "admin",
    password: PASSWORD,
    confirm: PASSWORD,
  });
  assert.equal(created.status, 303);
  // Used up: the link is refused now, and that request is logged too.
  assert.equal((await fetch(`${server.url}/dashboard/setup/${token}?again=1`)).status, 410);
  const redacted = () => server.output.split('"url":"/dashboard/setup/[redacted]').length - 1;
  for (let i = 0; redacted() < 3; i++) {
    assert.ok(i < 50, `the setup requests are not in the log:\n${server.output}`);
    await delay(100); // the server's output arrives on its own time
  }
  assert.ok(server.output.includes('"url":"/dashboard/setup/[redacted]?again=1"'));
  const lines = server.output.split("\n").filter(Boolean);
  const withToken = lines.filter((l) => l.includes(token));
  assert.equal(withToken.length, 1, `the token is logged:\n${withToken.join("\n")}`);
  assert.match(JSON.parse(withToken[0] as string).msg, /^No dashboard operator yet/);
});

test("a page asked for without a session is where signing in leads", async () => {
  const asked = "/dashboard/jobs?status=FAILED&q=take%205";
  const redirected = await fetch(`${server.url}${asked}`, { redirect: "manual" });
  assert.equal(redirected.status, 303);
  const signInUrl = redirected.headers.get("location") ?? "";
  assert.equal(signInUrl, `/dashboard/sign-in?next=${encodeURIComponent(asked)}`);
  const form = await (await fetch(`${server.url}${signInUrl}`)).text();
  assert.ok(form.includes(`name="next" value="${asked.replaceAll("&", "&amp;")}"`), "the form carries next");
  const response = await postForm(signInUrl, { name: "admin", password: PASSWORD, next: asked });
  assert.equal(response.headers.get("location"), asked);
  // A wrong password keeps next in the form for the next try.
  const wrong = await postForm(signInUrl, { name: "admin", password: "wrong password!", next: asked });
  assert.equal(wrong.status, 401);
  assert.ok((await wrong.text()).includes(`name="next" value="${asked.replaceAll("&", "&amp;")}"`));
});

test("a next off the dashboard, or off the site, leads to the dashboard's home instead", async () => {
  for (const next of [
    "https://evil.example/dashboard/jobs",
    "//evil.example/dashboard",
    "/\\evil.example/dashboard",
    "\\\\evil.example",
    "/dashboard\\@evil.example",
    "javascript:alert(1)",
    "/dashboard/../v1/job",
    "/dashboardx",
    "/docs",
    "/dashboard/sign-out",
    "/dashboard/setup/abc",
    " /dashboard/jobs",
    "/dashboard/jobs\r\nLocation: https://evil.example",
  ])
    assert.equal(await signInTo(next), "/dashboard", next);
  assert.equal(await signInTo("/dashboard//evil.example"), "/dashboard//evil.example"); // a path of this site
  assert.equal(await signInTo(""), "/dashboard");
  const form = await (await fetch(`${server.url}/dashboard/sign-in?next=https%3A%2F%2Fevil.example`)).text();
  assert.ok(!form.includes("evil.example"), "an off-site next is not put in the form");
});
