/**
 * The classical stem separators on the rendered corpus, against its true stems: stems-drums (HPSS: drums vs bass +
 * vocals + other) and stems-vocals-accompaniment (REPET-SIM with centre extraction: the voice line vs everything else),
 * and stems-4 (vocals, drums, bass, other, each against its true stem). SDR is test/helpers/sdr.ts's (BSS-eval's
 * projection without the distortion filter, i.e. SI-SDR); the oracle is the ideal ratio mask |S|² / (|S|² + |R|²) of
 * the true stems on the same STFT as the method's (separation-scoring.ts; `node test/corpus/separation-report.ts
 * tuning` prints the tuning split's figures, scored the same way). Reported per split as mean SDR, mean oracle SDR and
 * their ratio. The network is scored on every track of a split, the classical separators on every 10th. Asserted:
 * today's level less a margin, and issue 18's goals for stems-4 (drums and bass ≥ 0.7 × oracle, vocals and other ≥
 * 0.6 × oracle), every stem on both splits.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { fourStemsNetwork } from "../../src/modules/stems-4/index.ts";
import { drumsByHpss } from "../../src/modules/stems-drums/index.ts";
import type { AssertedSplit } from "./corpus.ts";
import { drumElementTakes, ELEMENTS } from "./drum-elements.ts";
import {
  FOUR_STEM_NAMES,
  type FourStem,
  SAMPLE_RATE,
  type Stereo,
  scoreClassical,
  scoreNetwork,
  subtract,
  TRACK_STEP,
} from "./separation-scoring.ts";

const step = Number(process.env.CORPUS_SEPARATION_STEP ?? TRACK_STEP);

/**
 * Mean SDRs (dB) measured when the corpus was added, less a margin: stems-drums drums / other, then
 * stems-vocals-accompaniment vocals / accompaniment. (Development: 1.54 / 9.11 and -5.66 / 8.97 dB; held-out:
 * 2.48 / 11.9 and -17.08 / 2.21 dB; stems-drums with the residual in the drums, since: 1.11 / 8.43 and
 * 1.98 / 11.37 dB.) Ratios to the oracle are in the diagnostics; with negative SDRs they
 * make poor floors.
 */
const FLOORS: Record<AssertedSplit, { drums: number; other: number; vocals: number; accompaniment: number }> = {
  development: { drums: 0.5, other: 8.1, vocals: -7.5, accompaniment: 8 },
  "held-out": { drums: 1.5, other: 10.9, vocals: -19, accompaniment: 1.2 },
};

/** Issue 18's goals for stems-4, on each split: each stem's mean SDR over the split at least this share of the oracle's. */
const ISSUE_GOALS: Record<FourStem, number> = { drums: 0.7, bass: 0.7, vocals: 0.6, other: 0.6 };

/**
 * stems-4 by the network (its default), mean SDR per stem (dB) over every track of the split, as measured less 0.5
 * dB. With the network shipped on 2026-12-05 (the twenty-first blended with the twenty-fourth at 0.35), development /
 * held-out: drums 7.67 / 8.09, bass 9.07 / 9.41, vocals 9.00 / 10.40, other 5.46 / 6.62 (0.604 / 0.66 of the
 * oracle); tuning 7.96, 9.53, 11.40, 5.76 (floors unchanged). Before (the twenty-first network exported at softmax
 * sharpness 0.7, with the multichannel Wiener filter of
 * dsp/spatial-wiener.ts at power 2, and what lies below 20 Hz left to other: LOWEST_STEM_HZ in network.ts),
 * development (60 tracks) / held-out (40): drums 7.68 / 8.13 (0.74 / 0.75 of the oracle), bass 9.05 / 9.41 (0.79 /
 * 0.80), vocals 8.99 / 10.27 (0.70 / 0.75), other 5.46 / 6.57 (0.604 / 0.66); tuning (100): 7.98, 9.52, 11.29, 5.68
 * (0.74, 0.80, 0.79, 0.64). At sharpness 1 and power 1.5: 7.78 / 8.23, 9.05 / 9.39, 8.76 / 10.03, 5.20 / 6.31 (other
 * 0.575 / 0.63); tuning 8.12, 9.55, 11.09, 5.45.
 * The seventeenth network with that rule: 7.68 / 8.14, 9.07 / 9.27, 8.31 / 9.95, 4.63 / 5.98 (other 0.51 / 0.597); tuning 8.06,
 * 9.46, 10.92, 5.15. Before the rule: drums 7.69 / 8.15, bass 8.62 / 8.64, other 4.12 / 5.22; tuning 8.07, 8.88,
 * 4.38 (README). On every 10th track alone, as asserted until the network was scored on every track, development /
 * held-out (the seventeenth network): 7.55 / 7.64, 8.57 / 7.51, 3.56 / 12.16, 5.00 / 5.69 (vocals 0.35 / 0.82 of the
 * oracle, other 0.48 / 0.60: two of development's six tracks are a square lead over a choir, whose vocals score
 * about −5 dB). Every training's figures are in tools/separation-model/README.md.
 */
