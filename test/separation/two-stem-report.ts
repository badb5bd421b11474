/**
 * stems-drums and stems-vocals-accompaniment by their classical methods and by Mixdown's network, on material
 * made otherwise than the corpus: synthesised drums over a synthesised harmony, and an espeak-ng voice over a
 * repeating loop (three loops). Prints each stem's SDR gain over the mixture (dB); the corpus figures come from
 * test/corpus/separation-report.ts. Run: node test/separation/two-stem-report.ts
 */
import { drumsByHpss } from "../../src/modules/stems-drums/index.ts";
import { networkStems } from "../../src/modules/stems-shared/network.ts";
import { vocalsByRepetSim } from "../../src/modules/stems-vocals/index.ts";
import { subtract } from "../corpus/separation-scoring.ts";
import { sdr } from "../helpers/sdr.ts";
import { accompanimentLoop, drumsAndHarmony, sum } from "./signals.ts";
import { espeakVoice } from "./voice.ts";

const RATE = 44100;
const gains = (stem: Float32Array[], mix: Float32Array[], target: Float32Array[], rest: Float32Array[]) =>
  `${(sdr(stem, target) - sdr(mix, target)).toFixed(2)} dB, rest ${(sdr(subtract(mix, stem), rest) - sdr(mix, rest)).toFixed(2)} dB`;

for (const seed of [21, 22, 23]) {
  const { drums, harmony } = drumsAndHarmony(8, RATE, seed);
  const mix = sum(drums, harmony);
  const pcm = { sampleRate: RATE, channels: mix };
  console.log(`drums ${seed}: hpss ${gains(drumsByHpss(pcm), mix, drums, harmony)}`);
  console.log(`drums ${seed}: network ${gains((await networkStems(pcm, ["drums"])).drums, mix, drums, harmony)}`);
}
const voice = await espeakVoice(16, RATE, 1.2);
for (const seed of [23, 24, 25]) {
  const loop = accompanimentLoop(16, RATE, seed);
  const mix = sum(voice, loop);
  const pcm = { sampleRate: RATE, channels: mix };
  console.log(`vocals ${seed}: repet-sim ${gains(vocalsByRepetSim(pcm), mix, voice, loop)}`);
  console.log(`vocals ${seed}: network ${gains((await networkStems(pcm, ["vocals"])).vocals, mix, voice, loop)}`);
}
