/**
 * Test music with known ground truth (tempo, beats, downbeats, meter, key, chords) for the accuracy tests of
 * the music-analysis DSP. Deterministic: the same spec always gives the same samples.
 *
 * A track: `LEAD_IN_SECONDS` (0.1 s) of noise only, then drums (kick on 1 [and 3 in 4/4], snare on the
 * backbeats, closed hats on every beat plus soft off-beat hats below 110 BPM), a bass playing the chord root
 * in octave 2 on 1 [and 3], sustained (or, for "pluck", per-beat) triads around C4–C5 changing on bar lines,
 * and a quiet melody from the key's scale in octave 5; mixed to stereo, with noise added at `noiseDb`
 * relative to the mix RMS (scale-invariant, so the same as adding it after a first normalisation) and the
 * peak normalised to -1 dBFS.
 *
 * Tempo: linear in time from `bpm` at t = 0 to `bpm·(1 + drift/100)` at the end; beats integrate it.
 * `truth.bpm` is the tempo at the track's middle, which for a tempo linear in time is also its time-average.
 * Jitter moves each rendered onset (every drum hit and note, independently) by up to ±jitterMs; the truth
 * keeps the un-jittered grid.
 */

import { encodeWav16 } from "../../src/media/wav.ts";
import { planTrack } from "./plan.ts";
import {
  addNoise,
  addSample,
  type Envelope,
  hatSample,
  kickSample,
  panGains,
  peakOf,
  Rng,
  renderNote,
  rmsOf,
  scaleChannels,
  snareSample,
  wavetable,
} from "./synth.ts";
import { melodyScale, midiInRange, midiToHz, mod12, type Triad } from "./theory.ts";

export { suiteSpecs } from "./suite.ts";

export type Mode = "major" | "minor";

export interface TrackSpec {
  /** Deterministic PRNG seed. */
  seed: number;
  /** Tempo at the start, 60..200. */
  bpm: number;
  /** Beats per bar. */
  meter: 3 | 4;
  /** 20..40 s in the suite. */
  durationSeconds: number;
  /** Pitch class, 0 = C … 11 = B. */
  tonic: number;
  mode: Mode;
  /** Roman numerals in the key, one chord per bar (or per barsPerChord bars), cycled. */
  progression: string[];
  /** Default 1. */
  barsPerChord?: 1 | 2;
  /** Each rendered onset moves uniformly within ±jitterMs (≤ 10). */
  jitterMs: number;
  /** Linear tempo drift over the track: end tempo = bpm·(1 + drift/100). */
  tempoDriftPercent: number;
  /** Noise RMS relative to the mix RMS, dB (e.g. -40..-20). */
  noiseDb: number;
  /** Timbre family of chords and bass. */
  timbre: "sine" | "organ" | "saw" | "pluck";
  /** Default 44100. */
  sampleRate?: number;
}

export interface GroundTruth {
  /** The tempo at the track's middle; with the linear drift this equals the time-averaged tempo. */
  bpm: number;
  /** Every beat onset inside the track (seconds, before jitter); beatNum 1..meter, 1 = downbeat. */
  beats: { time: number; beatNum: number }[];
  /** Contiguous segments from 0 to the duration; "N" for the lead-in; equal neighbours merged. */
  chords: { start: number; end: number; chord: string }[];
  /** E.g. "C major", "F# major", "Eb minor". */
  key: string;
  meter: 3 | 4;
}

export interface Track {
  sampleRate: number;
  channels: [Float32Array, Float32Array];
  truth: GroundTruth;
}

type Timbre = TrackSpec["timbre"];

interface Voice {
  harmonics: number[];
  envelope: Envelope;
  /** Detuned copies (cents) played together, for width. */
  detune: number[];
}

function series(count: number, amplitude: (n: number) => number): number[] {
  return Array.from({ length: count }, (_, i) => amplitude(i + 1));
}