const NETWORK_FLOORS: Record<AssertedSplit, Record<FourStem, number>> = {
  development: { drums: 7.1, bass: 8.5, vocals: 8.4, other: 4.9 },
  "held-out": { drums: 7.6, bass: 8.9, vocals: 9.7, other: 6.0 },
};

/**
 * stems-4 with method "classical", mean SDR per stem (dB) over every 10th track, as measured less 0.5 dB. Measured,
 * development / held-out: drums 1.49 / 2.19 (oracle 10.34 / 10.48), bass 3.75 / 3.04 (11.07 / 10.61), vocals −3.70
 * / 2.93 (10.10 / 14.86), other 0.31 / −4.21 (10.41 / 9.46).
 */
const CLASSICAL_FLOORS: Record<AssertedSplit, Record<FourStem, number>> = {
  development: { drums: 0.8, bass: 3.3, vocals: -4.1, other: -0.1 },
  "held-out": { drums: 1.6, bass: 2.7, vocals: 2.4, other: -4.5 },
};

/**
 * Share of each drum element's energy kept in drums (mean of 3 kits) by the network, whose drums stems-4 and
 * stems-drums (by default) return, and by stems-drums' classical method (HPSS). The network is held to issue 18's goal,
 * ≥ 90 % for every element. Its twenty-first training (with the Wiener filter, at sharpness 0.7 and power 2) measured:
 * the ride bell 99.3 % in each kit, the standard kit's floor tom 99.1 %, every other element of every kit 99.8 % or
 * more (at sharpness 1 and power 1.5: 99.2 and 98.9 %). The seventeenth: every
 * element 100 % but the ride bell, 98.4 % in each kit, and the standard kit's floor tom, 99.6 % (with the filter's
 * power at 1.25, 98.3 and 99.2 %). Before its seventeenth training: the ride bell 95.9 % in each kit (the standard kit's floor tom 99.2 %); before its second, kick
 * 93 %, snare 94 %; every other training's figures are in tools/separation-model/README.md. The classical masks: kick
 * 95 %, snare 99 %, side stick, clap and the closed and pedal hi-hats 100 %, open hi-hat 86 %, crash 97 %, ride 87 %,
 * ride bell 73 %, toms 84 / 81 / 87 %. HPSS (stems-drums with method classical), asserted as measured less 4 points,
 * measured: kick 95 %, snare 99 %, side stick 100 %, clap 100 %, closed hi-hat 100 %, pedal hi-hat 100 %, open hi-hat
 * 87 %, crash 97 %, ride 88 %, ride bell 75 %, high tom 84 %, mid tom 81 %, floor tom 87 %, tambourine 100 %
 * (Fitzgerald's two-way mask before the hit-decay rule: open hi-hat 46 %, crash 35 %, ride 50 %, ride bell 24 %, toms
 * 71–81 %); it misses the goal for the open hi-hat, the ride, the ride bell and the toms.
 */
const DRUM_ELEMENT_FLOORS: Record<"network" | "classical", Record<string, number>> = {
  classical: {
    kick: 0.89,
    snare: 0.94,
    "side stick": 0.95,
    clap: 0.95,
    "closed hi-hat": 0.95,
    "pedal hi-hat": 0.93,
    "open hi-hat": 0.83,
    crash: 0.93,
    ride: 0.84,
    "ride bell": 0.71,
    "high tom": 0.81,
    "mid tom": 0.78,
    "floor tom": 0.84,
    tambourine: 0.95,
  },
  network: Object.fromEntries(Object.keys(ELEMENTS).map((element) => [element, 0.9])),
};

