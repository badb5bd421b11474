/**
 * The family registry and its material (issues 51 and 52, deliverable 1), on the quick subset of tracks.ts: nine
 * ten-second excerpts that together play every held-out family, rendered once into the cache (cache.ts; about
 * 75 s cold). Asserted: no reserved package or sound is ever named; every held-out family sounds; the stems add up
 * to the mixture; the truth from the MIDI fits the rendered audio; and the separation, sound-alone and analysis
 * figures per family (scoring.ts, printed as diagnostics) stay above regression floors — today's measured level
 * less a margin, not the issues' goals, which the methods do not meet yet (docs/families.md has the full report's
 * figures: node test/families/report.ts).
 */
import assert from "node:assert/strict";
import fs from "node:fs";
import { test } from "node:test";
import { HYDROGEN_TRAINING_KITS } from "../../tools/separation-model/training-soundfonts.ts";
import { FOUR_STEM_NAMES, type FourStem } from "../corpus/separation-scoring.ts";
import { readWav16 } from "../corpus/wav16.ts";
import { SAMPLE_RATE } from "./audio.ts";
import { type FamilyTrack, installCommand, missingPackages, RENDERED_PACKAGES, renderedFamilyTracks } from "./cache.ts";
import { HYDROGEN_KITS_DIR, playInstruments, readInstruments, readKit } from "./hydrogen-kit.ts";
import { STEM_OF_SLOT } from "./material.ts";
import { FAMILIES, REQUIRED_KINDS, RESERVED_PACKAGES, RESERVED_SOUNDS, TRAINING_SOUNDS } from "./registry.ts";
import { activeDb } from "./render-track.ts";
import {
  aloneByFamily,
  analysisByFamily,
  heldOutAloneMean,
  heldOutMean,
  heldOutSeparationMean,
  scoreTrack,
  separationByFamily,
  type TrackFigures,
} from "./scoring.ts";
import { playStringMachine } from "./string-machine.ts";
import { DEVELOPMENT_SCORES, developmentPlan, fullPlan, quickPlan, SCORES } from "./tracks.ts";

const missing = missingPackages(RENDERED_PACKAGES);
const needPackages = () =>
  assert.deepEqual(
    missing,
    [],
    `Debian packages missing for the family tracks; install them: ${installCommand(missing)}`,
  );

let rendering: Promise<FamilyTrack[]> | undefined;
/** The quick tracks, rendered once per process. */
const quickTracks = () => {
  needPackages();
  rendering ??= renderedFamilyTracks(quickPlan());
  return rendering;
};

const heldOut = FAMILIES.filter((f) => f.status === "held-out");

test("the registry never names a reserved package or sound, nor a training family's sound as held out", () => {
  for (const family of FAMILIES) {
    for (const pkg of family.packages)
      assert.ok(!(RESERVED_PACKAGES as readonly string[]).includes(pkg), `${family.id} uses reserved ${pkg}`);
    for (const sound of RESERVED_SOUNDS) assert.doesNotMatch(`${family.id} ${family.what}`, sound, family.id);
  }
  for (const pkg of RENDERED_PACKAGES)
    assert.ok(!(RESERVED_PACKAGES as readonly string[]).includes(pkg), `the tracks need reserved ${pkg}`);
  // Kits read from hydrogen-drumkits (shared with a training family): none reserved, none trained on.
  const kitDirs = heldOut.map((f) => `${f.id} ${f.what}`).filter((text) => /hydrogen/.test(text));
  for (const text of kitDirs)
    for (const sound of [...RESERVED_SOUNDS, ...TRAINING_SOUNDS]) assert.doesNotMatch(text, sound);
  if (fs.existsSync(HYDROGEN_KITS_DIR))
    for (const kit of fs.readdirSync(HYDROGEN_KITS_DIR))
      assert.doesNotMatch(
        kit,
        /GMRockKit/i,
        `${HYDROGEN_KITS_DIR}/${kit}: a reserved kit is installed beside the others`,
      );
  for (const kind of REQUIRED_KINDS)
    assert.ok(
      heldOut.some((f) => f.kind === kind),
      `no held-out family of the kind ${kind}, which the issues ask for`,
    );
  // A held-out family shares no package with a training family, but for hydrogen-drumkits' other kits.
  const training = new Set(FAMILIES.filter((f) => f.status === "training").flatMap((f) => f.packages));
  for (const family of heldOut)
    for (const pkg of family.packages)
      assert.ok(!training.has(pkg) || pkg === "hydrogen-drumkits", `${family.id} shares ${pkg} with training`);
});