const CHORD_VOICES: Record<Timbre, Voice> = {
  sine: {
    harmonics: [1, 0.06, 0.02],
    envelope: { attack: 0.02, decay: 0.9, sustain: 0.65, release: 0.05 },
    detune: [0],
  },
  organ: {
    harmonics: [1, 0.7, 0.45, 0.35, 0, 0.2, 0, 0.14],
    envelope: { attack: 0.012, decay: 0, sustain: 1, release: 0.04 },
    detune: [0],
  },
  saw: {
    harmonics: series(18, (n) => Math.exp(-n / 10) / n),
    envelope: { attack: 0.015, decay: 1.2, sustain: 0.55, release: 0.06 },
    detune: [-5, 5],
  },
  pluck: {
    harmonics: series(14, (n) => 1 / n ** 1.25),
    envelope: { attack: 0.003, decay: 0.3, sustain: 0, release: 0.03 },
    detune: [0],
  },
};

/**
 * Bass harmonics 5 and 7 (a major third and a flat seventh above the root, two octaves up) are kept low, as in
 * a drawbar voicing, so the bass reinforces the root and fifth and adds no wrong third to minor chords.
 */
function bassHarmonics(count: number, amplitude: (n: number) => number): number[] {
  return series(count, (n) => amplitude(n) * (n === 5 || n === 7 ? 0.2 : 1));
}

const BASS_VOICES: Record<Timbre, Voice> = {
  sine: {
    harmonics: [1, 0.6, 0.35, 0.2],
    envelope: { attack: 0.006, decay: 0.4, sustain: 0.7, release: 0.03 },
    detune: [0],
  },
  organ: {
    harmonics: [1, 0.8, 0.5, 0.3, 0, 0.1],
    envelope: { attack: 0.006, decay: 0, sustain: 1, release: 0.03 },
    detune: [0],
  },
  saw: {
    harmonics: bassHarmonics(12, (n) => Math.exp(-n / 5) / n),
    envelope: { attack: 0.005, decay: 0.35, sustain: 0.6, release: 0.03 },
    detune: [0],
  },
  pluck: {
    harmonics: bassHarmonics(10, (n) => 1 / n ** 1.4),
    envelope: { attack: 0.003, decay: 0.45, sustain: 0.2, release: 0.03 },
    detune: [0],
  },
};

const MELODY_VOICE: Voice = {
  harmonics: [1, 0.25, 0.08],
  envelope: { attack: 0.01, decay: 0.35, sustain: 0.45, release: 0.05 },
  detune: [0],
};

/** Rhythms of the melody within a bar, in beats from the downbeat. */
const MELODY_RHYTHMS: Record<3 | 4, number[][]> = {
  4: [
    [0, 1, 2, 3],
    [0, 2],
    [0, 1, 1.5, 2, 3],
    [0, 2, 3],
    [0, 1, 2],
    [0, 0.5, 1, 2, 3],
  ],
  3: [[0, 1, 2], [0, 2], [0], [0, 1, 1.5, 2], [0, 1]],
};

const LEVELS = {
  kick: 0.9,
  kickBeat3: 0.6,
  snare: 0.5,
  hat: 0.16,
  hatDownbeat: 0.22,
  hatOffbeat: 0.08,
  bass: 0.32,
  chordVoice: 0.1,
  melody: 0.06,
};

const PEAK_DBFS = -1;

/** An independent PRNG stream per concern, so e.g. the jitter does not change the melody. */
function stream(seed: number, index: number): Rng {
  return new Rng((Math.imul(Math.trunc(seed) | 0, 0x9e3779b1) ^ Math.imul(index + 1, 0x85ebca6b)) >>> 0);
}

