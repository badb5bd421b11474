import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { type AppInfo, assertNoneRunning, Mixdown } from "../helpers/mixdown.ts";
import { noteScores } from "./note-metrics.ts";
import { composePiece, encodeWav, type ReferenceNote, renderPiece } from "./piece.ts";
import { assertMidiMatches, assertNoteShape } from "./transcription-checks.ts";

describe("mixdown/midi over HTTP", () => {
  let server: Mixdown;
  let app: AppInfo;
  let reference: ReferenceNote[];
  let inputUrl: string;

  before(async () => {
    server = await Mixdown.start();
    app = await server.createApp();
    reference = composePiece(12, 3);
    inputUrl = await server.upload(app.apiKey, encodeWav(renderPiece(reference, 44100), 44100), "audio/wav");
  });
  after(async () => {
    await server.dispose();
    assertNoneRunning();
  });

  const run = async (params: Record<string, unknown>) => {
    const id = await server.createJob(app.apiKey, "mixdown/midi", params);
    return server.waitForJob(app.apiKey, id, 180_000);
  };

  test("gives a MIDI file and a JSON note list holding the same notes, the ones played", async () => {
    const job = await run({ inputUrl });
    assert.equal(job.status, "SUCCEEDED", JSON.stringify(job.error));
    assert.deepEqual(Object.keys(job.result).sort(), ["midi", "notes"]);

    const notesResponse = await fetch(job.result.notes);
    assert.equal(notesResponse.status, 200);
    assert.match(notesResponse.headers.get("content-type") ?? "", /^application\/json/);
    const notes: unknown = await notesResponse.json();
    assertNoteShape(notes);

    const midiResponse = await fetch(job.result.midi);
    assert.equal(midiResponse.status, 200);
    assert.equal(midiResponse.headers.get("content-type"), "audio/midi");
    const midi = new Uint8Array(await midiResponse.arrayBuffer());
    assert.equal(Buffer.from(midi.subarray(0, 4)).toString("latin1"), "MThd");
    assertMidiMatches(midi, notes);

    // Measured: F 0.840 (34 of 34 notes found, 13 extra) on this 12 s piece.
    assert.ok(reference.length >= 20);
    const { f } = noteScores(reference, notes);
    assert.ok(f >= 0.8, `note F-measure ${f.toFixed(3)}`);
  });

  test("thresholds are validated, and frequency bounds keep notes inside them", async () => {
    const refused = await server.api("POST", "/v1/job", {
      key: app.apiKey,
      body: { name: "bad", workflow: "mixdown/midi", params: { inputUrl, onsetThreshold: 1.5 } },
    });
    assert.equal(refused.status, 422, JSON.stringify(refused.body));
    assert.equal(refused.body.code, "INVALID_WORKFLOW_PARAMS");

    // Only the melody's register (C4 = 261.6 Hz and up): the chords below it are left out.
    const job = await run({ inputUrl, minFrequency: 255, onsetThreshold: 0.6 });
    assert.equal(job.status, "SUCCEEDED", JSON.stringify(job.error));
    const notes: unknown = await (await fetch(job.result.notes)).json();
    assertNoteShape(notes);
    assert.ok(notes.length > 0 && notes.every((n) => n.pitch >= 59), JSON.stringify(notes.map((n) => n.pitch)));
    const upper = reference.filter((n) => n.pitch >= 60);
    const { recall } = noteScores(upper, notes);
    assert.ok(recall >= 0.9, `recall above C4 ${recall.toFixed(3)}`); // measured 1.0
  });
});
