/**
 * The separation scoring shared by test/corpus/separation.test.ts and test/corpus/separation-report.ts: each
 * classical separator on one rendered track against its true stems. SDR is test/helpers/sdr.ts's (BSS-eval's
 * projection without the distortion filter, i.e. SI-SDR); the oracle is the ideal ratio mask
 * |S|² / (|S|² + |R|²) of the true stems on the same STFT as the method's.
 */
import { istft, magnitudes, stft } from "../../src/dsp/spectrogram.ts";
import { fourStemsClassical, fourStemsNetwork } from "../../src/modules/stems-4/index.ts";
import { drumsByHpss } from "../../src/modules/stems-drums/index.ts";
import { analysisSize } from "../../src/modules/stems-shared/masked-stem.ts";
import { vocalsByRepetSim } from "../../src/modules/stems-vocals/index.ts";
import { sdr } from "../helpers/sdr.ts";
import { type RenderedTrack, renderedCorpus, type Split } from "./corpus.ts";
import { readWav16 } from "./wav16.ts";

export const SAMPLE_RATE = 44100;
/**
 * Every TRACK_STEP-th track of each split (separation costs ~2 s of CPU a track, ten times the analysis);
 * CORPUS_SEPARATION_STEP=1 evaluates every track (figures only).
 */
export const TRACK_STEP = 10;

export type Stereo = Float32Array[];
export type FourStem = "drums" | "bass" | "vocals" | "other";
export const FOUR_STEM_NAMES: readonly FourStem[] = ["drums", "bass", "vocals", "other"];

const add = (...parts: Stereo[]): Stereo =>
  (parts[0] as Stereo).map((_, c) => {
    const out = new Float32Array((parts[0] as Stereo)[c]?.length ?? 0);
    for (const part of parts) {
      const channel = part[c] as Float32Array;
      for (let i = 0; i < out.length; i++) out[i] = (out[i] as number) + (channel[i] as number);
    }
    return out;
  });
export const subtract = (a: Stereo, b: Stereo): Stereo =>
  a.map((channel, c) => channel.map((v, i) => v - ((b[c] as Float32Array)[i] as number)));

/** The target's stem by the oracle ideal ratio mask, channel by channel. */
function oracle(mix: Stereo, target: Stereo, rest: Stereo): Stereo {
  const { fftSize, hop } = analysisSize(SAMPLE_RATE);
  return mix.map((channel, c) => {
    const t = magnitudes(stft(target[c] as Float32Array, fftSize, hop));
    const r = magnitudes(stft(rest[c] as Float32Array, fftSize, hop));
    const mask = t.map((v, i) => {
      const power = v * v + (r[i] as number) ** 2;
      return power > 0 ? (v * v) / power : 0.5;
    });
    return istft(stft(channel, fftSize, hop), mask);
  });
}

export interface Figures {
  target: number;
  rest: number;
  oracleTarget: number;
  oracleRest: number;
  /** The mixture itself taken as each stem: what a separator must beat. */
  mixtureTarget: number;
  mixtureRest: number;
}

export function figures(mix: Stereo, target: Stereo, rest: Stereo, estimate: Stereo): Figures {
  const ideal = oracle(mix, target, rest);
  return {
    target: sdr(estimate, target),
    rest: sdr(subtract(mix, estimate), rest),
    oracleTarget: sdr(ideal, target),
    oracleRest: sdr(subtract(mix, ideal), rest),
    mixtureTarget: sdr(mix, target),
    mixtureRest: sdr(mix, rest),
  };
}

export interface TrackFigures {
  /** stems-4 by its default method, Mixdown's network. */
  stems4: Record<FourStem, Figures>;
  /** stems-4 with method "classical". */
  stems4Classical: Record<FourStem, Figures>;
  /** stems-drums: drums vs bass + vocals + other. */
  drums: Figures;
  /** stems-vocals-accompaniment: the voice line vs everything else. */
  vocals: Figures;
}