for (const split of ["development", "held-out"] as const) {
  test(`stems-4's network on every track of the rendered corpus, ${split} split`, async (t) => {
    const { tracks, stems4 } = await scoreNetwork(split, 1, (line) => t.diagnostic(line));
    t.diagnostic(`summary ${split}, ${tracks} tracks: stems-4 network ${JSON.stringify(stems4)}`);
    for (const name of FOUR_STEM_NAMES) {
      const { sdr, oracle } = stems4[name];
      const floor = NETWORK_FLOORS[split][name];
      assert.ok(sdr >= floor, `stems-4 network ${name}: ${JSON.stringify(stems4[name])}, floor ${floor} dB`);
      // The ratio of the two means, not the summary's ratio rounded to two places (0.595 would read 0.6).
      const goal = ISSUE_GOALS[name];
      const ratio = sdr / oracle;
      assert.ok(ratio >= goal, `stems-4 network ${name}: ${ratio.toFixed(3)} of the oracle, goal ${goal}`);
    }
  });

  test(`the classical separators on the rendered corpus, ${split} split`, async (t) => {
    const figures = await scoreClassical(split, step, (line) => t.diagnostic(line));
    const { tracks, drums: d, vocals: v, stems4 } = figures;
    t.diagnostic(`summary ${split}, ${tracks} tracks: stems-drums ${JSON.stringify(d)}`);
    t.diagnostic(`summary ${split}, ${tracks} tracks: stems-vocals-accompaniment ${JSON.stringify(v)}`);
    t.diagnostic(`summary ${split}, ${tracks} tracks: stems-4 classical ${JSON.stringify(stems4)}`);
    const floor = FLOORS[split];
    if (step !== TRACK_STEP) return; // another subset: figures only
    assert.ok(d.target >= floor.drums, `drums ${JSON.stringify(d)}`);
    assert.ok(d.rest >= floor.other, `other ${JSON.stringify(d)}`);
    assert.ok(v.target >= floor.vocals, `vocals ${JSON.stringify(v)}`);
    assert.ok(v.rest >= floor.accompaniment, `accompaniment ${JSON.stringify(v)}`);
    for (const name of FOUR_STEM_NAMES) {
      const want = CLASSICAL_FLOORS[split][name];
      assert.ok(
        stems4[name].sdr >= want,
        `stems-4 classical ${name}: ${JSON.stringify(stems4[name])}, floor ${want} dB`,
      );
    }
  });
}

const separators: Record<keyof typeof DRUM_ELEMENT_FLOORS, (channels: Stereo) => Promise<Stereo>> = {
  classical: async (channels) => drumsByHpss({ sampleRate: SAMPLE_RATE, channels }),
  network: async (channels) => (await fourStemsNetwork({ sampleRate: SAMPLE_RATE, channels })).drums,
};

test("each GM drum element alone: the share of its energy in drums, by the network and by HPSS", async (t) => {
  const energy = (channels: Stereo) => channels.reduce((a, ch) => a + ch.reduce((b, v) => b + v * v, 0), 0);
  const takes = await drumElementTakes();
  for (const [name, separate] of Object.entries(separators)) {
    const shares = new Map<string, number[]>();
    for (const take of takes) {
      const drums = await separate(take.channels);
      const kept = energy(drums);
      const share = kept / (kept + energy(subtract(take.channels, drums)));
      shares.set(take.element, [...(shares.get(take.element) ?? []), share]);
      t.diagnostic(`${name}: ${take.kit} ${take.element}: ${(100 * share).toFixed(1)} % in drums`);
    }
    const means = [...shares].map(([e, list]) => [e, list.reduce((a, b) => a + b, 0) / list.length] as const);
    t.diagnostic(`${name}, mean over kits: ${means.map(([e, v]) => `${e} ${(100 * v).toFixed(0)} %`).join(", ")}`);
    // The network: issue 18's goal of ≥ 90 % for every element; HPSS, which misses it: as measured less 4 points.
    for (const [element, share] of means) {
      const floor = DRUM_ELEMENT_FLOORS[name as keyof typeof DRUM_ELEMENT_FLOORS][element] ?? 0;
      assert.ok(share >= floor, `${name} ${element}: ${(100 * share).toFixed(1)} % in drums, below ${100 * floor} %`);
    }
  }
});