test("Hydrogen's training kits read and sound, none played by a held-out family", async () => {
  needPackages();
  const heldOutKits = heldOut.map((f) => f.what).join("\n");
  for (const kit of HYDROGEN_TRAINING_KITS) {
    assert.ok(!heldOutKits.includes(kit.dir), `${kit.dir} is played by a held-out family`);
    const instruments = readInstruments(kit.dir);
    assert.ok(instruments.length >= 10, `${kit.dir}: ${instruments.length} instruments`);
    if (kit.gm) readKit(kit.dir); // throws where the kit has no kick, snare or closed hi-hat
    // Three instruments half a second apart: each half second sounds.
    const hits = instruments.slice(0, 3).map((instrument, i) => ({ instrument, time: 0.5 * i, velocity: 0.8 }));
    const [left, right] = await playInstruments(hits, 1.5 * SAMPLE_RATE);
    for (let i = 0; i < 3; i++) {
      const at = (i * SAMPLE_RATE) / 2;
      const peak = Math.max(
        ...left.subarray(at, at + SAMPLE_RATE / 2).map(Math.abs),
        ...right.subarray(at, at + SAMPLE_RATE / 2).map(Math.abs),
      );
      assert.ok(peak > 0.01, `${kit.dir}'s ${hits[i]?.instrument.name} is silent (peak ${peak})`);
    }
  }
});

test("the development plan plays no held-out score", () => {
  const heldOutLumps = new Set(SCORES.map(([lump]) => lump));
  // A lump whose name shares its first five letters with a held-out one (D_RUNNI2 beside D_RUNNIN) may be a
  // variant of the same music: none is used.
  const stem = (lump: string) => lump.slice(0, 7);
  const heldOutStems = new Set(SCORES.map(([lump]) => stem(lump)));
  for (const [lump] of DEVELOPMENT_SCORES) {
    assert.ok(!heldOutLumps.has(lump), `${lump} is held out`);
    assert.ok(!heldOutStems.has(stem(lump)), `${lump} echoes a held-out score's name`);
  }
  const heldOutIds = new Set(fullPlan().map((p) => p.id));
  // It plays the corpus', the training and the development families only, an amplifier chain among them.
  const tunable = new Set(
    FAMILIES.filter((f) => f.status === "corpus" || f.status === "training" || f.status === "development").map(
      (f) => f.id,
    ),
  );
  const plans = developmentPlan();
  for (const plan of plans) {
    assert.ok(!heldOutIds.has(plan.id), `${plan.id} is a held-out track`);
    for (const family of [...Object.values(plan.families), plan.mix])
      assert.ok(tunable.has(family), `${plan.id} is played by ${family}, not one to tune on`);
  }
  assert.ok(plans.some((plan) => plan.families["guitar-distorted"] === "caps-ampvts"));
  assert.ok(plans.some((plan) => plan.families.pads === "string-machine"));
});

test("the development plan's string machine plays its notes at their pitch, swelling in, chorused in stereo", () => {
  const length = 3 * SAMPLE_RATE;
  const [left, right] = playStringMachine([{ midi: 69, time: 0.2, duration: 1.2, velocity: 0.8 }], length, [1, 1]);
  // Power at a frequency over the held second (0.7–1.2 s), by correlation with a sine and a cosine.
  const power = (hz: number) => {
    let re = 0;
    let im = 0;
    for (let n = Math.round(0.7 * SAMPLE_RATE); n < 1.2 * SAMPLE_RATE; n++) {
      re += (left[n] as number) * Math.cos((2 * Math.PI * hz * n) / SAMPLE_RATE);
      im += (left[n] as number) * Math.sin((2 * Math.PI * hz * n) / SAMPLE_RATE);
    }
    return re * re + im * im;
  };
  assert.ok(power(440) > 100 * power(466.2), "A4 sounds at 440 Hz, not a semitone up");
  assert.ok(power(880) > 100 * power(932.3), "its 4' stop an octave up");
  const rms = (from: number, to: number) =>
    Math.sqrt(
      left.subarray(from * SAMPLE_RATE, to * SAMPLE_RATE).reduce((a, v) => a + v * v, 0) / ((to - from) * SAMPLE_RATE),
    );
  assert.ok(rms(0.2, 0.25) < 0.5 * rms(0.8, 1.2), "it swells in over its attack");
  assert.ok(rms(1.6, 1.7) < 0.9 * rms(0.8, 1.2), "it fades once let go (at 1.4 s)");
  assert.ok(rms(2.2, 2.3) < 0.01 * rms(0.8, 1.2), "and is silent past its 0.7 s release");
  const differ = left.reduce((a, v, n) => a + Math.abs(v - (right[n] as number)), 0);
  assert.ok(differ > 0.1 * left.reduce((a, v) => a + Math.abs(v), 0), "the ensemble chorus spreads it in stereo");
});

test("the families' Debian packages are installed", () => needPackages());

