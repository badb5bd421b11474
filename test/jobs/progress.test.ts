import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, test } from "node:test";
import { setTimeout as delay } from "node:timers/promises";
import { modulePool } from "../../src/engine/module-pool.ts";
import { ProgressWriter } from "../../src/jobs/progress-writer.ts";
import { decodeAudio } from "../../src/media/pcm.ts";
import { audioToMidiModule } from "../../src/modules/audio-to-midi/index.ts";
import { sineWav } from "../helpers/audio.ts";

const dir = fs.mkdtempSync(path.join(os.tmpdir(), "mixdown-progress-"));
after(async () => {
  await modulePool.closeIdle();
  fs.rmSync(dir, { recursive: true, force: true });
});

test("a module in its process reports its progress as it loops (MIDI windows): rising, within 0..1", async () => {
  const audio = path.join(dir, "tone.wav");
  fs.writeFileSync(audio, sineWav(30, { rate: 22050, channels: 1 }));
  const properties = audioToMidiModule.params.properties as Record<string, { default?: unknown }>;
  const params = Object.fromEntries(
    Object.entries(properties).flatMap(([name, schema]) => ("default" in schema ? [[name, schema.default]] : [])),
  );
  const reported: number[] = [];
  const outputs = await modulePool.run(
    "audio-to-midi",
    { params, inputs: { audio }, outputDir: dir, modelsDir: dir },
    new AbortController().signal,
    (fraction) => reported.push(fraction),
  );
  assert.ok(outputs.midi, "the step finished");
  assert.ok(reported.length >= 3, `several reports: ${reported}`);
  assert.ok(
    reported.every((f, i) => f >= 0 && f <= 1 && (i === 0 || f >= (reported[i - 1] as number))),
    `${reported}`,
  );
  assert.ok((reported.at(-1) as number) > 0.5, `it got far: ${reported}`);
});

test("decoding reports ffmpeg's progress (-progress) as a fraction of the file's duration", async () => {
  const audio = path.join(dir, "long.flac");
  // Ten minutes of tone as FLAC: decoding it takes ffmpeg long enough to report several times.
  const { execFileSync } = await import("node:child_process");
  execFileSync("ffmpeg", [
    "-v",
    "error",
    "-f",
    "lavfi",
    "-i",
    "sine=frequency=440:sample_rate=16000:duration=600",
    audio,
  ]);
  const reported: number[] = [];
  const pcm = await decodeAudio(audio, { channels: 1, onProgress: (f) => reported.push(f) });
  assert.equal(pcm.channels[0]?.length, 600 * 16000);
  assert.ok(reported.length >= 1, "progress reported");
  assert.ok(
    reported.every((f, i) => f > 0 && f <= 1 && (i === 0 || f >= (reported[i - 1] as number))),
    `${reported}`,
  );
  assert.ok((reported.at(-1) as number) > 0.9, `the last report is near the end: ${reported.at(-1)}`);
});

test("progress is written at most once per interval, the latest value, and never after stop()", async () => {
  const writes: { value: number; step: string; at: number }[] = [];
  let inFlight = 0;
  let overlapped = false;
  const writer = new ProgressWriter(
    async (value, step) => {
      inFlight++;
      overlapped ||= inFlight > 1;
      writes.push({ value, step, at: performance.now() });
      await delay(30);
      inFlight--;
    },
    (error) => assert.fail(String(error)),
    100,
  );
  for (let i = 1; i <= 50; i++) {
    writer.report(i / 100, "separate");
    await delay(5);
  }
  await delay(150);
  writer.report(0.9, "encode");
  writer.stop();
  await delay(200);
  assert.ok(!overlapped, "one write at a time");
  assert.ok(writes.length >= 2 && writes.length <= 6, `${writes.length} writes for 50 reports`);
  for (let i = 1; i < writes.length; i++) {
    assert.ok((writes[i]?.at as number) - (writes[i - 1]?.at as number) >= 95, "spaced by the interval");
  }
  assert.deepEqual(writes.at(-1), { ...writes.at(-1), value: 0.5, step: "separate" }, "the latest value before stop");
  assert.ok(!writes.some((w) => w.step === "encode"), "nothing written after stop()");
});
