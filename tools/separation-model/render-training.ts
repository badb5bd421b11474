/**
 * Renders the separation model's training songs: the corpus generator's arrangements on their own seeds,
 * played by soundfonts other than the FluidR3 one the test corpus uses, so the model is scored on instruments
 * it never heard. Usage:
 *   node tools/separation-model/render-training.ts <out dir> [songs, default 340] [set, default 0] [focus]
 * Each set is other songs: set n draws them from each soundfont's seed + 1000 n (the first eight trainings had set 0).
 * A focus (FOCUSES) makes targeted songs: some parts' instruments drawn from a few GM programs the network
 * confuses, or the drums played by kits sampled from acoustic drums.
 */
import fs from "node:fs";
import path from "node:path";
import { type DrumKit, type DrumPlayer, renderSong } from "../../test/corpus/render.ts";
import type { SongSpec } from "../../test/corpus/song.ts";
import { songSpecs } from "../../test/corpus/specs.ts";
import type { PartName } from "../../test/corpus/types.ts";
import { playKit, readKit } from "../../test/families/hydrogen-kit.ts";
import { ampChain } from "./amp-chain.ts";
import { ACOUSTIC_DRUM_KITS, HYDROGEN_TRAINING_KITS, TRAINING_SOUNDFONTS } from "./training-soundfonts.ts";

/**
 * What a focus changes: the song spec's fields it sets (the GM programs some parts draw from, their mod wheel), or
 * the kit that plays the drums.
 */
interface Focus {
  song?: Pick<SongSpec, "programs" | "modulation" | "chorus">;
  /** Further FluidSynth settings for every stem of the songs. */
  settings?: string[];
  /** The drums played by the acoustic kits (ACOUSTIC_DRUM_KITS, in turn) instead of the soundfont's GM kits. */
  acousticDrums?: boolean;
  /** The drums played by Hydrogen's training kits that play GM parts (HYDROGEN_TRAINING_KITS, in turn). */
  hydrogenDrums?: boolean;
  /** Parts rendered alone (a guitar's DI) and put through an amplifier and cabinet (amp-chain.ts). */
  amplified?: readonly PartName[];
}

/**
 * "square-lead": the thirteenth network took a square lead (GM 80) over choir aahs or a synth voice (GM 52, 54)
 * for the vocals, on three of the twenty scored corpus tracks (separation-leakage.ts); these songs play square and
 * saw leads (80, 81) over those voices.
 * "acoustic-drums": the network's drums fell on drums synthesised outside General MIDI in four trainings; these
 * songs' grooves, fills and cymbals are played by kits sampled from real drums.
 * "vibrato-lead": the corpus' FluidR3 square lead has a vibrato (5.3 cents deep at 5.1 Hz, vibrato-depth.ts) and
 * the training soundfonts' square leads have none (under 3 cents, none periodic), so vibrato meant "voice" to
 * the network: with FluidR3, 47 % of development-041's other went to vocals, 8-25 % with the training
 * soundfonts. These songs play leads (square
 * and saw in two draws of five) with the mod wheel up, and the voice with it up in half of them, so vibrato
 * tells neither apart. The twentieth run trained on them: other into vocals 47 -> 38 % on development-041 and
 * 051, the voice into other 8 -> 15 %; not shipped (tools/separation-model/README.md).
 * "chorus-lead": FluidR3's square lead is chorused until its channels are nearly opposite (stereo correlation
 * -0.85 on development-041's lead; part-shares.ts) and the network hears that as a voice: 62 % of that lead goes
 * to vocals, 22 % with FluidSynth's chorus off. The training soundfonts' square leads are nearly mono (0.99;
 * MuseScore's -0.02), and chorused as strongly (chorus send 127, chorus level 5: -0.81) they go 27-72 % to vocals.
 * These songs play leads with a chorus send drawn up to 127 and the voice with one in half of them, all at chorus
 * level 5, so a wide chorus tells neither apart.
 * "weak-programs": after the twenty-first network, the development programs whose tracks' other lies furthest
 * under the oracle (separation-by-program.ts other development; mean gap 3.84 dB) were the square lead (7.6 over
 * 6 tracks), the drawbar organ (GM 16, 5.9 over 4), the overdrive guitar (29, 5.0 over 4), synth bass 1 (38, 5.0
 * over 13) and synth strings 1 (50, 4.8 over 14). These songs draw the comp, pad, bass and lead from those and
 * their neighbours, the leads chorused as in "chorus-lead".
 * "amped": records' guitars go through amplifiers, from clean to high gain, often double-tracked wide, and the
 * network gave a lone distorted guitar's energy to drums and vocals (issue 51). These songs' comp and lead are
 * guitars (GM 24-31) put through the CAPS tube amplifier and a cabinet (amp-chain.ts) with settings drawn per
 * part, over the usual bass, drums and voice.
 * "hydrogen-drums": the held-out families' recorded kits lose their kicks to bass and their toms and cymbals to
 * other (issue 51); these songs' drums are played by Hydrogen's training kits (an analog kit, one put together
 * from recorded hits, one synthesised by a V-Synth), each hit's sample by its velocity layer (hydrogen-kit.ts).
 */
