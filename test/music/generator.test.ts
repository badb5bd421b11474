import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { encodeWav, type GroundTruth, generateTrack, suiteSpecs, type Track, type TrackSpec } from "./generator.ts";
import { LEAD_IN_SECONDS, planTrack } from "./plan.ts";
import { CHORD_VOCABULARY, keyLabel, midiToHz, PITCH_NAMES, parseNumeral } from "./theory.ts";

const BASE: TrackSpec = {
  seed: 7,
  bpm: 120,
  meter: 4,
  durationSeconds: 20,
  tonic: 0,
  mode: "major",
  progression: ["I", "V", "vi", "IV"],
  jitterMs: 0,
  tempoDriftPercent: 0,
  noiseDb: -40,
  timbre: "sine",
};

const KEY_PATTERN = /^(C|C#|D|Eb|E|F|F#|G|Ab|A|Bb|B) (major|minor)$/;

function rms(signal: Float32Array, from: number, to: number): number {
  let power = 0;
  const start = Math.max(0, Math.floor(from));
  const end = Math.min(signal.length, Math.floor(to));
  for (let i = start; i < end; i++) power += (signal[i] as number) ** 2;
  return Math.sqrt(power / Math.max(1, end - start));
}

function mono(track: Track): Float32Array {
  const [left, right] = track.channels;
  return left.map((value, i) => (value + (right[i] as number)) / 2);
}

/** Power at one frequency over a Hann-windowed stretch (Goertzel). */
function powerAt(signal: Float32Array, sampleRate: number, frequency: number, from: number, to: number): number {
  const start = Math.round(from * sampleRate);
  const length = Math.round((to - from) * sampleRate);
  const coefficient = 2 * Math.cos((2 * Math.PI * frequency) / sampleRate);
  let s1 = 0;
  let s2 = 0;
  for (let n = 0; n < length; n++) {
    const window = 0.5 - 0.5 * Math.cos((2 * Math.PI * n) / length);
    const s0 = (signal[start + n] as number) * window + coefficient * s1 - s2;
    s2 = s1;
    s1 = s0;
  }
  return s1 * s1 + s2 * s2 - coefficient * s1 * s2;
}

/** The invariants every ground truth must satisfy. */
function checkTruth(spec: TrackSpec, truth: GroundTruth): void {
  const where = `seed ${spec.seed}`;
  const startBpm = spec.bpm;
  const endBpm = spec.bpm * (1 + spec.tempoDriftPercent / 100);
  const slowest = Math.min(startBpm, endBpm);
  const fastest = Math.max(startBpm, endBpm);
  assert.equal(truth.meter, spec.meter, where);
  assert.ok(Math.abs(truth.bpm - (startBpm + endBpm) / 2) < 1e-9, `${where}: bpm is the mid-track tempo`);

  const { beats } = truth;
  assert.ok(beats.length >= 8, where);
  assert.equal(beats[0]?.time, LEAD_IN_SECONDS, where);
  assert.ok((beats.at(-1)?.time ?? Infinity) < spec.durationSeconds, where);
  assert.ok(
    (beats.at(-1)?.time ?? 0) + 60 / fastest > spec.durationSeconds - 1e-9,
    `${where}: no beat missing at the end`,
  );
  for (const [i, beat] of beats.entries()) assert.equal(beat.beatNum, (i % spec.meter) + 1, `${where}: beat ${i}`);
  for (let i = 1; i < beats.length; i++) {
    const interval = (beats[i]?.time ?? 0) - (beats[i - 1]?.time ?? 0);
    const bpm = 60 / interval;
    assert.ok(bpm > slowest - 1e-6 && bpm < fastest + 1e-6, `${where}: beat ${i} at ${bpm} BPM`);
  }
  const meanBpm = (60 * (beats.length - 1)) / ((beats.at(-1)?.time ?? 0) - (beats[0]?.time ?? 0));
  assert.ok(Math.abs(meanBpm / truth.bpm - 1) < 0.005, `${where}: mean beat rate ${meanBpm} vs ${truth.bpm}`);

  const { chords } = truth;
  assert.equal(chords[0]?.start, 0, where);
  assert.equal(chords[0]?.chord, "N", `${where}: the lead-in is N`);
  assert.equal(chords[0]?.end, LEAD_IN_SECONDS, where);
  assert.equal(chords.at(-1)?.end, spec.durationSeconds, where);
  const downbeats = new Set(beats.filter((beat) => beat.beatNum === 1).map((beat) => beat.time));
  chords.forEach((segment, i) => {
    assert.ok(segment.end > segment.start, `${where}: segment ${i} is empty`);
    assert.ok(CHORD_VOCABULARY.includes(segment.chord), `${where}: ${segment.chord}`);
    if (i === 0) return;
    const previous = chords[i - 1];
    assert.equal(segment.start, previous?.end, `${where}: gap before segment ${i}`);
    assert.notEqual(segment.chord, previous?.chord, `${where}: equal neighbours are merged`);
    assert.ok(downbeats.has(segment.start), `${where}: chord ${i} starts on a downbeat`);
    assert.notEqual(segment.chord, "N", where);
  });
  assert.match(truth.key, KEY_PATTERN, where);
  assert.equal(truth.key, keyLabel(spec.tonic, spec.mode), where);
}

describe("music/theory", () => {
  test("Roman numerals name the right triads, spelled C C# D Eb E F F# G Ab A Bb B", () => {
    const labels = (tonic: number, mode: "major" | "minor", numerals: string[]) =>
      numerals.map((numeral) => parseNumeral(numeral, tonic, mode).label);
    assert.deepEqual(labels(0, "major", ["I", "ii", "iii", "IV", "V", "vi", "bVII"]), [
      "C",
      "Dm",
      "Em",
      "F",
      "G",
      "Am",
      "Bb",
    ]);
    assert.deepEqual(labels(9, "minor", ["i", "iv", "v", "V", "VI", "III", "VII"]), [
      "Am",
      "Dm",
      "Em",
      "E",
      "F",
      "C",
      "G",
    ]);
    assert.deepEqual(labels(3, "minor", ["i", "iv", "V", "VI"]), ["Ebm", "Abm", "Bb", "B"]);
    assert.deepEqual(labels(6, "major", ["I", "IV", "V", "vi"]), ["F#", "B", "C#", "Ebm"]);
    assert.deepEqual(labels(1, "minor", ["i", "III"]), ["C#m", "E"]);
    assert.deepEqual(parseNumeral("V", 9, "minor").pitchClasses, [4, 8, 11]);
    assert.deepEqual(PITCH_NAMES.map((_, pc) => keyLabel(pc, "minor")).slice(0, 4), [
      "C minor",
      "C# minor",
      "D minor",
      "Eb minor",
    ]);
    for (const bad of ["vii°", "viio", "Iv", "VIII", "x", ""])
      assert.throws(() => parseNumeral(bad, 0, "major"), RangeError);
  });

  test("A4 is 440 Hz", () => {
    assert.equal(midiToHz(69), 440);
    assert.ok(Math.abs(midiToHz(60) - 261.6256) < 1e-3);
  });
});

describe("music/truth", () => {
  test("every suite spec has a consistent ground truth", () => {
    for (const spec of suiteSpecs()) checkTruth(spec, planTrack(spec).truth);
  });

  test("the track carries its plan's truth", () => {
    const spec = suiteSpecs()[3] as TrackSpec;
    assert.deepEqual(generateTrack(spec).truth, planTrack(spec).truth);
  });

  test("chords follow the progression bar by bar, cycled, with equal neighbours merged", () => {
    const major = planTrack(BASE).truth;
    checkTruth(BASE, major);
    assert.deepEqual(
      major.chords.slice(0, 6).map((segment) => segment.chord),
      ["N", "C", "G", "Am", "F", "C"],
    );
    assert.ok(Math.abs((major.chords[1]?.end ?? 0) - (LEAD_IN_SECONDS + 2)) < 1e-9, "a 4/4 bar at 120 BPM is 2 s");
    assert.equal(major.key, "C major");

    const minorSpec: TrackSpec = { ...BASE, tonic: 9, mode: "minor", progression: ["i", "iv", "V", "i"], meter: 3 };
    const minor = planTrack(minorSpec).truth;
    checkTruth(minorSpec, minor);
    assert.deepEqual(
      minor.chords.slice(0, 6).map((segment) => segment.chord),
      ["N", "Am", "Dm", "E", "Am", "Dm"],
    );
    const merged = minor.chords[4];
    assert.ok(merged && Math.abs(merged.end - merged.start - 3) < 1e-9, "i at the end and start of a cycle: 2 bars");
    assert.equal(minor.key, "A minor");

    const slow: TrackSpec = { ...BASE, barsPerChord: 2 };
    const twoBars = planTrack(slow).truth;
    checkTruth(slow, twoBars);
    assert.ok(Math.abs((twoBars.chords[1]?.end ?? 0) - (LEAD_IN_SECONDS + 4)) < 1e-9);
  });

  test("tempo drift: beats follow the integrated linear tempo; bpm truth is the mid-track tempo", () => {
    const spec: TrackSpec = { ...BASE, bpm: 100, tempoDriftPercent: 2, durationSeconds: 40 };
    const truth = planTrack(spec).truth;
    checkTruth(spec, truth);
    assert.ok(Math.abs(truth.bpm - 101) < 1e-9);
    const first = 60 / ((truth.beats[1]?.time ?? 0) - (truth.beats[0]?.time ?? 0));
    const n = truth.beats.length;
    const last = 60 / ((truth.beats[n - 1]?.time ?? 0) - (truth.beats[n - 2]?.time ?? 0));
    assert.ok(first > 100 && first < 100.1, `first interval ${first} BPM`);
    assert.ok(last > 101.8 && last < 102, `last interval ${last} BPM`);
    const slower = planTrack({ ...spec, tempoDriftPercent: -2 }).truth;
    assert.ok(Math.abs(slower.bpm - 99) < 1e-9);
    checkTruth({ ...spec, tempoDriftPercent: -2 }, slower);
  });

  test("invalid specs are refused", () => {
    const bad: Partial<TrackSpec>[] = [
      { meter: 5 as 4 },
      { tonic: 12 },
      { progression: [] },
      { progression: ["I", "vii°"] },
      { bpm: 0 },
      { durationSeconds: 0 },
      { timbre: "flute" as "sine" },
      { jitterMs: -1 },
    ];
    for (const change of bad) assert.throws(() => generateTrack({ ...BASE, ...change }), RangeError);
  });
});

describe("music/suite", () => {
  const specs = suiteSpecs();

  test("is deterministic", () => {
    assert.deepEqual(suiteSpecs(), specs);
  });

  test("has ≥ 40 specs with the required spread", () => {
    assert.ok(specs.length >= 40);
    assert.equal(new Set(specs.map((spec) => spec.seed)).size, specs.length, "distinct seeds");
    for (const spec of specs) {
      assert.ok(spec.durationSeconds >= 20 && spec.durationSeconds <= 40);
      assert.ok(spec.bpm >= 60 && spec.bpm <= 200);
      assert.ok(spec.jitterMs >= 0 && spec.jitterMs <= 10);
      assert.ok(spec.noiseDb >= -40 && spec.noiseDb <= -20);
      assert.ok(Math.abs(spec.tempoDriftPercent) <= 2);
    }
    const bpms = specs.map((spec) => spec.bpm);
    assert.ok(Math.min(...bpms) <= 65 && Math.max(...bpms) >= 195);
    for (let low = 60; low < 200; low += 20) {
      const inBin = bpms.filter((bpm) => bpm >= low && (bpm < low + 20 || (low === 180 && bpm <= 200))).length;
      assert.ok(inBin >= 4, `${inBin} specs at ${low}–${low + 20} BPM`);
    }
    assert.ok(specs.filter((spec) => spec.meter === 3).length >= 12, "≥ 12 in 3/4");
    assert.ok(specs.filter((spec) => spec.meter === 4).length >= 12);
    assert.equal(new Set(specs.map((spec) => spec.tonic)).size, 12, "all tonics");
    assert.ok(specs.filter((spec) => spec.mode === "minor").length >= 15, "≥ 15 minor");
    assert.ok(specs.filter((spec) => spec.mode === "major").length >= 15);
    assert.equal(new Set(specs.map((spec) => spec.timbre)).size, 4, "all timbres");
    for (const mode of ["major", "minor"]) {
      const progressions = new Set(
        specs.filter((spec) => spec.mode === mode).map((spec) => spec.progression.join("-")),
      );
      assert.ok(progressions.size >= 4, `${mode} progressions`);
    }
    assert.ok(specs.some((spec) => spec.barsPerChord === 2) && specs.some((spec) => spec.barsPerChord !== 2));
    assert.ok(specs.some((spec) => spec.tempoDriftPercent > 1) && specs.some((spec) => spec.tempoDriftPercent < -1));
    assert.ok(specs.some((spec) => spec.tempoDriftPercent === 0));
    assert.ok(specs.some((spec) => spec.jitterMs === 0) && specs.some((spec) => spec.jitterMs >= 8));
    assert.ok(specs.some((spec) => spec.bpm < 110) && specs.some((spec) => spec.bpm >= 110));
  });
});

describe("music/audio", () => {
  const spec = suiteSpecs()[0] as TrackSpec;
  const track = generateTrack(spec);

  test("is deterministic: same seed, same samples; another seed, other samples", () => {
    const again = generateTrack(spec);
    assert.ok(Buffer.from(again.channels[0].buffer).equals(Buffer.from(track.channels[0].buffer)));
    assert.ok(Buffer.from(again.channels[1].buffer).equals(Buffer.from(track.channels[1].buffer)));
    const other = generateTrack({ ...spec, seed: spec.seed + 1 });
    assert.ok(!Buffer.from(other.channels[0].buffer).equals(Buffer.from(track.channels[0].buffer)));
    assert.deepEqual(other.truth, track.truth, "the seed changes the sound, not the score");
  });

  test("has the duration, a -1 dBFS peak, a sensible level and two different channels", () => {
    for (const candidate of [
      track,
      generateTrack({ ...BASE, timbre: "pluck", sampleRate: 22050, durationSeconds: 20.5 }),
    ]) {
      const duration = candidate === track ? spec.durationSeconds : 20.5;
      const [left, right] = candidate.channels;
      assert.equal(left.length, Math.round(duration * candidate.sampleRate));
      assert.equal(right.length, left.length);
      let peak = 0;
      for (const channel of candidate.channels)
        for (const value of channel) {
          assert.ok(Number.isFinite(value));
          peak = Math.max(peak, Math.abs(value));
        }
      assert.ok(Math.abs(20 * Math.log10(peak) + 1) < 0.01, `peak ${20 * Math.log10(peak)} dBFS`);
      const level = 20 * Math.log10(rms(left, 0, left.length));
      assert.ok(level > -25 && level < -6, `RMS ${level} dBFS`);
      let difference = 0;
      for (let i = 0; i < left.length; i++) difference += Math.abs((left[i] as number) - (right[i] as number));
      assert.ok(difference / left.length > 1e-3, "stereo, not dual mono");
    }
    assert.equal(generateTrack({ ...BASE, sampleRate: 22050 }).sampleRate, 22050);
  });

  test("the lead-in holds only the noise, at noiseDb below the mix", () => {
    for (const noiseDb of [-20, -30, -40]) {
      for (const seed of [1, 2]) {
        const noisy = generateTrack({ ...BASE, seed, noiseDb, jitterMs: 10 });
        const signal = mono(noisy);
        const sr = noisy.sampleRate;
        const lead = rms(signal, 0, (LEAD_IN_SECONDS - 0.012) * sr);
        const whole = rms(signal, 0, signal.length);
        const relative = 20 * Math.log10(lead / whole);
        // Mono of independent channel noise is 3 dB down; the mix itself loses little in the mono sum.
        assert.ok(Math.abs(relative - (noiseDb - 3)) < 3, `noise ${relative} dB for ${noiseDb} dB (seed ${seed})`);
      }
    }
    const silent = generateTrack({ ...BASE, noiseDb: -Infinity });
    assert.equal(rms(silent.channels[0], 0, LEAD_IN_SECONDS * silent.sampleRate - 1), 0);
  });

  test("onsets sit on the beat grid and the downbeats are accented", () => {
    for (const meter of [3, 4] as const) {
      const onGrid = generateTrack({ ...BASE, meter, bpm: 130, tempoDriftPercent: 2, noiseDb: -30 });
      const signal = mono(onGrid);
      const sr = onGrid.sampleRate;
      const beats = onGrid.truth.beats;
      const window = 0.03 * sr;
      /** How much louder the 30 ms after a time are than the 30 ms before it. */
      const rise = (t: number) => rms(signal, t * sr, t * sr + window) - rms(signal, t * sr - window, t * sr);
      // The onset strength summed over the grid shifted by a fraction of a beat peaks at no shift.
      const shifts = [0, 0.125, 0.25, 0.375, 0.5, 0.625, 0.75, 0.875].map((fraction) => {
        let sum = 0;
        for (let i = 1; i + 1 < beats.length; i++) {
          const t = beats[i]?.time ?? 0;
          sum += rise(t + fraction * ((beats[i + 1]?.time ?? 0) - t));
        }
        return sum;
      });
      const [onBeat = 0, ...offBeat] = shifts;
      assert.ok(onBeat > 2 * Math.max(...offBeat), `${meter}/4: ${shifts.map((s) => s.toFixed(1)).join(" ")}`);
      const mean = (num: number) => {
        const hits = beats.slice(1).filter((beat) => (beat.beatNum === 1) === (num === 1));
        return hits.reduce((sum, beat) => sum + rise(beat.time), 0) / hits.length;
      };
      assert.ok(mean(1) > 1.2 * mean(2), `${meter}/4: downbeats ${mean(1)} vs other beats ${mean(2)}`);
    }
  });

  test("the chord's pitch classes dominate the chroma of every bar", () => {
    for (const timbre of ["sine", "organ", "saw", "pluck"] as const) {
      const chordSpec: TrackSpec = { ...BASE, timbre, tonic: 2, mode: "minor", progression: ["i", "VI", "III", "V"] };
      const chordTrack = generateTrack(chordSpec);
      const signal = mono(chordTrack);
      const sr = chordTrack.sampleRate;
      for (const [i, segment] of chordTrack.truth.chords.slice(1, 5).entries()) {
        const chord = parseNumeral(chordSpec.progression[i] as string, 2, "minor");
        assert.equal(segment.chord, chord.label);
        // A chroma of C3..B5 from 0.4 s Hann windows every 0.2 s inside the bar.
        const chroma = new Array<number>(12).fill(0);
        for (let t = segment.start + 0.1; t + 0.4 <= segment.end - 0.05; t += 0.2)
          for (let midi = 48; midi < 84; midi++)
            chroma[midi % 12] = (chroma[midi % 12] as number) + powerAt(signal, sr, midiToHz(midi), t, t + 0.4);
        const weakest = Math.min(...chord.pitchClasses.map((pc) => chroma[pc] as number));
        const strongest = Math.max(...chroma.filter((_, pc) => !chord.pitchClasses.includes(pc)));
        const db = chroma.map((v, pc) => `${PITCH_NAMES[pc]} ${(10 * Math.log10(v / weakest)).toFixed(1)}`).join(", ");
        assert.ok(weakest > 4 * strongest, `${timbre} ${segment.chord}: ${db}`);
      }
    }
  });

  test("encodeWav writes 16-bit stereo PCM of the mix", () => {
    const wav = encodeWav(track);
    const frames = track.channels[0].length;
    assert.equal(wav.length, 44 + frames * 4);
    assert.equal(wav.toString("ascii", 0, 4), "RIFF");
    assert.equal(wav.readUInt32LE(4), wav.length - 8);
    assert.equal(wav.toString("ascii", 8, 16), "WAVEfmt ");
    assert.equal(wav.readUInt16LE(20), 1);
    assert.equal(wav.readUInt16LE(22), 2);
    assert.equal(wav.readUInt32LE(24), track.sampleRate);
    assert.equal(wav.readUInt16LE(34), 16);
    assert.equal(wav.toString("ascii", 36, 40), "data");
    assert.equal(wav.readUInt32LE(40), frames * 4);
    for (const i of [0, 1000, Math.floor(frames / 2), frames - 1]) {
      assert.ok(Math.abs(wav.readInt16LE(44 + i * 4) / 32767 - (track.channels[0][i] as number)) <= 1 / 32767);
      assert.ok(Math.abs(wav.readInt16LE(46 + i * 4) / 32767 - (track.channels[1][i] as number)) <= 1 / 32767);
    }
  });

  test("a 30 s track takes well under a second", () => {
    const thirty = { ...spec, durationSeconds: 30, timbre: "saw" as const };
    generateTrack(thirty);
    const started = performance.now();
    generateTrack(thirty);
    const elapsed = performance.now() - started;
    // Generous: the machines running the tests are shared.
    assert.ok(elapsed < 3000, `${elapsed} ms`);
  });
});
