/**
 * Issue 52, part 3: where there is nothing to find, the analysis says so. Silence, white and pink noise, speech
 * (festival's voice of a real speaker and English espeak-ng), drones (sox's sawtooths, FluidSynth's cello) and a
 * passage in free time (FluidSynth's piano and harp at irregular moments) give `bpm: null` and no beats; all but
 * the free-time passage `key: null`; every confidence lies in [0, 1]. This material is made by other generators
 * than the calibration material of src/dsp/pulse-evidence.ts and tonal-evidence.ts
 * (test/analysis/calibration-material.ts: noise and drones computed in code, non-English espeak-ng voices).
 */
import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, test } from "node:test";
import { ANALYSIS_SAMPLE_RATE, analyzeMusic, type MusicAnalysis } from "../../src/dsp/analyze-music.ts";
import { findSections } from "../../src/dsp/sections.ts";
import { decodeAudio } from "../../src/media/pcm.ts";
import { encodeWav16 } from "../../src/media/wav.ts";
import { midiFile } from "../corpus/midi.ts";
import { renderMidi } from "../corpus/render.ts";
import type { NoteEvent, Part } from "../corpus/types.ts";
import { sox } from "../helpers/media.ts";
import { Rng } from "../music/synth.ts";
import { festival, HELD_OUT_SENTENCES } from "../speech/corpus.ts";
import { RATE as SPEECH_RATE, speak } from "../speech/speech-audio.ts";

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "mixdown-nothing-to-find-"));
after(() => fs.rmSync(tmp, { recursive: true, force: true }));

const SECONDS = 20;
const TEXT = HELD_OUT_SENTENCES.join(" ");

/** A signal made by sox alone (no input file), as a 44.1 kHz mono WAV in the scratch folder. */
async function soxMade(name: string, ...effects: string[]): Promise<string> {
  const file = path.join(tmp, `${name}.wav`);
  await sox(["-n", "-r", "44100", "-c", "1", file, ...effects]);
  return file;
}

/** One FluidSynth part (FluidR3 GM) to a WAV file. */
async function fluid(name: string, part: Omit<Part, "name" | "channel" | "volume" | "pan">): Promise<string> {
  const midi = midiFile([{ name: "pad", channel: 0, volume: 100, pan: 64, ...part }]);
  const [left, right] = await renderMidi(midi, path.join(tmp, `${name}-render`));
  const mono = Float32Array.from(left as Float32Array, (v, i) => (v + ((right as Float32Array)[i] as number)) / 2);
  const file = path.join(tmp, `${name}.wav`);
  fs.writeFileSync(file, encodeWav16([mono], 44100));
  return file;
}

/** Notes of a C major scale at irregular moments (exponential gaps, 0.7 s on average) and of random lengths. */
function freeTimeNotes(seed: number): NoteEvent[] {
  const rng = new Rng(seed);
  const scale = [60, 62, 64, 65, 67, 69, 71, 72, 74, 76];
  const notes: NoteEvent[] = [];
  for (let time = 0.3; time < SECONDS - 1.5; time += Math.min(2.5, 0.12 - 0.7 * Math.log(1 - rng.next()))) {
    notes.push({
      midi: scale[rng.int(scale.length)] as number,
      time,
      duration: rng.uniform(0.2, 1.8),
      velocity: Math.round(rng.uniform(50, 110)),
    });
  }
  return notes;
}

