/**
 * The classical stem separators on the rendered corpus, against its true stems: stems-drums (HPSS: drums vs bass +
 * vocals + other) and stems-vocals-accompaniment (REPET-SIM with centre extraction: the voice line vs everything else),
 * and stems-4 (vocals, drums, bass, other, each against its true stem). SDR is test/helpers/sdr.ts's (BSS-eval's
 * projection without the distortion filter, i.e. SI-SDR); the oracle is the ideal ratio mask |S|² / (|S|² + |R|²) of
 * the true stems on the same STFT as the method's (separation-scoring.ts; `node test/corpus/separation-report.ts
 * tuning` prints the tuning split's figures, scored the same way). Reported per split as mean SDR, mean oracle SDR and
 * their ratio. Asserted: today's level less a margin. Issue 18's goals for stems-4: drums and bass ≥ 0.7 × oracle,
 * vocals and other ≥ 0.6 × oracle (met only for vocals on held-out and tuning).
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
  scoreSplit,
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

/**
 * stems-4 mean SDR per stem (dB), as measured less 0.5 dB, by the network (its default) and by the classical masks
 * (method "classical"). Network measured (every 10th track, with the multichannel Wiener filter of
 * dsp/spatial-wiener.ts, power 1.5), development / held-out: drums 7.55 / 7.64, bass 8.57 / 7.51, vocals 3.56 / 12.16,
 * other 5.00 / 5.69 (tuning: 7.98, 8.83, 11.30, 3.81); with the filter's power at 1.25: drums 7.50 / 7.62, bass 8.48 /
 * 7.44, vocals 3.50 / 12.10, other 4.93 / 5.60. Before its seventeenth training (the sixteenth, power 1.25): drums 7.16
 * / 7.47, bass 8.12 / 7.13, vocals 3.25 / 12.17, other 4.62 / 5.50 (tuning: 7.82, 8.75, 11.14, 3.53); every earlier
 * training's figures are in tools/separation-model/README.md. Classical measured, development / held-out: drums 1.49 /
 * 2.19 (oracle 10.34 / 10.48), bass 3.75 / 3.04 (11.07 / 10.61), vocals −3.70 / 2.93 (10.10 / 14.86), other 0.31 /
 * −4.21 (10.41 / 9.46). Issue 18's goals (drums and bass ≥ 0.7 × oracle, vocals and other ≥ 0.6 × oracle) are met by
 * the network for drums and bass on every split (drums 0.73 / 0.74 / 0.73, bass 0.77 / 0.78 / 0.71, development /
 * tuning / held-out), for vocals on the held-out and tuning splits (0.82 and 0.76; development 0.35) and for other on
 * the held-out split (0.60; development 0.48, tuning 0.49; README).
 */
const STEMS4_FLOORS: Record<"network" | "classical", Record<AssertedSplit, Record<FourStem, number>>> = {
  network: {
    development: { drums: 7.0, bass: 7.9, vocals: 3.0, other: 4.4 },
    "held-out": { drums: 7.1, bass: 6.9, vocals: 11.6, other: 5.1 },
  },
  classical: {
    development: { drums: 0.8, bass: 3.3, vocals: -4.1, other: -0.1 },
    "held-out": { drums: 1.6, bass: 2.7, vocals: 2.4, other: -4.5 },
  },
};

/**
 * Share of each drum element's energy kept in drums (mean of 3 kits) by the network, whose drums stems-4 and
 * stems-drums (by default) return, and by stems-drums' classical method (HPSS). The network is held to issue 18's goal,
 * ≥ 90 % for every element. It (with the Wiener filter) measured: every element 100 % but the ride bell, 98 % (98.4 %
 * in each kit; the standard kit's floor tom 99.6 %; with the filter's power at 1.25, 98.3 and 99.2 %). Before its
 * seventeenth training: the ride bell 95.9 % in each kit (the standard kit's floor tom 99.2 %); before its second, kick
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
  test(`stems-drums and stems-vocals-accompaniment on the rendered corpus, ${split} split`, async (t) => {
    const figures = await scoreSplit(split, step, (line) => t.diagnostic(line));
    const { tracks, drums: d, vocals: v } = figures;
    const stems4 = { network: figures.stems4, classical: figures.stems4Classical };
    t.diagnostic(`summary ${split}, ${tracks} tracks: stems-drums ${JSON.stringify(d)}`);
    t.diagnostic(`summary ${split}, ${tracks} tracks: stems-vocals-accompaniment ${JSON.stringify(v)}`);
    for (const [method, s4] of Object.entries(stems4))
      t.diagnostic(`summary ${split}, ${tracks} tracks: stems-4 ${method} ${JSON.stringify(s4)}`);
    const floor = FLOORS[split];
    if (step !== TRACK_STEP) return; // another subset: figures only
    assert.ok(d.target >= floor.drums, `drums ${JSON.stringify(d)}`);
    assert.ok(d.rest >= floor.other, `other ${JSON.stringify(d)}`);
    assert.ok(v.target >= floor.vocals, `vocals ${JSON.stringify(v)}`);
    assert.ok(v.rest >= floor.accompaniment, `accompaniment ${JSON.stringify(v)}`);
    for (const [method, s4] of Object.entries(stems4))
      for (const name of FOUR_STEM_NAMES) {
        const want = STEMS4_FLOORS[method as keyof typeof stems4][split][name];
        assert.ok(s4[name].sdr >= want, `stems-4 ${method} ${name}: ${JSON.stringify(s4[name])}, floor ${want} dB`);
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