/** Every separator on one track. */
export async function separate(track: RenderedTrack): Promise<TrackFigures> {
  const [mix, drums, bass, vocals, other] = (await Promise.all(
    [track.mixture, track.stems.drums, track.stems.bass, track.stems.vocals, track.stems.other].map((f) =>
      readWav16(f),
    ),
  )) as Stereo[];
  const m = mix as Stereo;
  const pcm = { sampleRate: SAMPLE_RATE, channels: m };
  const sources = { drums, bass, vocals, other } as Record<FourStem, Stereo>;
  const scored = (four: Record<FourStem, Stereo>) =>
    Object.fromEntries(
      FOUR_STEM_NAMES.map((name) => [name, figures(m, sources[name], subtract(m, sources[name]), four[name])]),
    ) as Record<FourStem, Figures>;
  return {
    stems4: scored(await fourStemsNetwork(pcm)),
    stems4Classical: scored(fourStemsClassical(pcm)),
    drums: figures(m, drums as Stereo, add(bass as Stereo, vocals as Stereo, other as Stereo), drumsByHpss(pcm)),
    vocals: figures(m, vocals as Stereo, add(drums as Stereo, bass as Stereo, other as Stereo), vocalsByRepetSim(pcm)),
  };
}

export const round2 = (x: number): number => Math.round(x * 100) / 100;

/** Mean SDRs of a list of tracks' figures, and their ratios to the oracle's. */
export function summary(list: Figures[]) {
  const mean = (pick: (f: Figures) => number) => list.reduce((a, f) => a + pick(f), 0) / list.length;
  const target = mean((f) => f.target);
  const rest = mean((f) => f.rest);
  const oracleTarget = mean((f) => f.oracleTarget);
  const oracleRest = mean((f) => f.oracleRest);
  return {
    mixtureAsTarget: round2(mean((f) => f.mixtureTarget)),
    mixtureAsRest: round2(mean((f) => f.mixtureRest)),
    target: round2(target),
    oracleTarget: round2(oracleTarget),
    targetRatio: round2(target / oracleTarget),
    rest: round2(rest),
    oracleRest: round2(oracleRest),
    restRatio: round2(rest / oracleRest),
  };
}

export type StemsFourSummary = Record<FourStem, { sdr: number; oracle: number; ratio: number; mixture: number }>;

/** stems-4's summary per stem. */
export function stemsFourSummary(four: Record<FourStem, Figures[]>): StemsFourSummary {
  return Object.fromEntries(
    Object.entries(four).map(([name, list]) => {
      const { target, oracleTarget, targetRatio, mixtureAsTarget } = summary(list);
      return [name, { sdr: target, oracle: oracleTarget, ratio: targetRatio, mixture: mixtureAsTarget }];
    }),
  ) as StemsFourSummary;
}

export interface SplitFigures {
  tracks: number;
  drums: ReturnType<typeof summary>;
  vocals: ReturnType<typeof summary>;
  stems4: StemsFourSummary;
  stems4Classical: StemsFourSummary;
}

/** Whether a track is one of every `step`-th of its split (the first, the (step + 1)-th, …): the tracks scored. */
export const isScored = (id: string, step: number): boolean => (Number(id.slice(-3)) - 1) % step === 0;

/** Every `step`-th track of a split, scored; `log` receives a line per track. */
export async function scoreSplit(split: Split, step: number, log: (line: string) => void): Promise<SplitFigures> {
  const tracks = await renderedCorpus(split, (spec) => isScored(spec.id, step));
  const drums: Figures[] = [];
  const vocals: Figures[] = [];
  const four: Record<FourStem, Figures[]> = { drums: [], bass: [], vocals: [], other: [] };
  const fourClassical: Record<FourStem, Figures[]> = { drums: [], bass: [], vocals: [], other: [] };
  for (const track of tracks) {
    const r = await separate(track);
    drums.push(r.drums);
    vocals.push(r.vocals);
    for (const name of FOUR_STEM_NAMES) {
      four[name].push(r.stems4[name]);
      fourClassical[name].push(r.stems4Classical[name]);
    }
    const fixed = (f: Figures) => Object.fromEntries(Object.entries(f).map(([k, v]) => [k, round2(v)]));
    log(`${track.id} (${track.truth.groove}): ${JSON.stringify({ drums: fixed(r.drums), vocals: fixed(r.vocals) })}`);
    for (const [method, stems] of [
      ["network", r.stems4],
      ["classical", r.stems4Classical],
    ] as const) {
      log(
        `${track.id} stems-4 ${method} (estimate / oracle dB): ${Object.entries(stems)
          .map(([name, f]) => `${name} ${f.target.toFixed(2)} / ${f.oracleTarget.toFixed(2)}`)
          .join(", ")}`,
      );
    }
  }
  return {
    tracks: tracks.length,
    drums: summary(drums),
    vocals: summary(vocals),
    stems4: stemsFourSummary(four),
    stems4Classical: stemsFourSummary(fourClassical),
  };
}
