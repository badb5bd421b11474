/**
 * The family registry: every way of making a sound that the separation and analysis work is judged on, one
 * entry a family (GUIDE.md, "Quality work"; issues 51 and 52). A family is an engine with its samples, a kit
 * recorded or sampled from drums, an amplifier-and-cabinet chain, a voice source or a mixing chain. Its status
 * says what the methods have seen of it:
 * - "held-out": never trained on, never tuned on; these families' mean is the figure to quote.
 * - "selection": never trained on, but trained networks were chosen by their figures on it (espeak-ng).
 * - "corpus": the test corpus' own family (FluidR3 and the plain sum), which the methods were tuned on.
 * - "training": the separation network trained on it (tools/separation-model); listed so that no held-out
 *   family shares a package with it. Never scored for separation; some are rendered for the analysis' development
 *   plan (the analysis trained on nothing).
 * A new family is one more entry; the track list (tracks.ts) and the reports pick it up.
 */

import { highGainTake } from "../../tools/separation-model/amp-chain.ts";
import {
  AVL_BLACK_PEARL,
  AVL_RED_ZEPPELIN,
  CSOUND_GM,
  HYDROGEN_TRAINING_KITS,
  MUSESCORE_GENERAL,
  OPL3_FM,
  TIMGM6MB,
} from "../../tools/separation-model/training-soundfonts.ts";
import { midiFile } from "../corpus/midi.ts";
import { type DrumKit, playedByKit, renderMidi, SOUNDFONT } from "../corpus/render.ts";
import type { NoteEvent, Part } from "../corpus/types.ts";
import { type AmpChain, amplify } from "./amp.ts";
import { fitted, type Stereo, scaled, withScratch } from "./audio.ts";
import { playKit, readKit } from "./hydrogen-kit.ts";
import type { Slot } from "./material.ts";
import type { MixChainName } from "./mix-chains.ts";
import { ELECTRIC_BASS, ELECTRIC_GUITAR, playPlucked } from "./pluck.ts";
import { playSampled, type SampledInstrument } from "./sampler.ts";
import { playStringMachine } from "./string-machine.ts";
import { playDrumMachine, playSynth, SYNTH_BASS, SYNTH_LEAD, SYNTH_PAD } from "./synth.ts";
import {
  espeak,
  festivalSinging,
  festivalSpeech,
  recordedWords,
  recordedWordsOnNotes,
  spokenPhrases,
} from "./voices.ts";

export type Kind =
  | "drums"
  | "drums-electronic"
  | "bass"
  | "guitar-clean"
  | "guitar-acoustic"
  | "guitar-distorted"
  | "keys-pads"
  | "orchestral"
  | "lead"
  | "voice-sung"
  | "voice-spoken"
  | "mix-chain"
  /** A whole General MIDI sound set: every program and the drum kits. */
  | "gm-engine";

/**
 * held-out: never trained or tuned on; selection: never trained on, networks chosen by it; corpus: the test
 * corpus' own; training: what the separation network trained on; development: written for the analysis'
 * development plan alone (tracks.ts), a stand-in for a held-out kind made another way.
 */
export type Status = "held-out" | "selection" | "corpus" | "training" | "development";

/** What a part is played with: its notes (seconds), the GM program, pan gains and the output length. */
export interface PlayContext {
  length: number;
  slot: Slot;
  program: number;
  gains: [number, number];
  seed: number;
}

export type Render =
  | { type: "instrument"; play: (notes: readonly NoteEvent[], ctx: PlayContext) => Promise<Stereo> }
  /** A voice line, mono. */
  | { type: "voice"; sing: (notes: readonly NoteEvent[], length: number, seed: number) => Promise<Float32Array> }
  /**
   * A guitar's DI (mono) through an amplifier chain, each take amplified apart (double-tracked, see
   * render-track.ts).
   */
  | {
      type: "amp";
      di: (notes: readonly NoteEvent[], length: number, seed: number) => Promise<Float32Array>;
      amplify: (di: Float32Array, seed: number) => Promise<Float32Array>;
    }
  | { type: "mix"; chain: MixChainName }
  | { type: "none" };

