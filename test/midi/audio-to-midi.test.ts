import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import { promisify } from "node:util";
import { outputToNotesPoly } from "@spotify/basic-pitch";
import * as tf from "@tensorflow/tfjs";
import type { ModuleContext } from "../../src/engine/types.ts";
import { decodeNotes } from "../../src/modules/audio-to-midi/decode.ts";
import { audioToMidiModule } from "../../src/modules/audio-to-midi/index.ts";
import { Rng } from "../music/synth.ts";
import { noteScores } from "./note-metrics.ts";
import { composePiece, encodeWav, type ReferenceNote, renderPiece } from "./piece.ts";
import { assertMidiMatches, assertNoteShape, type TranscribedNote } from "./transcription-checks.ts";

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "mixdown-midi-"));
after(() => fs.rmSync(tmp, { recursive: true, force: true }));

/** The module's params with every default filled in, as the engine passes them. */
function defaults(): Record<string, unknown> {
  const properties = audioToMidiModule.params.properties as Record<string, { default?: unknown }>;
  return Object.fromEntries(
    Object.entries(properties).flatMap(([name, schema]) => ("default" in schema ? [[name, schema.default]] : [])),
  );
}

async function transcribeWav(name: string, wav: Buffer, params: Record<string, unknown> = {}) {
  const outputDir = fs.mkdtempSync(path.join(tmp, `${name}-`));
  const audio = path.join(outputDir, "input.wav");
  fs.writeFileSync(audio, wav);
  const ctx: ModuleContext = {
    params: { ...defaults(), ...params },
    inputs: { audio },
    outputDir,
    modelsDir: tmp,
    signal: new AbortController().signal,
    fetchInput: () => Promise.reject(new Error("no fetching here")),
  };
  const outputs = await audioToMidiModule.run(ctx);
  const notes: unknown = JSON.parse(fs.readFileSync(String(outputs.notes), "utf8"));
  assertNoteShape(notes);
  assert.equal(path.extname(String(outputs.midi)), ".mid");
  return { notes, midi: fs.readFileSync(String(outputs.midi)) };
}

describe("audio-to-midi module (basic-pitch on tfjs WASM)", () => {
  let reference: ReferenceNote[];
  let notes: TranscribedNote[];
  let midi: Buffer;

  before(async () => {
    reference = composePiece(20);
    ({ notes, midi } = await transcribeWav("piece", encodeWav(renderPiece(reference, 44100), 44100)));
  });

  test("the test piece has 20+ notes over three octaves, with chords and overlapping notes", () => {
    assert.ok(reference.length >= 20);
    const pitches = reference.map((n) => n.pitch);
    assert.ok(Math.max(...pitches) - Math.min(...pitches) >= 30);
    const simultaneous = reference.filter((n, i) => reference.some((m, j) => i !== j && m.start === n.start));
    const overlapping = reference.filter((n) => reference.some((m) => m.start > n.start + 0.1 && m.start < n.end));
    assert.ok(simultaneous.length >= 9 && overlapping.length >= 10);
  });

  test("transcribes the notes of known pitch and onset (note F-measure, ±50 ms)", (t) => {
    const scores = noteScores(reference, notes);
    t.diagnostic(`${notes.length} notes for ${reference.length}: ${JSON.stringify(scores)}`);
    // Measured: F 0.878 (precision 0.792, recall 0.984) — basic-pitch adds some upper-harmonic notes.
    assert.ok(scores.f >= 0.8, `note F-measure ${scores.f.toFixed(3)}`);
    assert.ok(scores.recall >= 0.9, `recall ${scores.recall.toFixed(3)}`);
    // A wrong answer scores near 0: the same notes a semitone off.
    const transposed = reference.map((n) => ({ ...n, pitch: n.pitch + 1 }));
    assert.ok(noteScores(transposed, notes).f < 0.15);
  });

  test("onsets are on time, not just inside the ±50 ms window", (t) => {
    const errors = reference.flatMap((r) => {
      const hit = notes.filter((n) => n.pitch === r.pitch && Math.abs(n.start - r.start) <= 0.05);
      return hit.length > 0 ? [Math.min(...hit.map((n) => Math.abs(n.start - r.start)))] : [];
    });
    errors.sort((a, b) => a - b);
    const median = errors[Math.floor(errors.length / 2)] as number;
    t.diagnostic(`median onset error ${(median * 1000).toFixed(1)} ms`);
    assert.ok(median <= 0.02, `median onset error ${(median * 1000).toFixed(1)} ms`);
  });

  test("runs on tfjs' WASM backend", () => {
    assert.equal(tf.getBackend(), "wasm");
  });

  test("the MIDI file holds exactly the notes of the JSON", () => {
    assertMidiMatches(midi, notes);
  });

  test("silence gives no notes and a valid, empty MIDI file", async () => {
    const silence = await transcribeWav("silence", encodeWav(new Float32Array(3 * 44100), 44100));
    assert.deepEqual(silence.notes, []);
    assertMidiMatches(silence.midi, []);
    const blip = await transcribeWav("blip", encodeWav(new Float32Array(441), 44100));
    assert.deepEqual(blip.notes, []);
  });

  test("undecodable input and contradictory bounds are the user's error", async () => {
    await assert.rejects(transcribeWav("junk", Buffer.from("not audio at all")), { code: "BAD_INPUT" });
    await assert.rejects(
      transcribeWav("bounds", encodeWav(new Float32Array(44100), 44100), { minFrequency: 800, maxFrequency: 400 }),
      { code: "BAD_INPUT" },
    );
  });
});

