import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { readEvents } from "../../sdk/src/events.ts";
import { type JobStateEvent, MixdownClient } from "../../sdk/src/index.ts";
import { sineWav } from "../helpers/audio.ts";
import { describeOrSkip } from "../helpers/backends.ts";
import { startStallingFixture } from "../helpers/http-fixture.ts";
import { type AppInfo, assertNoneRunning, BACKENDS, Mixdown } from "../helpers/mixdown.ts";
import { waitFor } from "../helpers/processes.ts";

let fixture: Awaited<ReturnType<typeof startStallingFixture>>;
before(async () => {
  fixture = await startStallingFixture(sineWav(1));
});
after(() => fixture.close());

/** Opens the job's event stream; `events` fills as they come, `ended` settles when the server ends the stream. */
async function openEvents(server: Mixdown, key: string, id: string, lastEventId?: string) {
  const headers: Record<string, string> = { authorization: key, accept: "text/event-stream" };
  if (lastEventId) headers["last-event-id"] = lastEventId;
  const response = await fetch(`${server.url}/v1/job/${id}/events`, { headers });
  if (response.status !== 200) assert.fail(`GET /job/${id}/events: ${response.status} ${await response.text()}`);
  assert.match(response.headers.get("content-type") ?? "", /^text\/event-stream/);
  const events: JobStateEvent[] = [];
  const ended = (async () => {
    for await (const event of readEvents(response.body as ReadableStream<Uint8Array>)) events.push(event);
  })();
  return { events, ended };
}