export interface Family {
  id: string;
  kind: Kind;
  /** What it is, in a line. */
  what: string;
  /** The Debian packages it comes from (its samples, engine or program). */
  packages: string[];
  status: Status;
  render: Render;
}

/** The Debian packages whose sounds are kept for checks from outside the project: never used here. */
export const RESERVED_PACKAGES = [
  "fretsonfire-songs-muldjord",
  "fretsonfire-songs-sectoid",
  "openttd-openmsx",
  "freepats",
  "timidity",
  "hydrogen-data",
  "sonic-pi-samples",
  "pocketsphinx",
  "pocketsphinx-en-us",
] as const;
/** Reserved sounds inside packages that are otherwise usable (matched against a family's `what`). */
export const RESERVED_SOUNDS = [/GMRockKit/i, /freepats/i, /LibriVox/i] as const;

type InstrumentRender = Extract<Render, { type: "instrument" }>;

/**
 * A GM soundfont by FluidSynth: the part on the GM drum channel for the drums slot, else on an ordinary one; or a
 * drum kit that its soundfont plays on an ordinary channel (`kit`, the AVL Drumkits: playedByKit).
 */
function fluidSynth(soundfont: string, kit?: DrumKit): InstrumentRender {
  return {
    type: "instrument",
    play: async (notes, ctx) => {
      const channel = ctx.slot === "drums" ? 9 : 0;
      const plain = { name: "comp" as const, program: ctx.program, channel, volume: 127, pan: 64, notes: [...notes] };
      const [part] = kit ? playedByKit([plain], kit) : [plain];
      const audio = await withScratch((dir) => renderMidi(midiFile([part as Part]), `${dir}/part`, soundfont));
      const stereo = fitted([audio[0] as Float32Array, (audio[1] ?? audio[0]) as Float32Array], ctx.length);
      return [scaled(stereo, ctx.gains[0])[0], scaled(stereo, ctx.gains[1])[1]] as Stereo;
    },
  };
}

const hydrogen = (dir: string): InstrumentRender => ({
  type: "instrument",
  play: async (notes, ctx) => {
    const played = await playKit(readKit(dir), notes, ctx.length);
    return [played[0].map((v) => v * ctx.gains[0]), played[1].map((v) => v * ctx.gains[1])] as Stereo;
  },
});

/** The waveguide guitar's DI (pluck.ts) through one of amp.ts' chains. */
const waveguideThrough = (chain: AmpChain): Render => ({
  type: "amp",
  di: async (notes, length, seed) => playPlucked(ELECTRIC_GUITAR, notes, length, seed),
  amplify: (di) => amplify(di, chain),
});

/**
 * A soundfont's clean electric guitar (GM program 27) as the DI, mono, through the separation training's CAPS
 * amplifier and cabinet at high gain (tools/separation-model/amp-chain.ts), its settings drawn from the seed.
 */
const soundfontThroughCaps = (soundfont: string): Render => ({
  type: "amp",
  di: async (notes, length, seed) => {
    const ctx = { length, slot: "guitar" as const, program: 27, gains: [1, 1] as [number, number], seed };
    const [left, right] = await fluidSynth(soundfont).play(notes, ctx);
    return left.map((v, i) => (v + (right[i] as number)) / 2);
  },
  amplify: (di, seed) => highGainTake(di, seed),
});

/** An LMMS sample chosen by GM program: the first entry whose range holds it. */
const lmms = (byProgram: [number, number, SampledInstrument][]): InstrumentRender => ({
  type: "instrument",
  play: (notes, ctx) => {
    const entry = byProgram.find(([low, high]) => ctx.program >= low && ctx.program <= high) ?? byProgram[0];
    return playSampled((entry as [number, number, SampledInstrument])[2], notes, ctx.length, ctx.gains);
  },
});
const struck = (sample: string, release = 0.06, gain = 1): SampledInstrument => ({
  sample,
  sustain: false,
  release,
  gain,
});
const held = (sample: string, release = 0.25, gain = 1): SampledInstrument => ({
  sample,
  sustain: true,
  release,
  gain,
});

