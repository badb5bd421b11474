import assert from "node:assert/strict";
import { after, test } from "node:test";
import { assertNoneRunning, Mixdown } from "../helpers/mixdown.ts";

/** A sign-in attempt as a browser behind a proxy makes it: the form's cookie and token, then the post. */
async function signIn(server: Mixdown, name: string, forwardedFor: string): Promise<number> {
  const headers = { "x-forwarded-for": forwardedFor };
  const form = await fetch(`${server.url}/dashboard/sign-in`, { headers });
  const cookie = (form.headers.get("set-cookie") ?? "").split(";")[0] ?? "";
  const token = /name="_csrf" value="([\w-]+)"/.exec(await form.text())?.[1] ?? "";
  const response = await fetch(`${server.url}/dashboard/sign-in`, {
    method: "POST",
    redirect: "manual",
    headers: { ...headers, cookie, "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({ _csrf: token, name, password: "not the password" }),
  });
  return response.status;
}

for (const trusted of [true, false])
  test(`sign-in throttling counts ${trusted ? "the forwarded address behind a trusted proxy" : "the connection's address when no proxy is trusted"}`, async (t) => {
    const server = await Mixdown.start({
      MIXDOWN_WORKERS: "0",
      ...(trusted ? { MIXDOWN_TRUST_PROXY: "127.0.0.1" } : {}),
    });
    t.after(async () => {
      await server.dispose();
    });
    // Five unknown names from one client: that client is blocked.
    for (let i = 0; i < 5; i++) assert.equal(await signIn(server, `nobody${i}`, "203.0.113.1"), 401);
    assert.equal(await signIn(server, "nobody9", "203.0.113.1"), 429);
    // Another client behind the same proxy is blocked only when the proxy's word is not taken.
    assert.equal(await signIn(server, "nobody10", "198.51.100.2"), trusted ? 401 : 429);
  });

after(() => assertNoneRunning());