for (const { backend, skip } of BACKENDS)
  describeOrSkip(`GET /job/:id/events [${backend}]`, skip, () => {
    let server: Mixdown;
    let app: AppInfo;
    let other: AppInfo;

    before(async () => {
      server = await Mixdown.start(
        { MIXDOWN_ALLOW_PRIVATE_URLS: "true", MIXDOWN_FETCH_TIMEOUT_MS: "60000", MIXDOWN_WORKERS: "1" },
        { backend, workers: 1 },
      );
      app = await server.createApp("events-app");
      other = await server.createApp("events-other");
    });
    after(async () => {
      await server.dispose();
      assertNoneRunning();
    });

    test("status changes and progress as they happen, ended after the terminal status; resumable", async () => {
      fixture.state.stall = true;
      const id = await server.createJob(app.apiKey, "mixdown/convert", {
        inputUrl: `${fixture.url}/a.wav`,
        format: "flac",
      });
      for (let i = 0; i < 600; i++) {
        if ((await server.api("GET", `/v1/job/${id}/status`, { key: app.apiKey })).body.status === "STARTED") break;
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      const status = await server.api("GET", `/v1/job/${id}/status`, { key: app.apiKey });
      assert.deepEqual(status.body, { id, status: "STARTED", progress: 0, step: null });

      const stream = await openEvents(server, app.apiKey, id);
      await waitFor("the first event", () => stream.events[0]);
      assert.deepEqual(
        { ...stream.events[0], eventId: "<n>" },
        { eventId: "<n>", type: "status", id, status: "STARTED", progress: 0, step: null },
      );
      fixture.resume();
      await stream.ended;
      const { events } = stream;
      const ended = (await server.api("GET", `/v1/job/${id}`, { key: app.apiKey })).body;
      assert.equal(ended.status, "SUCCEEDED", JSON.stringify(ended.error));
      // The input step's end is half the job (two steps), told as progress; then the end, and the stream closes.
      // (The encode step's end may be told too, or be overtaken by the job's end.)
      const seen = events.map(({ type, status, progress, step }) => ({ type, status, progress, step }));
      assert.deepEqual(seen[0], { type: "status", status: "STARTED", progress: 0, step: null });
      assert.deepEqual(seen[1], { type: "progress", status: "STARTED", progress: 0.5, step: "input" });
      assert.deepEqual(seen.at(-1), { type: "status", status: "SUCCEEDED", progress: 1, step: null });
      assert.ok(seen.length <= 4, JSON.stringify(seen));
      assert.ok(
        seen.every((e, i) => i === 0 || e.progress >= (seen[i - 1]?.progress ?? 0)),
        "progress never falls",
      );
      const ids = events.map((e) => Number(e.eventId));
      assert.ok(
        ids.every((n, i) => i === 0 || n > (ids[i - 1] as number)),
        `ids grow: ${ids}`,
      );
      assert.equal((await server.api("GET", `/v1/job/${id}`, { key: app.apiKey })).body.progress, 1);

      // Resuming after the last event: nothing new, the stream ends at once; after the first: the end only.
      const caughtUp = await openEvents(server, app.apiKey, id, events.at(-1)?.eventId);
      await caughtUp.ended;
      assert.deepEqual(caughtUp.events, []);
      const behind = await openEvents(server, app.apiKey, id, events[0]?.eventId);
      await behind.ended;
      assert.deepEqual(
        behind.events.map((e) => e.status),
        ["SUCCEEDED"],
      );
    });

    test("the SDK's wait follows the stream (progress reported, no polling)", async () => {
      fixture.state.stall = false;
      const paths: string[] = [];
      const client = new MixdownClient({
        baseUrl: server.url,
        apiKey: app.apiKey,
        fetch: (input, init) => {
          paths.push(new URL(String(input)).pathname);
          return fetch(input, init);
        },
      });
      const id = await client.addJob({
        name: "sdk",
        workflow: "mixdown/convert",
        params: { inputUrl: `${fixture.url}/b.wav`, format: "wav" },
      });
      const progress: number[] = [];
      const statuses: string[] = [];
      const job = await client.waitForJobCompletion(id, {
        timeoutMs: 60_000,
        onStatus: (s) => statuses.push(s),
        onProgress: (p) => progress.push(p),
      });
      assert.equal(job.status, "SUCCEEDED");
      assert.equal(statuses.at(-1), "SUCCEEDED");
      assert.equal(progress.at(-1), 1);
      assert.ok(paths.includes(`/v1/job/${id}/events`));
      assert.ok(!paths.includes(`/v1/job/${id}/status`), `no polling: ${paths}`);
    });

    test("a QUEUED job's stream opens with its state at once; deleting the job ends the stream", async () => {
      fixture.state.stall = true;
      // The one worker is busy with a stalled job: the next one stays QUEUED.
      const busy = await server.createJob(app.apiKey, "mixdown/convert", {
        inputUrl: `${fixture.url}/d.wav`,
        format: "wav",
      });
      const id = await server.createJob(app.apiKey, "mixdown/convert", {
        inputUrl: `${fixture.url}/e.wav`,
        format: "wav",
      });
      const stream = await openEvents(server, app.apiKey, id);
      await waitFor("the first event", () => stream.events[0]);
      assert.equal(stream.events[0]?.status, "QUEUED");
      assert.equal((await server.api("DELETE", `/v1/job/${id}`, { key: app.apiKey })).status, 200);
      await stream.ended;
      assert.deepEqual(
        stream.events.map((e) => e.status),
        ["QUEUED"],
      );
      fixture.resume();
      await server.waitForJob(app.apiKey, busy);
    });

    test("the same API-key rules as GET /job/:id", async () => {
      fixture.state.stall = false;
      const id = await server.createJob(app.apiKey, "mixdown/convert", {
        inputUrl: `${fixture.url}/c.wav`,
        format: "wav",
      });
      assert.equal((await server.api("GET", `/v1/job/${id}/events`)).status, 401);
      const foreign = await server.api("GET", `/v1/job/${id}/events`, { key: other.apiKey });
      assert.equal(foreign.status, 404);
      assert.equal(foreign.body.code, "JOB_NOT_FOUND");
      assert.equal((await server.api("GET", "/v1/job/nope/events", { key: app.apiKey })).body.code, "INVALID_JOB_ID");
      await server.waitForJob(app.apiKey, id);
    });
  });
