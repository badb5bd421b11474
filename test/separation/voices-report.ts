/**
 * stems-4's network on espeak-ng voices other than the tests' en-us: male and female variants and a British
 * voice, each over the same repeating loop. Prints the vocals' SDR, its gain over the mixture and the oracle's
 * SDR (dB; test/corpus/separation-scoring.ts), and REPET-SIM's gain for comparison. Training never hears espeak-ng.
 * Run: node test/separation/voices-report.ts
 */
import { networkStems } from "../../src/modules/stems-shared/network.ts";
import { vocalsByRepetSim } from "../../src/modules/stems-vocals/index.ts";
import { figures } from "../corpus/separation-scoring.ts";
import { accompanimentLoop, sum } from "./signals.ts";
import { espeakVoice } from "./voice.ts";

const RATE = 44100;
const SECONDS = 16;
const VOICES = ["en-us", "en-us+m3", "en-gb", "en-us+f2", "en+f3", "en-us+f4"];

const loop = accompanimentLoop(SECONDS, RATE, 3);
for (const name of VOICES) {
  const voice = await espeakVoice(SECONDS, RATE, 1.2, name);
  const mix = sum(voice, loop);
  const pcm = { sampleRate: RATE, channels: mix };
  const network = figures(mix, voice, loop, (await networkStems(pcm, ["vocals"])).vocals);
  const repet = figures(mix, voice, loop, vocalsByRepetSim(pcm));
  const gain = (f: typeof network) => (f.target - f.mixtureTarget).toFixed(2);
  console.log(
    `${name}: network ${network.target.toFixed(2)} dB (gain ${gain(network)}), oracle ${network.oracleTarget.toFixed(2)}, repet-sim gain ${gain(repet)}`,
  );
}