export function generateTrack(spec: TrackSpec): Track {
  const plan = planTrack(spec);
  const { sampleRate, tempo, meter, bars, duration } = plan;
  const left = new Float32Array(plan.frames);
  const right = new Float32Array(plan.frames);
  const sound = stream(spec.seed, 0);
  const timing = stream(spec.seed, 1);
  const dynamics = stream(spec.seed, 2);
  const composing = stream(spec.seed, 3);
  const jitter = (): number => timing.uniform(-spec.jitterMs, spec.jitterMs) / 1000;
  const sampleAt = (time: number): number => Math.max(0, Math.round(time * sampleRate));
  const onsetAt = (phase: number): number => sampleAt(tempo.timeAt(phase) + jitter());

  // Drums.
  const kick = kickSample(sampleRate, sound);
  const snare = snareSample(sampleRate, sound);
  const hat = hatSample(sampleRate, sound);
  const [kickL, kickR] = panGains(0);
  const [snareL, snareR] = panGains(-0.1);
  const [hatL, hatR] = panGains(0.3);
  const offbeatHats = spec.bpm < 110;
  for (let k = 0; k < plan.beatCount; k++) {
    const inBar = k % meter;
    if (inBar === 0 || (meter === 4 && inBar === 2)) {
      const gain = (inBar === 0 ? LEVELS.kick : LEVELS.kickBeat3) * dynamics.uniform(0.95, 1);
      addSample(left, right, kick, onsetAt(k), kickL * gain, kickR * gain);
    }
    if (meter === 4 ? inBar === 1 || inBar === 3 : inBar === 1 || inBar === 2) {
      const gain = LEVELS.snare * dynamics.uniform(0.92, 1);
      addSample(left, right, snare, onsetAt(k), snareL * gain, snareR * gain);
    }
    const hatGain = (inBar === 0 ? LEVELS.hatDownbeat : LEVELS.hat) * dynamics.uniform(0.85, 1);
    addSample(left, right, hat, onsetAt(k), hatL * hatGain, hatR * hatGain);
    if (offbeatHats && tempo.timeAt(k + 0.5) < duration) {
      const gain = LEVELS.hatOffbeat * dynamics.uniform(0.8, 1);
      addSample(left, right, hat, onsetAt(k + 0.5), hatL * gain, hatR * gain);
    }
  }

  // Bass: the chord root in E1..D#2 (41–78 Hz) on beat 1 (and 3 in 4/4), each lasting to the next.
  const bassVoice = BASS_VOICES[spec.timbre];
  const bassTable = wavetable(bassVoice.harmonics);
  const bassNotes: { start: number; chord: Triad }[] = [];
  for (const bar of bars) {
    for (const offset of meter === 4 ? [0, 2] : [0]) {
      if (bar.phase + offset < plan.beatCount) bassNotes.push({ start: onsetAt(bar.phase + offset), chord: bar.chord });
    }
  }
  const bassRelease = Math.round(bassVoice.envelope.release * sampleRate);
  const [bassL, bassR] = panGains(0, LEVELS.bass);
  bassNotes.forEach((note, i) => {
    const next = bassNotes[i + 1]?.start ?? plan.frames;
    renderNote(
      left,
      right,
      {
        table: bassTable,
        frequency: midiToHz(midiInRange(note.chord.root, 28)),
        start: note.start,
        hold: next - note.start - bassRelease,
        envelope: bassVoice.envelope,
        gainLeft: bassL * dynamics.uniform(0.9, 1),
        gainRight: bassR * dynamics.uniform(0.9, 1),
        phase: sound.next(),
      },
      sampleRate,
    );
  });

  // Chords: a triad voiced in C4..B4, sustained for the bar, or re-struck on every beat for "pluck".
  const chordVoice = CHORD_VOICES[spec.timbre];
  const chordTable = wavetable(chordVoice.harmonics);
  const chordRelease = chordVoice.envelope.release;
  const voicePans = [-0.35, -0.1, 0.2];
  for (const bar of bars) {
    const strikes = spec.timbre === "pluck" ? Array.from({ length: meter }, (_, i) => i) : [0];
    const pitches = bar.chord.pitchClasses.map((pc) => midiInRange(pc, 60)).sort((a, b) => a - b);
    for (const strike of strikes) {
      const phase = bar.phase + strike;
      if (phase >= plan.beatCount) break;
      const nextPhase = spec.timbre === "pluck" ? phase + 1 : bar.phase + meter;
      const endTime = Math.min(duration, tempo.timeAt(nextPhase)) - chordRelease;
      const accent = strike === 0 ? 1 : 0.8;
      pitches.forEach((midi, voice) => {
        const start = onsetAt(phase);
        const [gainLeft, gainRight] = panGains(
          voicePans[voice] ?? 0,
          (LEVELS.chordVoice * accent * dynamics.uniform(0.9, 1)) / Math.sqrt(chordVoice.detune.length),
        );
        for (const cents of chordVoice.detune) {
          renderNote(
            left,
            right,
            {
              table: chordTable,
              frequency: midiToHz(midi + cents / 100),
              start,
              hold: sampleAt(endTime) - start,
              envelope: chordVoice.envelope,
              gainLeft,
              gainRight,
              phase: sound.next(),
            },
            sampleRate,
          );
        }
      });
    }
  }

  // Melody: chord tones on strong beats, steps through the key's scale in between, in C5..C6.
  const melodyTable = wavetable(MELODY_VOICE.harmonics);
  const [melodyL, melodyR] = panGains(0.3, LEVELS.melody);
  const tonicPc = mod12(spec.tonic);
  let previous = 76;
  for (const bar of bars) {
    const rhythm = composing.pick(MELODY_RHYTHMS[meter]);
    const scale = melodyScale(spec.tonic, spec.mode, bar.chord);
    const inRange = (pcs: readonly number[]): number[] => {
      const notes: number[] = [];
      for (let midi = 72; midi <= 84; midi++) if (pcs.includes(mod12(midi))) notes.push(midi);
      return notes;
    };
    const chordTones = inRange(bar.chord.pitchClasses);
    const scaleTones = inRange(scale);
    rhythm.forEach((offset, i) => {
      const phase = bar.phase + offset;
      const time = tempo.timeAt(phase);
      if (phase >= plan.beatCount || time >= duration) return;
      const strong = offset === 0 || (meter === 4 && offset === 2);
      let midi: number;
      if (strong) {
        const byDistance = [...chordTones].sort((a, b) => Math.abs(a - previous) - Math.abs(b - previous));
        const tonicNote = byDistance.find((m) => mod12(m) === tonicPc);
        if (tonicNote !== undefined && composing.next() < 0.35) midi = tonicNote;
        else midi = byDistance[composing.next() < 0.7 ? 0 : 1] ?? previous;
      } else {
        if (composing.next() < 0.15) return; // a rest
        let index = scaleTones.findIndex((m) => m >= previous);
        if (index < 0) index = scaleTones.length - 1;
        const towardsCentre = previous < 78 ? 1 : -1;
        const step = (composing.next() < 0.65 ? towardsCentre : -towardsCentre) * (composing.next() < 0.8 ? 1 : 2);
        midi = scaleTones[Math.min(scaleTones.length - 1, Math.max(0, index + step))] ?? previous;
      }
      previous = midi;
      const nextOffset = rhythm[i + 1] ?? meter;
      const start = sampleAt(time + jitter());
      const end = sampleAt(Math.min(duration, time + 0.85 * (tempo.timeAt(bar.phase + nextOffset) - time)));
      const velocity = (strong ? 1 : 0.8) * dynamics.uniform(0.85, 1);
      renderNote(
        left,
        right,
        {
          table: melodyTable,
          frequency: midiToHz(midi),
          start,
          hold: end - start,
          envelope: MELODY_VOICE.envelope,
          gainLeft: melodyL * velocity,
          gainRight: melodyR * velocity,
          phase: sound.next(),
        },
        sampleRate,
      );
    });
  }

  // Master: noise relative to the mix RMS, peak to -1 dBFS, a 20 ms fade at the very end.
  const channels: [Float32Array, Float32Array] = [left, right];
  const target = 10 ** (PEAK_DBFS / 20);
  // The noise is relative to the mix RMS, which does not depend on the mix's scale: add it, then normalise once.
  if (spec.noiseDb > -Infinity) {
    addNoise(channels, rmsOf(channels) * 10 ** (spec.noiseDb / 20), sound.next() < 0.5, sound);
  }
  const peak = peakOf(channels);
  if (peak > 0) scaleChannels(channels, target / peak);
  const fade = Math.min(plan.frames, Math.round(0.02 * sampleRate));
  for (let n = 0; n < fade; n++) {
    const i = plan.frames - 1 - n;
    const gain = n / fade;
    left[i] = (left[i] as number) * gain;
    right[i] = (right[i] as number) * gain;
  }

  return { sampleRate, channels, truth: plan.truth };
}

/** 16-bit PCM WAV bytes of the stereo mix. */
export const encodeWav = (track: Track): Buffer => encodeWav16(track.channels, track.sampleRate);
