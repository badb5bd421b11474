/**
 * Stem separation speed: drums and vocals by their classical methods (HPSS, REPET-SIM) and by Mixdown's network (the
 * default of stems-drums and stems-vocals-accompaniment, one stem computed), and the four stems of stems-4 (vocals,
 * drums, bass, other) by its default method, Mixdown's network, and by the classical masks, of a 3-minute 44.1 kHz
 * stereo track, each against the floor of any STFT-mask method, a plain STFT + inverse STFT round trip of the same
 * track (same sizes), measured side by side in one run. Decoding and encoding (ffmpeg) are left out of all three.
 * Goals: HPSS ≤ 3× the floor, stems-4 ≤ 4× (issue 18). Run: node bench/separation.ts
 */
import { istft, stft } from "../src/dsp/spectrogram.ts";
import { fourStemsClassical, fourStemsNetwork } from "../src/modules/stems-4/index.ts";
import { drumsByHpss } from "../src/modules/stems-drums/index.ts";
import { analysisSize } from "../src/modules/stems-shared/masked-stem.ts";
import { networkStems } from "../src/modules/stems-shared/network.ts";
import { complement } from "../src/modules/stems-shared/run-stems.ts";
import { vocalsByRepetSim } from "../src/modules/stems-vocals/index.ts";
import { drumsAndHarmony, sum, vibratoVoice } from "../test/separation/signals.ts";

const SAMPLE_RATE = 44100;
const SECONDS = 180;
const RUNS = 3;
const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] as number;

const { drums, harmony } = drumsAndHarmony(SECONDS, SAMPLE_RATE, 1);
const mix = sum(drums, harmony, vibratoVoice(drums[0].length, SAMPLE_RATE));
const pcm = { sampleRate: SAMPLE_RATE, channels: mix };
const { fftSize, hop } = analysisSize(SAMPLE_RATE);

const floorTimes: number[] = [];
const hpssTimes: number[] = [];
const vocalTimes: number[] = [];
const fourTimes: number[] = [];
const networkTimes: number[] = [];
const networkDrumTimes: number[] = [];
const networkVocalTimes: number[] = [];
const time = async (fn: () => unknown) => {
  const start = performance.now();
  await fn();
  return performance.now() - start;
};
for (let run = 0; run < RUNS; run++) {
  floorTimes.push(await time(() => mix.map((channel) => istft(stft(channel, fftSize, hop)))));
  hpssTimes.push(await time(() => complement(mix, drumsByHpss(pcm))));
  networkDrumTimes.push(await time(async () => complement(mix, (await networkStems(pcm, ["drums"])).drums)));
  vocalTimes.push(await time(() => complement(mix, vocalsByRepetSim(pcm))));
  networkVocalTimes.push(await time(async () => complement(mix, (await networkStems(pcm, ["vocals"])).vocals)));
  fourTimes.push(await time(() => fourStemsClassical(pcm)));
  networkTimes.push(await time(() => fourStemsNetwork(pcm)));
}
const networkMs = median(networkTimes);
const floorMs = median(floorTimes);
const hpssMs = median(hpssTimes);
const vocalsMs = median(vocalTimes);
const fourMs = median(fourTimes);
const networkDrumsMs = median(networkDrumTimes);
const networkVocalsMs = median(networkVocalTimes);
const rows = [
  ["STFT + inverse STFT (floor)", floorMs],
  ["drums: HPSS", hpssMs],
  ["drums: network (default)", networkDrumsMs],
  ["vocals: REPET-SIM + centre", vocalsMs],
  ["vocals: network (default)", networkVocalsMs],
  ["stems-4: network (default)", networkMs],
  ["stems-4: classical", fourMs],
] as const;
console.log(`3-minute 44.1 kHz stereo track, STFT ${fftSize}/${hop}, ${RUNS} runs, medians (decoding excluded):`);
console.log(`  ${"".padEnd(30)} ${"ms".padStart(8)} ${"× floor".padStart(8)} ${"× real time".padStart(12)}`);
for (const [name, ms] of rows) {
  console.log(
    `  ${name.padEnd(30)} ${ms.toFixed(0).padStart(8)} ${(ms / floorMs).toFixed(2).padStart(8)} ${(ms / 1000 / SECONDS).toFixed(4).padStart(12)}`,
  );
}
console.log(`  goal: HPSS ≤ 3× the floor — ${hpssMs / floorMs <= 3 ? "met" : "NOT met"}`);
console.log(
  `  goal: stems-4 ≤ 4× the floor — network ${networkMs / floorMs <= 4 ? "met" : "NOT met"}, classical ${fourMs / floorMs <= 4 ? "met" : "NOT met"}`,
);
console.log(
  JSON.stringify({
    bench: "separation",
    floorMs,
    hpssMs,
    vocalsMs,
    hpssRatio: hpssMs / floorMs,
    vocalsRatio: vocalsMs / floorMs,
    networkDrumsRatio: networkDrumsMs / floorMs,
    networkVocalsRatio: networkVocalsMs / floorMs,
    stems4NetworkMs: networkMs,
    stems4NetworkRatio: networkMs / floorMs,
    stems4ClassicalMs: fourMs,
    stems4ClassicalRatio: fourMs / floorMs,
    runs: RUNS,
  }),
);
