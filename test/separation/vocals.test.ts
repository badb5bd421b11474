import assert from "node:assert/strict";
import { test } from "node:test";
import { istft, magnitudes, stft } from "../../src/dsp/spectrogram.ts";
import { analysisSize } from "../../src/modules/stems-shared/masked-stem.ts";
import { vocalsByRepetSim } from "../../src/modules/stems-vocals/index.ts";
import { sdr } from "../helpers/sdr.ts";
import { accompanimentLoop, type Stereo } from "./signals.ts";
import { espeakVoice } from "./voice.ts";

const SAMPLE_RATE = 44100;
const SECONDS = 24;

interface Figures {
  vocals: number;
  accompaniments: number;
  oracleVocals: number;
  oracleAccompaniments: number;
  /** SDR of the mixture × 0.5 taken as each stem (SDR is scale-invariant: the mixture itself). */
  baselineVocals: number;
  baselineAccompaniments: number;
}

const subtract = (a: readonly Float32Array[], b: readonly Float32Array[]) =>
  a.map((channel, c) => channel.map((v, i) => v - ((b[c] as Float32Array)[i] as number)));

function evaluate(voice: Float32Array[], accompaniment: Float32Array[]): Figures {
  const mix = voice.map((channel, c) => channel.map((v, i) => v + ((accompaniment[c] as Float32Array)[i] as number)));
  const vocals = vocalsByRepetSim({ sampleRate: SAMPLE_RATE, channels: mix });
  const { fftSize, hop } = analysisSize(SAMPLE_RATE);
  const oracle = mix.map((channel, c) => {
    const v = magnitudes(stft(voice[c] as Float32Array, fftSize, hop));
    const a = magnitudes(stft(accompaniment[c] as Float32Array, fftSize, hop));
    const mask = v.map((x, i) => (x * x + (a[i] as number) ** 2 > 0 ? (x * x) / (x * x + (a[i] as number) ** 2) : 0.5));
    return istft(stft(channel, fftSize, hop), mask);
  });
  const half = mix.map((channel) => channel.map((v) => v * 0.5));
  return {
    vocals: sdr(vocals, voice),
    accompaniments: sdr(subtract(mix, vocals), accompaniment),
    oracleVocals: sdr(oracle, voice),
    oracleAccompaniments: sdr(subtract(mix, oracle), accompaniment),
    baselineVocals: sdr(half, voice),
    baselineAccompaniments: sdr(half, accompaniment),
  };
}

const describe = (f: Figures) =>
  `vocals ${f.vocals.toFixed(2)} dB (oracle ${f.oracleVocals.toFixed(2)}, ratio ${(f.vocals / f.oracleVocals).toFixed(2)}, ` +
  `mixture×0.5 ${f.baselineVocals.toFixed(2)}); accompaniments ${f.accompaniments.toFixed(2)} dB (oracle ` +
  `${f.oracleAccompaniments.toFixed(2)}, ratio ${(f.accompaniments / f.oracleAccompaniments).toFixed(2)}, ` +
  `mixture×0.5 ${f.baselineAccompaniments.toFixed(2)})`;

test("REPET-SIM + centre extraction separates an espeak-ng voice from a repeating accompaniment", async (t) => {
  const voice = await espeakVoice(SECONDS, SAMPLE_RATE, 1.2);
  const accompaniment: Stereo = accompanimentLoop(SECONDS, SAMPLE_RATE, 3);
  const stereoFigures = evaluate(voice, accompaniment);
  t.diagnostic(`stereo: ${describe(stereoFigures)}`);
  // Both stems gain at least 3 dB over handing back the (halved) mixture.
  assert.ok(stereoFigures.vocals >= stereoFigures.baselineVocals + 3, describe(stereoFigures));
  assert.ok(stereoFigures.accompaniments >= stereoFigures.baselineAccompaniments + 3, describe(stereoFigures));

  // Mono: no centre to extract, REPET-SIM alone.
  const mono = (s: Stereo) => [s[0].map((v, i) => (v + (s[1][i] as number)) / 2)];
  const monoFigures = evaluate(mono(voice), mono(accompaniment));
  t.diagnostic(`mono: ${describe(monoFigures)}`);
  assert.ok(monoFigures.vocals >= monoFigures.baselineVocals + 3, describe(monoFigures));
  assert.ok(monoFigures.accompaniments >= monoFigures.baselineAccompaniments + 3, describe(monoFigures));
});