test("the quick tracks play every held-out family, and every part sounds", async () => {
  const tracks = await quickTracks();
  const played = new Set(tracks.flatMap((t) => [t.meta.mix, ...t.meta.parts.map((p) => p.family)]));
  const unplayed = heldOut.filter((f) => !played.has(f.id)).map((f) => f.id);
  assert.deepEqual(unplayed, [], "held-out families the quick tracks do not play");
  for (const track of tracks)
    for (const part of track.meta.parts) {
      const [left, right] = await readWav16(`${track.dir}/${part.file}`);
      const level = activeDb([left as Float32Array, right as Float32Array]);
      assert.ok(level > -45, `${track.id} ${part.file} (${part.family}): ${level.toFixed(1)} dBFS while it plays`);
    }
});

test("the quick tracks' stems add up to the mixture, and the truth from the score fits the audio", async () => {
  for (const track of await quickTracks()) {
    const { truth, meta } = track;
    const mix = await readWav16(track.mixture);
    const stems = await Promise.all(FOUR_STEM_NAMES.map((s) => readWav16(track.stems[s])));
    const frames = Math.round(truth.duration * 44100);
    assert.equal(mix[0]?.length, frames, `${track.id}: ${mix[0]?.length} frames for ${truth.duration} s`);
    let worst = 0;
    for (let c = 0; c < 2; c++)
      for (let i = 0; i < frames; i++) {
        const sum = stems.reduce((a, s) => a + ((s[c] as Float32Array)[i] as number), 0);
        worst = Math.max(worst, Math.abs(sum - ((mix[c] as Float32Array)[i] as number)));
      }
    assert.ok(worst <= 1 / 32768, `${track.id}: stems differ from the mixture by ${worst}`);
    for (const stem of meta.stemsPresent)
      assert.ok(
        meta.parts.some((p) => STEM_OF_SLOT[p.slot] === stem),
        `${track.id}: ${stem} is present without a part in it`,
      );
    // Beats: increasing, inside the audio, at the truth's tempo; bars numbered 1..beatsPerBar.
    const beats = truth.beats.map((b) => b.time);
    assert.ok(beats.length >= 8, `${track.id}: ${beats.length} beats`);
    assert.ok(
      beats.every((t, i) => t >= 0 && t < truth.duration && (i === 0 || t > (beats[i - 1] as number))),
      `${track.id}: beats outside [0, ${truth.duration}) or out of order`,
    );
    assert.ok(
      truth.beats.every((b) => b.beatNum >= 1 && b.beatNum <= truth.beatsPerBar),
      `${track.id}: a beat number outside 1..${truth.beatsPerBar}`,
    );
    const intervals = beats
      .slice(1)
      .map((t, i) => t - (beats[i] as number))
      .sort((a, b) => a - b);
    const median = intervals[Math.floor(intervals.length / 2)] as number;
    assert.ok(
      Math.abs(60 / median / truth.bpm - 1) < 0.02,
      `${track.id}: beats at ${60 / median} BPM, truth ${truth.bpm}`,
    );
    // Chords: contiguous from 0 to the end.
    assert.equal(truth.chords[0]?.start, 0, `${track.id}: chords start at ${truth.chords[0]?.start}`);
    assert.ok(Math.abs((truth.chords.at(-1)?.end ?? 0) - truth.duration) < 1e-6, `${track.id}: chords end early`);
    truth.chords.forEach((c, i) => {
      assert.ok(c.end > c.start, `${track.id}: empty chord span at ${c.start}`);
      if (i > 0)
        assert.ok(Math.abs(c.start - (truth.chords[i - 1]?.end ?? 0)) < 1e-6, `${track.id}: chord gap at ${c.start}`);
      assert.match(c.chord, /^(N|[A-G][#b]?m?)$/, `${track.id}: chord label ${c.chord}`);
    });
    assert.match(truth.key, /^[A-G][#b]? (major|minor)$/, `${track.id}: key ${truth.key}`);
    // Every note of the score starts inside the audio, and the last one before the end.
    const onsets = truth.parts.flatMap((p) => p.notes.map((n) => n.time));
    assert.ok(
      onsets.every((t) => t >= 0 && t < truth.duration),
      `${track.id}: a note outside the track`,
    );
  }
});

/**
 * Regression floors, not the issues' goals: the quick tracks' figures when the families were added, less a margin.
 * Measured (stems-4's twenty-first network; analyzeMusic with its confidence gate, which leaves a ten-second
 * metal or orchestral excerpt without a tempo, beats or key): mean over the held-out families, stems-4 network SDR
 * drums 3.22 dB (oracle 12.38), bass 0.99 (8.26; the waveguide bass scores −7.55), vocals 3.71 (12.21), other
 * 4.77 (11.81), floors 0.7 dB under; a sound alone 91.1 % in the stem it belongs in (the LMMS piano sample goes
 * 94 % to vocals), floor 88 %; guitars 1.1 % in drums (LMMS's distorted guitar 6 %), ceiling 3 %; analysis beat F
 * 0.32–0.38 (analyzeMusic changed between two runs), chord overlap 0.32, floors 0.1 under; on 2026-12-05, after
 * beats moved onto the louder onsets, beat F 0.376 (floor 0.27), sections' pairwise label F 0.752 (0.725 with
 * letters joined within 2.5 dB; floor 0.65)
 * and boundary F ±0.5 s 0.243 (floor 0.14); later that day, with the chord recogniser sharpened where a piece's triad
 * fits lie close (src/dsp/chords.ts), chord overlap 0.364 (floor 0.26). With the network of 2026-12-05 (the
 * twenty-first blended with the twenty-fourth at 0.35): drums 3.40, bass 1.55, vocals 4.04, other 4.92 dB, a sound
 * alone 90.5 % in its stem, guitars 2.3 % in drums (floors unchanged). On 2026-12-06, with beats moved onto kicks
 * halfway (src/dsp/beats.ts's onTheBeat): analysis beat F 0.459, chord overlap 0.356 (floors unchanged); later that
 * day, with an onset counting at most three loud hits in the metrical level (src/dsp/metrical-level.ts), both metal
 * excerpts read their tempo: beat F 0.635 (floor 0.5), chord overlap 0.357; last, with the bars' section features
 * clear of the next downbeat (src/dsp/section-features.ts): section boundary F 0.243, pairwise 0.797 (floors
 * unchanged); on 2026-12-07, with a lone first or last bar's edge weighed apart (src/dsp/section-novelty.ts):
 * 0.317 and 0.815. The issues' goals
 * (stems-4 ≥ 0.7 / 0.6 of the oracle, tempo and key right on most tracks) are far off here: docs/families.md.
 */
const SEPARATION_FLOORS: Record<FourStem, number> = { drums: 2.5, bass: 0.3, vocals: 3.0, other: 4.0 };
const ALONE_FLOORS = { inOwnStem: 0.88, guitarInDrumsAtMost: 0.03 };
const ANALYSIS_FLOORS = { beatF: 0.5, chordOverlap: 0.26, sectionPairwiseF: 0.65, sectionBoundaryF: 0.14 };

test("separation, a sound alone and analysis per family on the quick tracks stay above today's level", async (t) => {
  const scored: TrackFigures[] = [];
  for (const track of await quickTracks())
    scored.push(await scoreTrack(track, { separation: true, classical: false, alone: true, analysis: true }));
  const separation = separationByFamily(scored);
  for (const r of separation) {
    const s = r.bySeparator["stems-4 network"];
    if (s)
      t.diagnostic(
        `stems-4 network ${r.family} (${r.status}) ${r.stem}: ${s.target} / ${s.oracleTarget} dB = ${s.targetRatio} of the oracle, ${s.tracks} tracks`,
      );
  }
  const mean = heldOutSeparationMean(separation, false)["stems-4 network"] ?? {};
  t.diagnostic(`stems-4 network, mean over held-out families: ${JSON.stringify(mean)}`);
  const alone = aloneByFamily(scored);
  for (const r of alone)
    t.diagnostic(
      `alone ${r.family} (${r.stem}): ${FOUR_STEM_NAMES.map((s) => `${s} ${(100 * r.shares[s]).toFixed(0)} %`).join(", ")}`,
    );
  const aloneMean = heldOutAloneMean(alone);
  t.diagnostic(`alone, mean over held-out families: ${JSON.stringify(aloneMean)}`);
  const analysis = analysisByFamily(scored);
  for (const r of analysis) t.diagnostic(`analysis ${r.family} (${r.status}): ${JSON.stringify(r.summary)}`);
  const analysisMean = heldOutMean(analysis);
  t.diagnostic(`analysis, mean over held-out families: ${JSON.stringify(analysisMean)}`);

  for (const stem of FOUR_STEM_NAMES) {
    const m = mean[stem];
    assert.ok(m, `no held-out family played ${stem}`);
    const floor = SEPARATION_FLOORS[stem];
    assert.ok(m.sdr >= floor, `stems-4 network ${stem}: ${JSON.stringify(m)}, floor ${floor} dB`);
  }
  assert.ok(aloneMean.inOwnStem >= ALONE_FLOORS.inOwnStem, `alone: ${JSON.stringify(aloneMean)}`);
  assert.ok(aloneMean.guitarInDrums <= ALONE_FLOORS.guitarInDrumsAtMost, `alone: ${JSON.stringify(aloneMean)}`);
  for (const [key, floor] of Object.entries(ANALYSIS_FLOORS))
    assert.ok((analysisMean[key] as number) >= floor, `analysis ${key}: ${analysisMean[key]}, floor ${floor}`);
});