const mono = (signal: Float32Array, gains: [number, number]): Stereo => [
  signal.map((v) => v * gains[0]),
  signal.map((v) => v * gains[1]),
];

/** KTuberling's languages whose words the recorded-speech families use (several speakers). */
const WORD_LANGUAGES = ["en", "de", "fr", "nl", "it", "sv"];

export const FAMILIES: readonly Family[] = [
  // Drums: kits recorded from acoustic drums, and two electronic kits.
  {
    id: "hydrogen-forzee",
    kind: "drums",
    what: "ForzeeStereo: a Tama Superstar kit, Pearl snare, Paiste cymbals, recorded with four microphones, 4-5 velocity layers",
    packages: ["hydrogen-drumkits"],
    status: "held-out",
    render: hydrogen("ForzeeStereo"),
  },
  {
    id: "hydrogen-bja-pacific",
    kind: "drums",
    what: "BJA_Pacific: a Pacific kit sampled by Bransin James Anderson, up to 8 velocity layers",
    packages: ["hydrogen-drumkits"],
    status: "held-out",
    render: hydrogen("BJA_Pacific"),
  },
  {
    id: "hydrogen-colombo",
    kind: "drums",
    what: "ColomboAcousticDrumkit: wooden toms, snare and bass drum with cymbals, 1-4 layers",
    packages: ["hydrogen-drumkits"],
    status: "held-out",
    render: hydrogen("ColomboAcousticDrumkit"),
  },
  {
    id: "hydrogen-millo-ludwig",
    kind: "drums",
    what: "Millo_MultiLayered3: a Ludwig kit recorded at a studio, 3-7 layers",
    packages: ["hydrogen-drumkits"],
    status: "held-out",
    render: hydrogen("Millo_MultiLayered3"),
  },
  {
    id: "hydrogen-electric-empire",
    kind: "drums-electronic",
    what: "ElectricEmpireKit: electro drum sounds synthesised from noise and sine waves, one layer",
    packages: ["hydrogen-drumkits"],
    status: "held-out",
    render: hydrogen("ElectricEmpireKit"),
  },
  {
    id: "synth-808",
    kind: "drums-electronic",
    what: "a TR-808-style drum machine written here (test/families/synth.ts): swept-sine kick with a long boom, noise snare, clap and hats",
    packages: [],
    status: "held-out",
    render: { type: "instrument", play: async (notes, ctx) => playDrumMachine(notes, ctx.length, ctx.seed) },
  },
  // Bass.
  {
    id: "lmms-bass",
    kind: "bass",
    what: "LMMS's sample library played by a one-sample sampler: a slap bass recording (GM 32-37), a Matrix-1000 pluck (38-39)",
    packages: ["lmms-common"],
    status: "held-out",
    render: lmms([
      [32, 37, struck("instruments/bassslap02.ogg", 0.05, 1.2)],
      [38, 39, held("basses/matrix1000_pluck01.ogg", 0.05)],
    ]),
  },
  {
    id: "waveguide-bass",
    kind: "bass",
    what: "an electric bass by digital waveguide (extended Karplus-Strong, test/families/pluck.ts), DI",
    packages: [],
    status: "held-out",
    render: {
      type: "instrument",
      play: async (notes, ctx) => mono(playPlucked(ELECTRIC_BASS, notes, ctx.length, ctx.seed), ctx.gains),
    },
  },
  {
    id: "synth-bass",
    kind: "bass",
    what: "a subtractive synth bass written here (saw + square, resonant lowpass with envelope)",
    packages: [],
    status: "held-out",
    render: {
      type: "instrument",
      play: async (notes, ctx) => playSynth(SYNTH_BASS, notes, ctx.length, ctx.gains, ctx.seed),
    },
  },
  // Guitars.
  {
    id: "waveguide-guitar",
    kind: "guitar-clean",
    what: "an electric guitar by digital waveguide (test/families/pluck.ts) through the cabinet filter of amp.ts, clean; also the DI of the amplifier chains",
    packages: [],
    status: "held-out",
    render: {
      type: "instrument",
      play: async (notes, ctx) => mono(playPlucked(ELECTRIC_GUITAR, notes, ctx.length, ctx.seed), ctx.gains),
    },
  },
  {
    id: "lmms-steel-guitar",
    kind: "guitar-acoustic",
    what: "LMMS's steel-string guitar recording (steel_guitar01) played by the one-sample sampler",
    packages: ["lmms-common"],
    status: "held-out",
    render: lmms([[0, 127, struck("instruments/steel_guitar01.ogg", 0.08)]]),
  },
  {
    id: "lmms-distorted-guitar",
    kind: "guitar-distorted",
    what: "LMMS's recording of a heavily distorted guitar note (steel_guitar_heavy_distorted01), resampled per note",
    packages: ["lmms-common"],
    status: "held-out",
    render: lmms([[0, 127, struck("instruments/steel_guitar_heavy_distorted01.ogg", 0.06)]]),
  },
  {
    id: "amp-guitarix-metal",
    kind: "guitar-distorted",
    what: "Guitarix's metal amp (gxmetal_amp LV2, by lv2file) + cabinet filter, on the waveguide guitar's DI, double-tracked left/right",
    packages: ["guitarix-lv2", "lv2file", "ffmpeg"],
    status: "held-out",
    render: waveguideThrough("guitarix-metal"),
  },
  {
    id: "amp-guitarix-ts9-jcm800",
    kind: "guitar-distorted",
    what: "Guitarix's Tube Screamer into its JCM800 preamp (LV2, by lv2file) + cabinet filter, double-tracked",
    packages: ["guitarix-lv2", "lv2file", "ffmpeg"],
    status: "held-out",
    render: waveguideThrough("guitarix-ts9-jcm800"),
  },
  {
    id: "amp-sox-overdrive",
    kind: "guitar-distorted",
    what: "sox's overdrive effect + cabinet filter (a plain waveshaper, the fallback chain), double-tracked",
    packages: ["sox", "ffmpeg"],
    status: "held-out",
    render: waveguideThrough("sox-overdrive"),
  },
  // Keys, pads, orchestral, leads.
  {
    id: "lmms-keys",
    kind: "keys-pads",
    what: "LMMS's piano, electric piano, harpsichord and organ recordings by the one-sample sampler (by GM program)",
    packages: ["lmms-common"],
    status: "held-out",
    render: lmms([
      [0, 3, struck("instruments/piano02.ogg", 0.12)],
      [4, 5, struck("instruments/e_piano_accord02.ogg", 0.15)],
      [6, 7, struck("instruments/harpsichord01.ogg", 0.1)],
      [16, 18, held("instruments/e_organ01.ogg", 0.08)],
      [19, 23, held("instruments/church_organ03.ogg", 0.2)],
      [0, 127, struck("instruments/piano02.ogg", 0.12)],
    ]),
  },
  {
    id: "lmms-orchestra",
    kind: "orchestral",
    what: "LMMS's strings, cello, violin, trumpet, flute and choir recordings by the one-sample sampler, looped while held",
    packages: ["lmms-common"],
    status: "held-out",
    render: lmms([
      [40, 40, held("instruments/violin_fingered01.ogg", 0.2)],
      [41, 43, held("instruments/cello01.ogg", 0.2)],
      [44, 51, held("stringsnpads/strings01.ogg", 0.35)],
      [52, 55, held("stringsnpads/chorus02.ogg", 0.35)],
      [56, 63, held("instruments/trumpet01.ogg", 0.12)],
      [64, 79, held("instruments/flute01.ogg", 0.12)],
      [88, 103, held("stringsnpads/space_strings03.ogg", 0.5, 0.8)],
      [0, 127, held("stringsnpads/strings01.ogg", 0.35)],
    ]),
  },
  {
    id: "synth-pad",
    kind: "keys-pads",
    what: "a subtractive pad written here (four detuned saws spread in stereo, slow attack, lowpass)",
    packages: [],
    status: "held-out",
    render: {
      type: "instrument",
      play: async (notes, ctx) => playSynth(SYNTH_PAD, notes, ctx.length, ctx.gains, ctx.seed),
    },
  },
  {
    id: "synth-lead",
    kind: "lead",
    what: "a subtractive lead written here (square + saw, delayed vibrato)",
    packages: [],
    status: "held-out",
    render: {
      type: "instrument",
      play: async (notes, ctx) => playSynth(SYNTH_LEAD, notes, ctx.length, ctx.gains, ctx.seed),
    },
  },
  // Voices.
  {
    id: "festival-ked-singing",
    kind: "voice-sung",
    what: "Festival's singing mode with the ked diphone voice (an American man's recorded diphones), one syllable a note",
    packages: ["festival", "festvox-kdlpc16k"],
    status: "held-out",
    render: { type: "voice", sing: (notes, length) => festivalSinging("ked_diphone", notes, length) },
  },
  {
    id: "recorded-words-sung",
    kind: "voice-sung",
    what: "words read by people (KTuberling's recordings, six languages), each pitch-shifted onto its note and stretched to it by sox",
    packages: ["ktuberling-data", "sox"],
    status: "held-out",
    render: {
      type: "voice",
      sing: (notes, length, seed) => recordedWordsOnNotes(recordedWords(WORD_LANGUAGES), notes, length, true, seed),
    },
  },
  {
    id: "recorded-words-spoken",
    kind: "voice-spoken",
    what: "words read by people (KTuberling's recordings, six languages), spoken as recorded from the notes' onsets",
    packages: ["ktuberling-data"],
    status: "held-out",
    render: {
      type: "voice",
      sing: (notes, length, seed) => recordedWordsOnNotes(recordedWords(WORD_LANGUAGES), notes, length, false, seed),
    },
  },
  {
    id: "festival-czech-dita",
    kind: "voice-spoken",
    what: "Festival's Czech voice dita (a woman's recorded diphones) reading English sentences, one a phrase",
    packages: ["festival", "festvox-czech-dita"],
    status: "held-out",
    render: {
      type: "voice",
      sing: (notes, length, seed) => spokenPhrases(festivalSpeech("czech_dita"), notes, length, seed),
    },
  },
  {
    id: "festival-finnish-lj",
    kind: "voice-spoken",
    what: "Festival's Finnish voice lj (suopuhe, a woman's recorded diphones) reading English sentences",
    packages: ["festival", "festvox-suopuhe-lj"],
    status: "held-out",
    render: {
      type: "voice",
      sing: (notes, length, seed) => spokenPhrases(festivalSpeech("suo_fi_lj_diphone"), notes, length, seed),
    },
  },
  {
    id: "espeak-ng",
    kind: "voice-spoken",
    what: "espeak-ng's formant synthesis (en-us) reading sentences; never trained on, but networks were chosen by their espeak figures",
    packages: ["espeak-ng"],
    status: "selection",
    render: { type: "voice", sing: (notes, length, seed) => spokenPhrases(espeak("en-us"), notes, length, seed) },
  },
  // Mixing and mastering.
  {
    id: "mix-plain",
    kind: "mix-chain",
    what: "the corpus' mixing: the stems summed as rendered, the mixture peak-normalised to -1 dBFS",
    packages: [],
    status: "corpus",
    render: { type: "mix", chain: "plain" },
  },
  {
    id: "mix-loud",
    kind: "mix-chain",
    what: "ffmpeg EQ and tanh saturation per stem, a convolution reverb send, 4:1 bus compression and a lookahead limiter to -9 LUFS",
    packages: ["ffmpeg"],
    status: "held-out",
    render: { type: "mix", chain: "loud" },
  },
  {
    id: "mix-gentle",
    kind: "mix-chain",
    what: "ffmpeg tilt EQ per stem, a larger room, 2:1 bus compression and the limiter to -14 LUFS",
    packages: ["ffmpeg"],
    status: "held-out",
    render: { type: "mix", chain: "gentle" },
  },
  // The corpus' engine, for comparison: held out of training, tuned on.
  {
    id: "fluidr3",
    kind: "gm-engine",
    what: "FluidSynth with the FluidR3 GM soundfont, every GM program and the GM kits: the test corpus' family",
    packages: ["fluidsynth", "fluid-soundfont-gm"],
    status: "corpus",
    render: fluidSynth(SOUNDFONT),
  },
  // What the separation network trained on (tools/separation-model). Its four soundfonts and two kits are rendered
  // for the analysis' development plan only (tracks.ts: the analysis never trained on anything, so another
  // engine's and real drums' sound to tune on without looking at the held-out families); never scored for
  // separation, which trained on them.
  {
    id: "timgm6mb",
    kind: "gm-engine",
    what: "TimGM6mb GM soundfont by FluidSynth",
    packages: ["timgm6mb-soundfont"],
    status: "training",
    render: fluidSynth(TIMGM6MB),
  },
  {
    id: "musescore-general",
    kind: "gm-engine",
    what: "MuseScore General GM soundfont by FluidSynth",
    packages: ["musescore-general-soundfont"],
    status: "training",
    render: fluidSynth(MUSESCORE_GENERAL),
  },
  {
    id: "csound-gm",
    kind: "gm-engine",
    what: "the csound GM soundfont bank by FluidSynth",
    packages: ["csound-soundfont"],
    status: "training",
    render: fluidSynth(CSOUND_GM),
  },
  {
    id: "opl3-fm",
    kind: "gm-engine",
    what: "an OPL3 FM soundfont by FluidSynth (FM synthesis, its drums too)",
    packages: ["opl3-soundfont"],
    status: "training",
    render: fluidSynth(OPL3_FM),
  },
  {
    id: "avl-black-pearl",
    kind: "drums",
    what: "AVL Drumkits' Black Pearl (and Hydrogen's 'The Black Pearl 1.0', the same recordings)",
    packages: ["avldrums.lv2-soundfont", "hydrogen-drumkits"],
    status: "training",
    render: fluidSynth(AVL_BLACK_PEARL.file, AVL_BLACK_PEARL),
  },
  {
    id: "avl-red-zeppelin",
    kind: "drums",
    what: "AVL Drumkits' Red Zeppelin",
    packages: ["avldrums.lv2-soundfont"],
    status: "training",
    render: fluidSynth(AVL_RED_ZEPPELIN.file, AVL_RED_ZEPPELIN),
  },
  {
    id: "caps-ampvts",
    kind: "guitar-distorted",
    what:
      "the CAPS suite's tube amplifier (C* AmpVTS) and cabinet (C* CabinetIV), LADSPA run by ffmpeg, on the training " +
      "soundfonts' guitars, clean to high gain; rendered here at high gain on TimGM6mb's clean guitar, double-tracked",
    packages: ["caps", "timgm6mb-soundfont"],
    status: "training",
    render: soundfontThroughCaps(TIMGM6MB),
  },
  // Made for the analysis' development plan alone: another way to make what a held-out family is.
  {
    id: "string-machine",
    kind: "keys-pads",
    what:
      "a string machine written here (test/families/string-machine.ts): 8' and 4' square-wave wavetables, a " +
      "three-voice ensemble chorus and a fixed lowpass, another synthesis than synth-pad's",
    packages: [],
    status: "development",
    render: {
      type: "instrument",
      play: async (notes, ctx) => playStringMachine(notes, ctx.length, ctx.gains),
    },
  },
  // The rest of the training families: listed, never rendered here.
  ...(
    [
      ["festival-slt-hts", "voice-spoken", "Festival's cmu_us_slt_arctic_hts voice", ["festvox-us-slt-hts"]],
      ["festival-kal", "voice-spoken", "Festival's kal_diphone voice", ["festvox-kallpc16k"]],
      ["festival-ca-ona-hts", "voice-spoken", "Festival's Catalan upc_ca_ona_hts voice", ["festvox-ca-ona-hts"]],
      [
        "festival-italian",
        "voice-spoken",
        "Festival's Italian lp and pc diphone voices",
        ["festvox-italp16k", "festvox-itapc16k"],
      ],
      [
        "flite",
        "voice-spoken",
        "Flite's awb and rms voices (and its other built-in voices, from the same recordings)",
        ["flite"],
      ],
      ...HYDROGEN_TRAINING_KITS.map(
        (kit) =>
          [
            kit.name,
            "drums",
            `Hydrogen's ${kit.dir} kit, in lone patterns${kit.gm ? " and as songs' drums" : ""}`,
            ["hydrogen-drumkits"],
          ] as const,
      ),
      [
        "train-master",
        "mix-chain",
        "tanh saturation and a noise reverb per stem, a bus compressor and a limiter, written in tools/separation-model/train.py (master)",
        [],
      ],
    ] as const
  ).map(
    ([id, kind, what, packages]): Family => ({
      id,
      kind,
      what,
      packages: [...packages],
      status: "training",
      render: { type: "none" },
    }),
  ),
];

