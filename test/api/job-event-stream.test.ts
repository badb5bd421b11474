import assert from "node:assert/strict";
import { test } from "node:test";
import { setTimeout as delay } from "node:timers/promises";
import { JobEventStream, lastEventId } from "../../src/api/job-event-stream.ts";
import type { JobState } from "../../src/domain.ts";

const state = (revision: number, status: JobState["status"] = "STARTED", progress = revision / 100): JobState => ({
  id: "job",
  appId: "app",
  status,
  progress,
  step: "separate",
  revision,
});

/**
 * The events written to the stream, each with when it was written: timed at the write, not when the reader gets
 * it, since a busy event loop can hand a reader events written a second apart together.
 */
function record(stream: JobEventStream): { at: number; id: number; event: string; data: Record<string, unknown> }[] {
  const written: { at: number; id: number; event: string; data: Record<string, unknown> }[] = [];
  const write = stream.body.write.bind(stream.body) as (chunk: string) => boolean;
  stream.body.write = ((chunk: string) => {
    const text = String(chunk);
    if (!text.startsWith(":")) keepEvent(text);
    return write(chunk);
  }) as typeof stream.body.write;
  stream.body.resume();
  return written;

  function keepEvent(text: string): void {
    const [id, event, data] = text
      .trim()
      .split("\n")
      .map((line) => line.slice(line.indexOf(": ") + 2));
    written.push({ at: performance.now(), id: Number(id), event: event as string, data: JSON.parse(data as string) });
  }
}

test("at most 4 events in any second; the latest state is the one sent; nothing older or repeated", async () => {
  const stream = new JobEventStream(0);
  const written = record(stream);
  const started = performance.now();
  for (let revision = 1; revision <= 40; revision++) {
    stream.offer(state(revision));
    stream.offer(state(revision)); // repeated
    stream.offer(state(revision - 1)); // older
    await delay(25);
  }
  await delay(1100);
  stream.end();
  for (const event of written) {
    // 50 ms of slack: the stream reads its clock before it builds the event this test times at its write, and a
    // pause of the busy CI machine (a collection, another process) can fall between the two.
    const inWindow = written.filter((other) => other.at >= event.at && other.at < event.at + 950);
    assert.ok(inWindow.length <= 4, `${inWindow.length} events within a second`);
  }
  const ids = written.map((e) => e.id);
  assert.ok(
    ids.every((id, i) => i === 0 || id > (ids[i - 1] as number)),
    `ids grow: ${ids}`,
  );
  assert.equal(ids.at(-1), 40, "the last state is delivered");
  assert.deepEqual(written[0], { ...written[0], id: 1, event: "status" });
  assert.ok(written.slice(1).every((e) => e.event === "progress"));
  assert.ok(performance.now() - started < 15_000, "the stream kept up");
});

test("the terminal status is sent (waiting for a slot if need be) and ends the stream", async () => {
  const stream = new JobEventStream(0);
  const written = record(stream);
  for (let revision = 1; revision <= 4; revision++) stream.offer(state(revision));
  stream.offer(state(5, "SUCCEEDED", 1));
  await new Promise((resolve) => stream.body.on("end", resolve).resume());
  assert.deepEqual(
    written.map((e) => [e.id, e.event, e.data.status]),
    [
      [1, "status", "STARTED"],
      [2, "progress", "STARTED"],
      [3, "progress", "STARTED"],
      [4, "progress", "STARTED"],
      [5, "status", "SUCCEEDED"],
    ],
  );
  assert.ok((written[4]?.at ?? 0) - (written[0]?.at ?? 0) >= 990, "the fifth event waited for the window");
});

test("a new job's first state (revision 0) is sent to a client that saw nothing", () => {
  const stream = new JobEventStream(lastEventId(undefined));
  const written = record(stream);
  stream.offer(state(0, "QUEUED", 0));
  assert.deepEqual(
    written.map((e) => [e.id, e.event, e.data.status]),
    [[0, "status", "QUEUED"]],
  );
});

test("resuming: states up to Last-Event-ID are not sent again; an ended job with nothing new ends at once", () => {
  const stream = new JobEventStream(7);
  const written = record(stream);
  stream.offer(state(7, "SUCCEEDED", 1));
  stream.endIfOver(state(7, "SUCCEEDED", 1));
  assert.equal(written.length, 0);
  assert.ok(stream.body.writableEnded);
  assert.equal(lastEventId("12"), 12);
  assert.equal(lastEventId(["3"]), 3);
  assert.equal(lastEventId("0"), 0);
  for (const bad of [undefined, "", "abc", "-1", "1e9", "1".repeat(16)])
    assert.equal(lastEventId(bad), -1, String(bad));
});