const CASES: { name: string; hasKey: boolean; make: () => Promise<string> }[] = [
  { name: "silence", hasKey: false, make: () => soxMade("silence", "trim", "0", String(SECONDS)) },
  {
    name: "white noise",
    hasKey: false,
    make: () => soxMade("white", "synth", String(SECONDS), "whitenoise", "vol", "0.3"),
  },
  {
    name: "pink noise",
    hasKey: false,
    make: () => soxMade("pink", "synth", String(SECONDS), "pinknoise", "vol", "0.5"),
  },
  {
    name: "speech, festival (a real speaker's HTS voice)",
    hasKey: false,
    make: async () => {
      const file = path.join(tmp, "festival.wav");
      fs.writeFileSync(file, encodeWav16([(await festival(TEXT)).samples], SPEECH_RATE));
      return file;
    },
  },
  {
    name: "speech, espeak-ng en-us",
    hasKey: false,
    make: async () => {
      const file = path.join(tmp, "espeak.wav");
      fs.writeFileSync(file, encodeWav16([await speak(TEXT, { voice: "en-us" })], SPEECH_RATE));
      return file;
    },
  },
  {
    name: "a two-note drone, sox sawtooths A2 + E3",
    hasKey: false,
    make: () =>
      soxMade(
        "drone",
        "synth",
        String(SECONDS),
        "sawtooth",
        "110",
        "sawtooth",
        "164.8",
        "remix",
        "-",
        "lowpass",
        "3000",
        "vol",
        "0.4",
      ),
  },
  {
    name: "a two-note drone, FluidSynth cello D2 + A2",
    hasKey: false,
    make: () =>
      fluid("cello", {
        program: 42,
        notes: [38, 45].map((midi) => ({ midi, time: 0, duration: SECONDS - 0.5, velocity: 90 })),
      }),
  },
  {
    name: "free time, FluidSynth piano",
    hasKey: true,
    make: () => fluid("free-piano", { program: 0, notes: freeTimeNotes(52_001) }),
  },
  {
    name: "free time, FluidSynth harp",
    hasKey: true,
    make: () => fluid("free-harp", { program: 46, notes: freeTimeNotes(52_002) }),
  },
];

const inUnit = (value: number) => value >= 0 && value <= 1;

function assertConfidences(label: string, analysis: MusicAnalysis, signal: Float32Array, rate: number): void {
  assert.ok(inUnit(analysis.bpmConfidence), `${label}: bpm confidence ${analysis.bpmConfidence}`);
  assert.ok(inUnit(analysis.keyConfidence), `${label}: key confidence ${analysis.keyConfidence}`);
  for (const chord of analysis.chords) assert.ok(inUnit(chord.confidence), `${label}: chord ${JSON.stringify(chord)}`);
  for (const section of findSections(signal, rate, analysis.beats))
    assert.ok(inUnit(section.confidence), `${label}: section ${JSON.stringify(section)}`);
}

test("nothing to find: no tempo and no beats, no key where none is supported, every confidence in [0, 1]", async (t) => {
  for (const c of CASES) {
    const pcm = await decodeAudio(await c.make(), { sampleRate: ANALYSIS_SAMPLE_RATE, channels: 1 });
    const signal = pcm.channels[0] as Float32Array;
    const analysis = analyzeMusic(signal, pcm.sampleRate);
    const { evidence, beats, chords, ...answers } = analysis;
    t.diagnostic(`${c.name}: ${JSON.stringify({ ...answers, beats: beats.length, chords: chords.length, evidence })}`);
    assert.equal(analysis.bpm, null, `${c.name}: bpm ${analysis.bpm} (confidence ${analysis.bpmConfidence})`);
    assert.equal(analysis.meter, null, `${c.name}: meter`);
    assert.deepEqual(analysis.beats, [], `${c.name}: beats`);
    assert.ok(analysis.bpmConfidence < 0.5, `${c.name}: bpm confidence ${analysis.bpmConfidence}`);
    if (!c.hasKey) {
      assert.equal(analysis.key, null, `${c.name}: key ${analysis.key} (confidence ${analysis.keyConfidence})`);
      assert.ok(analysis.keyConfidence < 0.5, `${c.name}: key confidence ${analysis.keyConfidence}`);
    }
    if (c.name === "silence")
      assert.deepEqual(
        analysis.chords.map((s) => s.chord),
        ["N"],
        "silence: no chord",
      );
    assertConfidences(c.name, analysis, signal, pcm.sampleRate);
  }
});