/** FluidSynth's chorus at level 5 (its default is 2): the chorused focus songs' setting. */
const WIDE_CHORUS = ["synth.chorus.level=5"];

const FOCUSES: Record<string, Focus> = {
  "square-lead": { song: { programs: { lead: [80, 81], voice: [52, 54] } } },
  "acoustic-drums": { acousticDrums: true },
  "vibrato-lead": {
    song: {
      programs: { lead: [80, 81, 80, 81, 73, 65, 56, 71, 40, 68], voice: [52, 54, 52, 54, 53, 85] },
      modulation: { lead: [15, 30, 45, 60, 80], voice: [0, 0, 0, 20, 40, 60] },
    },
  },
  "chorus-lead": {
    song: {
      programs: { lead: [80, 81, 80, 81, 73, 65, 56, 71, 40, 68, 11, 30], voice: [52, 54, 52, 54, 53, 85] },
      chorus: { lead: [40, 80, 100, 127, 127], voice: [0, 0, 0, 60, 100, 127] },
    },
    settings: WIDE_CHORUS,
  },
  "weak-programs": {
    song: {
      programs: {
        comp: [16, 17, 18, 29, 30, 16, 29],
        pad: [50, 51, 50, 48, 88],
        bass: [38, 39, 38, 32],
        lead: [80, 81, 80, 29, 30, 71],
      },
      chorus: { lead: [0, 40, 80, 127], voice: [0, 0, 60, 127] },
    },
    settings: WIDE_CHORUS,
  },
  amped: {
    song: { programs: { comp: [24, 25, 26, 27, 28, 29, 30, 31], lead: [26, 27, 29, 30, 31] } },
    amplified: ["comp", "lead"],
  },
  "hydrogen-drums": { hydrogenDrums: true },
};

/**
 * The RMS a Hydrogen kit's drum stem is brought to: the training soundfonts' GM kits play a song's drums at
 * 0.011–0.019 (one song, measured), the Hydrogen kits' full-scale samples at 0.07–0.13.
 */
const HYDROGEN_DRUMS_RMS = 0.016;

/** A Hydrogen kit as a player of a song's drum notes, at the soundfonts' level. */
function hydrogenPlayer(kitDir: string): DrumPlayer {
  const kit = readKit(kitDir);
  return async (notes, frames) => {
    const audio = await playKit(kit, notes, frames);
    const power = audio.reduce((sum, channel) => channel.reduce((s, v) => s + v * v, sum), 0);
    const gain = power > 0 ? HYDROGEN_DRUMS_RMS / Math.sqrt(power / (2 * frames)) : 1;
    return audio.map((channel) => channel.map((v) => v * gain));
  };
}

/** Hydrogen's training kits that play GM drum parts, read only when a focus asks for them. */
let hydrogenPlayers: DrumPlayer[] | undefined;

/** Who plays a song's drums: the soundfont's own GM kit (undefined), an acoustic kit or a Hydrogen kit. */
function drumsOf(focus: Focus, i: number): DrumKit | DrumPlayer | undefined {
  if (focus.acousticDrums) return ACOUSTIC_DRUM_KITS[i % ACOUSTIC_DRUM_KITS.length];
  if (focus.hydrogenDrums) {
    hydrogenPlayers ??= HYDROGEN_TRAINING_KITS.filter((kit) => kit.gm).map((kit) => hydrogenPlayer(kit.dir));
    return hydrogenPlayers[i % hydrogenPlayers.length];
  }
  return undefined;
}

const out = process.argv[2];
if (!out) throw new Error("usage: render-training.ts <out dir> [songs] [set] [focus]");
const songs = Number(process.argv[3] ?? 340);
const set = Number(process.argv[4] ?? 0);
const focus = process.argv[5];
if (!Number.isInteger(songs) || songs < 1 || !Number.isInteger(set) || set < 0) {
  throw new Error("songs must be a positive integer and set a non-negative integer");
}
if (focus !== undefined && !Object.hasOwn(FOCUSES, focus)) {
  throw new Error(`unknown focus "${focus}"; known: ${Object.keys(FOCUSES).join(", ")}`);
}
const chosen: Focus = focus === undefined ? {} : (FOCUSES[focus] as Focus);
const prefix = `${set === 0 ? "train" : `train${set}`}${focus === undefined ? "" : `-${focus}`}`;
const jobs = TRAINING_SOUNDFONTS.flatMap((font) =>
  songSpecs(`${prefix}-${font.name}`, Math.round(songs * font.share), font.seed + 1000 * set).map((spec, i) => ({
    spec: { ...spec, ...chosen.song },
    font,
    drumKit: drumsOf(chosen, i),
  })),
);
const worker = async () => {
  for (let job = jobs.shift(); job; job = jobs.shift()) {
    const dir = path.join(out, job.spec.id);
    if (fs.existsSync(path.join(dir, "truth.json"))) continue;
    const chains = Object.fromEntries(
      (chosen.amplified ?? []).map((part, i) => [part, ampChain(job.spec.seed * 16 + i)]),
    );
    await renderSong(job.spec, dir, job.font.file, job.drumKit, chosen.settings, chains);
    console.log(job.spec.id);
  }
};
await Promise.all([worker(), worker()]);
