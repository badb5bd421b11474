/**
 * The separation scoring shared by test/corpus/separation.test.ts and test/corpus/separation-report.ts: stems-4's
 * network and each classical separator on one rendered track against its true stems. SDR is test/helpers/sdr.ts's (BSS-eval's
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
 * The classical separators are scored on every TRACK_STEP-th track of each split (about 9 s a track, with the
 * oracles and figures); CORPUS_SEPARATION_STEP=1 scores them on every track (figures only). The network is scored
 * on every track (about 6 s a track): its figures on every 10th track strayed by up to 0.4 of the oracle.
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

interface TrackAudio {
  mix: Stereo;
  sources: Record<FourStem, Stereo>;
}

async function readTrack(track: RenderedTrack): Promise<TrackAudio> {
  const [mix, drums, bass, vocals, other] = (await Promise.all(
    [track.mixture, track.stems.drums, track.stems.bass, track.stems.vocals, track.stems.other].map((f) =>
      readWav16(f),
    ),
  )) as Stereo[];
  return { mix: mix as Stereo, sources: { drums, bass, vocals, other } as Record<FourStem, Stereo> };
}

/** Each of four estimated stems against its true stem. */
const scoreFour = ({ mix, sources }: TrackAudio, four: Record<FourStem, Stereo>) =>
  Object.fromEntries(
    FOUR_STEM_NAMES.map((name) => [name, figures(mix, sources[name], subtract(mix, sources[name]), four[name])]),
  ) as Record<FourStem, Figures>;

/** stems-4 by its default method, Mixdown's network, on one track. */
export async function separateByNetwork(track: RenderedTrack): Promise<Record<FourStem, Figures>> {
  const audio = await readTrack(track);
  return scoreFour(audio, await fourStemsNetwork({ sampleRate: SAMPLE_RATE, channels: audio.mix }));
}

export interface ClassicalFigures {
  /** stems-4 with method "classical". */
  stems4: Record<FourStem, Figures>;
  /** stems-drums: drums vs bass + vocals + other. */
  drums: Figures;
  /** stems-vocals-accompaniment: the voice line vs everything else. */
  vocals: Figures;
}

/** The classical separators on one track. */
export async function separateClassically(track: RenderedTrack): Promise<ClassicalFigures> {
  const audio = await readTrack(track);
  const { mix, sources } = audio;
  const { drums, bass, vocals, other } = sources;
  const pcm = { sampleRate: SAMPLE_RATE, channels: mix };
  return {
    stems4: scoreFour(audio, fourStemsClassical(pcm)),
    drums: figures(mix, drums, add(bass, vocals, other), drumsByHpss(pcm)),
    vocals: figures(mix, vocals, add(drums, bass, other), vocalsByRepetSim(pcm)),
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

/** Whether a track is one of every `step`-th of its split (the first, the (step + 1)-th, …): the tracks scored. */
export const isScored = (id: string, step: number): boolean => (Number(id.slice(-3)) - 1) % step === 0;

const fixed = (f: Figures) => Object.fromEntries(Object.entries(f).map(([k, v]) => [k, round2(v)]));
const stemLine = (stems: Record<FourStem, Figures>) =>
  Object.entries(stems)
    .map(([name, f]) => `${name} ${f.target.toFixed(2)} / ${f.oracleTarget.toFixed(2)}`)
    .join(", ");

/** stems-4's network on every `step`-th track of a split; `log` receives a line per track. */
export async function scoreNetwork(
  split: Split,
  step: number,
  log: (line: string) => void,
): Promise<{ tracks: number; stems4: StemsFourSummary }> {
  const tracks = await renderedCorpus(split, (spec) => isScored(spec.id, step));
  const four: Record<FourStem, Figures[]> = { drums: [], bass: [], vocals: [], other: [] };
  for (const track of tracks) {
    const stems = await separateByNetwork(track);
    for (const name of FOUR_STEM_NAMES) four[name].push(stems[name]);
    log(`${track.id} stems-4 network (estimate / oracle dB): ${stemLine(stems)}`);
  }
  return { tracks: tracks.length, stems4: stemsFourSummary(four) };
}

export interface ClassicalSplitFigures {
  tracks: number;
  drums: ReturnType<typeof summary>;
  vocals: ReturnType<typeof summary>;
  stems4: StemsFourSummary;
}

/** The classical separators on every `step`-th track of a split; `log` receives lines per track. */
export async function scoreClassical(
  split: Split,
  step: number,
  log: (line: string) => void,
): Promise<ClassicalSplitFigures> {
  const tracks = await renderedCorpus(split, (spec) => isScored(spec.id, step));
  const drums: Figures[] = [];
  const vocals: Figures[] = [];
  const four: Record<FourStem, Figures[]> = { drums: [], bass: [], vocals: [], other: [] };
  for (const track of tracks) {
    const r = await separateClassically(track);
    drums.push(r.drums);
    vocals.push(r.vocals);
    for (const name of FOUR_STEM_NAMES) four[name].push(r.stems4[name]);
    log(`${track.id} (${track.truth.groove}): ${JSON.stringify({ drums: fixed(r.drums), vocals: fixed(r.vocals) })}`);
    log(`${track.id} stems-4 classical (estimate / oracle dB): ${stemLine(r.stems4)}`);
  }
  return { tracks: tracks.length, drums: summary(drums), vocals: summary(vocals), stems4: stemsFourSummary(four) };
}