/** Sounds a held-out family must not come from although its package is shared with training (hydrogen-drumkits). */
export const TRAINING_SOUNDS: readonly RegExp[] = [
  /Black Pearl/i,
  ...HYDROGEN_TRAINING_KITS.map((kit) => new RegExp(kit.dir.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"), "i")),
];

/** The kinds the issues name; each is covered by a held-out family or listed in MISSING with the reason. */
export const REQUIRED_KINDS: readonly Kind[] = [
  "drums",
  "drums-electronic",
  "bass",
  "guitar-clean",
  "guitar-acoustic",
  "guitar-distorted",
  "keys-pads",
  "orchestral",
  "lead",
  "voice-sung",
  "voice-spoken",
  "mix-chain",
];

/** What the issues ask for that no installable, non-reserved, non-training package provides here. */
export const MISSING: readonly { what: string; why: string }[] = [
  {
    what: "a recorded human singing voice",
    why: "no Debian main package found holds recorded singing outside the reserved ones; the sung voices are Festival's singing mode and recorded words pitch-shifted onto notes",
  },
  {
    what: "multi-sampled recorded guitars and basses (a DI or amp recording per string and fret)",
    why: "Debian main has none (no SFZ libraries; the GM soundfonts other than FluidR3 are training families); LMMS's single recordings resampled per note and waveguide models stand in",
  },
  {
    what: "a GM soundfont or sample set other than FluidR3 and the training ones",
    why: "every other GM soundfont in Debian main is a training family (TimGM6mb, MuseScore General, csound, OPL3) or reserved (freepats); fluid-soundfont-gs and fluidr3mono are FluidR3's own samples",
  },
  {
    what: "MBROLA voices",
    why: "mbrola and its voices are in Debian non-free, which this machine's and CI's sources do not have",
  },
  {
    what: "Guitarix's full amplifier (gx_amp) and cabinet (gx_cabinet)",
    why: "both crash under lv2file (they need LV2 host features it lacks); the other Guitarix amps and pedals run, with an ffmpeg cabinet filter",
  },
];

export const familyById = (id: string): Family => {
  const family = FAMILIES.find((f) => f.id === id);
  if (!family) throw new Error(`no family ${id}`);
  return family;
};

/** The instrument, voice, amp or mix renderer of a family, or an error for one that is only listed. */
export function renderOf<T extends Render["type"]>(id: string, type: T): Extract<Render, { type: T }> {
  const { render } = familyById(id);
  if (render.type !== type) throw new Error(`family ${id} is a ${render.type} family, not ${type}`);
  return render as Extract<Render, { type: T }>;
}