/** Note and onset activations with notes of random length and strength over a noise floor, like the model's. */
function syntheticActivations(seed: number, length: number): { frames: number[][]; onsets: number[][] } {
  const rng = new Rng(seed);
  const frames = Array.from({ length }, () => Array.from({ length: 88 }, () => rng.uniform(0, 0.25)));
  const onsets = Array.from({ length }, () => Array.from({ length: 88 }, () => rng.uniform(0, 0.2)));
  for (let n = 0; n < length / 8; n++) {
    const start = rng.int(length - 5);
    const pitch = rng.int(88);
    const level = rng.uniform(0.2, 0.95);
    for (let i = start; i < Math.min(length, start + 5 + rng.int(60)); i++) {
      (frames[i] as number[])[pitch] = Math.max((frames[i] as number[])[pitch] as number, level * rng.uniform(0.7, 1));
    }
    (onsets[start] as number[])[pitch] = rng.uniform(0.2, 1);
  }
  return { frames, onsets };
}

test("registering the module loads neither tfjs nor the model (the API thread stays light)", async () => {
  const script = `
    import { createRequire } from "node:module";
    const { MODULES } = await import(${JSON.stringify(path.resolve(import.meta.dirname, "../../src/modules/index.ts"))});
    const module = MODULES.get("audio-to-midi");
    const loaded = Object.keys(createRequire(import.meta.url).cache).filter((f) => f.includes("@tensorflow"));
    console.log(JSON.stringify({ registered: !!module, unavailable: module?.availability?.({}, { modelsDir: "" }) ?? null, loaded }));
  `;
  const { stdout } = await promisify(execFile)(process.execPath, ["--input-type=module", "-e", script]);
  assert.deepEqual(JSON.parse(stdout), { registered: true, unavailable: null, loaded: [] });
});

describe("decodeNotes", () => {
  test("gives exactly basic-pitch's outputToNotesPoly notes, melodia trick included", () => {
    const settings = [
      { onsetThreshold: 0.5, frameThreshold: 0.3, minNoteFrames: 11 },
      { onsetThreshold: 0.3, frameThreshold: 0.15, minNoteFrames: 3 },
      { onsetThreshold: 0.7, frameThreshold: 0.5, minNoteFrames: 0, minFrequency: 100, maxFrequency: 1000 },
    ];
    for (const [seed, options] of settings.entries()) {
      const { frames, onsets } = syntheticActivations(seed + 1, 700);
      const copy = (m: number[][]) => m.map((row) => row.slice());
      const expected = outputToNotesPoly(
        copy(frames),
        copy(onsets),
        options.onsetThreshold,
        options.frameThreshold,
        options.minNoteFrames,
        true,
        options.maxFrequency ?? null,
        options.minFrequency ?? null,
        true,
      );
      const actual = decodeNotes(copy(frames), copy(onsets), { ...options, inferOnsets: true, melodiaTrick: true });
      assert.ok(expected.length > 30, `${expected.length} notes`);
      assert.deepEqual(actual, expected);
    }
  });
});
