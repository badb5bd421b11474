import assert from "node:assert/strict";
import fsp from "node:fs/promises";
import { test } from "node:test";
import tonejs from "@tonejs/midi";
import { CHORD_VOCABULARY } from "../music/theory.ts";
import { corpusSpecs, renderedCorpus, SPLITS, type Split } from "./corpus.ts";
import { midiFile } from "./midi.ts";
import { playedByKit } from "./render.ts";
import { composeSong } from "./song.ts";
import type { CorpusTruth } from "./types.ts";

const splits = Object.keys(SPLITS) as Split[];

function checkTruth(truth: CorpusTruth): void {
  const where = truth.id;
  const contiguous = (items: { start: number; end: number }[], what: string) => {
    assert.equal(items[0]?.start, 0, `${where}: ${what} start at 0`);
    assert.ok(Math.abs((items[items.length - 1]?.end ?? 0) - truth.duration) < 1e-9, `${where}: ${what} end`);
    items.forEach((item, i) => {
      assert.ok(item.end > item.start, `${where}: ${what} ${i} is empty`);
      if (i > 0) assert.equal(item.start, items[i - 1]?.end, `${where}: ${what} ${i} not contiguous`);
    });
  };
  contiguous(truth.chords, "chords");
  contiguous(truth.chordSymbols, "chord symbols");
  contiguous(truth.sections, "sections");
  for (const c of truth.chords) assert.ok(CHORD_VOCABULARY.includes(c.chord), `${where}: chord ${c.chord}`);
  assert.match(truth.key, /^(C|C#|D|Eb|E|F|F#|G|Ab|A|Bb|B) (major|minor)$/);
  truth.beats.forEach((beat, i) => {
    const previous = truth.beats[i - 1];
    if (previous) assert.ok(beat.time > previous.time, `${where}: beats increase`);
    const expected = ((((i - truth.pickupBeats) % truth.beatsPerBar) + truth.beatsPerBar) % truth.beatsPerBar) + 1;
    assert.equal(beat.beatNum, expected, `${where}: beat ${i} number`);
  });
  assert.equal(truth.beats[truth.beats.length - 1]?.beatNum, 1, `${where}: the final hit is a downbeat`);
  for (const section of truth.sections.slice(1))
    assert.ok(
      truth.beats.some((b) => b.beatNum === 1 && b.time === section.start),
      `${where}: sections start on downbeats`,
    );
  // Steady beats (before any ritardando) last exactly 60 / bpm.
  const second = truth.beats[1];
  const first = truth.beats[0];
  if (first && second) assert.ok(Math.abs(second.time - first.time - 60 / truth.bpm) < 1e-9, `${where}: tempo`);
  for (const part of truth.parts)
    for (const note of part.notes) {
      assert.ok(note.time >= 0 && note.time + note.duration <= truth.duration, `${where}: ${part.name} note inside`);
      assert.ok(note.velocity > 0 && note.velocity <= 1, `${where}: velocity`);
    }
  assert.deepEqual(new Set(truth.parts.map((p) => p.stem)), new Set(["drums", "bass", "vocals", "other"]));
}

test("the corpus specs cover the grooves, meters, tempi, keys and modes, and every song's truth is consistent", () => {
  for (const split of splits) {
    const specs = corpusSpecs(split);
    assert.equal(specs.length, SPLITS[split].count);
    const songs = specs.map((spec) => composeSong(spec).truth);
    songs.forEach(checkTruth);
    const count = (predicate: (t: CorpusTruth) => boolean) => songs.filter(predicate).length;
    assert.ok(count((t) => t.meter === "3/4") >= 0.2 * specs.length, `${split}: 3/4`);
    assert.ok(count((t) => t.meter === "6/8") >= 0.1 * specs.length, `${split}: 6/8`);
    assert.equal(
      count((t) => t.key.endsWith("minor")),
      specs.length / 2,
      `${split}: minor keys`,
    );
    assert.equal(new Set(songs.map((t) => t.key.split(" ")[0])).size, 12, `${split}: every tonic`);
    assert.equal(new Set(songs.map((t) => t.groove)).size, 10, `${split}: every groove`);
    assert.ok(count((t) => t.tempoCurve !== null) >= 0.2 * specs.length, `${split}: ritardandos`);
    assert.ok(count((t) => t.pickupBeats > 0) >= 0.2 * specs.length, `${split}: pickups`);
    assert.ok(count((t) => t.swing) >= 3, `${split}: shuffles`);
    const quarterBpms = songs.filter((t) => t.meter !== "6/8").map((t) => t.bpm);
    assert.ok(Math.min(...quarterBpms) <= 66 && Math.max(...quarterBpms) >= 190, `${split}: 60–200 BPM`);
    assert.ok(count((t) => t.chordSymbols.some((c) => /7/.test(c.symbol))) >= 0.3 * specs.length, "sevenths");
    assert.ok(count((t) => t.chordSymbols.some((c) => c.symbol.includes("/"))) >= 0.2 * specs.length, "inversions");
    assert.ok(count((t) => new Set(t.sections.map((s) => s.label)).size >= 4) >= 0.5 * specs.length, "sections");
  }
  // Deterministic: the same spec gives the same song.
  const spec = corpusSpecs("held-out")[7];
  assert.ok(spec);
  assert.deepEqual(composeSong(spec), composeSong(spec));
});

test("a spec's programs change only the instruments of the parts they name", () => {
  const named: Partial<Record<string, number>> = { comp: 16, lead: 80, voice: 54 };
  const programs = Object.fromEntries(Object.entries(named).map(([part, program]) => [part, [program]]));
  for (const spec of corpusSpecs("development").slice(0, 8)) {
    const usual = composeSong(spec);
    const focused = composeSong({ ...spec, programs });
    assert.equal(focused.parts.length, usual.parts.length, spec.id);
    focused.parts.forEach((part, i) => {
      const before = usual.parts[i];
      assert.equal(part.name, before?.name, spec.id);
      assert.deepEqual(part.notes, before?.notes, `${spec.id}: ${part.name} notes`);
      const expected = named[part.name] ?? before?.program;
      assert.equal(part.program, expected, `${spec.id}: ${part.name} program`);
    });
    assert.deepEqual(focused.truth.chords, usual.truth.chords, spec.id);
  }
});

test("a spec's mod wheel and chorus send values reach the MIDI of the parts they name, and the corpus' songs have none", () => {
  /** Per track, the values (0..127) of controller `cc`. */
  const controller = (parts: Parameters<typeof midiFile>[0], cc: number) =>
    new tonejs.Midi(midiFile(parts)).tracks.map((track) =>
      (track.controlChanges[cc] ?? []).map((change) => Math.round(change.value * 127)),
    );
  for (const spec of corpusSpecs("development").slice(0, 8)) {
    const usual = composeSong(spec);
    const chorus: Partial<Record<string, number[]>> = { lead: [100], voice: [30] };
    const focused = composeSong({ ...spec, modulation: { lead: [64] }, chorus });
    assert.deepEqual(controller(usual.parts, 1).flat(), [], `${spec.id}: no mod wheel in the corpus`);
    assert.deepEqual(controller(usual.parts, 93).flat(), [], `${spec.id}: no chorus send in the corpus`);
    assert.deepEqual(
      controller(focused.parts, 1),
      focused.parts.map((part) => (part.name === "lead" ? [64] : [])),
      spec.id,
    );
    assert.deepEqual(
      controller(focused.parts, 93),
      focused.parts.map((part) => chorus[part.name] ?? []),
      spec.id,
    );
    focused.parts.forEach((part, i) => {
      assert.deepEqual(part.notes, usual.parts[i]?.notes, `${spec.id}: ${part.name}`);
    });
  }
});

test("drums moved to a kit on an ordinary channel keep their rhythm, keys below the kit's raised to its first", () => {
  const kit = { file: "kit.sf2", keys: { first: 36, last: 61 } };
  for (const spec of corpusSpecs("development").slice(0, 8)) {
    const drums = composeSong(spec).parts.filter((part) => part.name === "drums");
    const moved = playedByKit(drums, kit);
    assert.equal(moved.length, drums.length, spec.id);
    moved.forEach((part, i) => {
      const before = drums[i];
      assert.ok(before);
      assert.equal(part.channel, 0, spec.id);
      assert.equal(part.program, 0, spec.id);
      assert.equal(part.notes.length, before.notes.length, spec.id);
      part.notes.forEach((note, n) => {
        const was = before.notes[n];
        assert.ok(was);
        assert.deepEqual({ ...note, midi: was.midi }, was, `${spec.id}: note ${n} timing and velocity`);
        assert.equal(note.midi, Math.max(36, was.midi), `${spec.id}: note ${n} key`);
      });
    });
  }
  // The corpus' grooves play no key under 36, so the raise is checked on a part that does: GM 35 (a second kick).
  const hits = [35, 36, 42, 61].map((midi, i) => ({ midi, time: i / 2, duration: 0.1, velocity: 0.8 }));
  const [moved] = playedByKit([{ name: "drums", program: 25, channel: 9, volume: 100, pan: 64, notes: hits }], kit);
  assert.deepEqual(
    moved?.notes.map((note) => note.midi),
    [36, 36, 42, 61],
  );
});

/** 16-bit samples of a WAV written by encodeWav16 (44-byte header). */
const samples16 = async (file: string) => {
  const bytes = await fsp.readFile(file);
  return new Int16Array(bytes.buffer.slice(bytes.byteOffset + 44, bytes.byteOffset + bytes.length));
};

test("rendered tracks: four stems that add up exactly to the mixture, each of them sounding", async () => {
  const tracks = await renderedCorpus("development", (spec) => spec.id <= "development-004");
  assert.equal(tracks.length, 4);
  for (const track of tracks) {
    const mixture = await samples16(track.mixture);
    assert.equal(mixture.length, 2 * Math.round(track.truth.duration * 44100), `${track.id}: length`);
    const sum = new Int32Array(mixture.length);
    for (const [stem, file] of Object.entries(track.stems)) {
      const audio = await samples16(file);
      assert.equal(audio.length, mixture.length, `${track.id}: ${stem} length`);
      let energy = 0;
      audio.forEach((v, i) => {
        sum[i] = (sum[i] as number) + v;
        energy += v * v;
      });
      const rmsDb = 10 * Math.log10(energy / audio.length / 32768 ** 2);
      assert.ok(rmsDb > -40, `${track.id}: ${stem} sounds (${rmsDb.toFixed(1)} dBFS)`);
    }
    assert.ok(
      mixture.every((v, i) => v === sum[i]),
      `${track.id}: the mixture is the sum of the stems`,
    );
  }
});
