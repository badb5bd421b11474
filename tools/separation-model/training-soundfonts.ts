/**
 * The soundfonts the separation model trains on (render-training.ts, render-drum-hits.ts): Debian's GM
 * soundfonts other than FluidR3 (packages timgm6mb-soundfont, musescore-general-soundfont, csound-soundfont,
 * opl3-soundfont), with the share of the songs each plays.
 */
export const TIMGM6MB = "/usr/share/sounds/sf2/TimGM6mb.sf2";
export const MUSESCORE_GENERAL = "/usr/share/sounds/sf3/MuseScore_General.sf3";
export const CSOUND_GM = "/usr/share/sounds/sf2/sf_GMbank.sf2";
export const OPL3_FM = "/usr/share/sounds/sf2/OPL-3_FM_128M.sf2";
export const TRAINING_SOUNDFONTS = [
  { name: "timgm6mb", file: TIMGM6MB, seed: 18_004, share: 0.35 },
  { name: "musescore", file: MUSESCORE_GENERAL, seed: 18_005, share: 0.2 },
  { name: "csound", file: CSOUND_GM, seed: 18_006, share: 0.25 },
  { name: "opl3", file: OPL3_FM, seed: 18_007, share: 0.2 },
] as const;

/** The GM keys every AVL 4-piece kit plays. */
const AVL_KEYS = { first: 36, last: 61 } as const;
/**
 * Acoustic drum kits sampled from real drums (Debian package avldrums.lv2-soundfont, the AVL Drumkits): a
 * 4-piece kit's kick, snare, hi-hats, toms and cymbals on the GM keys 36–61, in bank 0 program 0, so they are
 * played on an ordinary channel (render-drum-hits.ts, and the drums of some songs in render-training.ts).
 */
export const AVL_BLACK_PEARL = {
  name: "avl-black-pearl",
  file: "/usr/share/sounds/sf2/Black_Pearl_4_LV2.sf2",
  seed: 18_008,
  keys: AVL_KEYS,
} as const;
export const AVL_RED_ZEPPELIN = {
  name: "avl-red-zeppelin",
  file: "/usr/share/sounds/sf2/Red_Zeppelin_4_LV2.sf2",
  seed: 18_009,
  keys: AVL_KEYS,
} as const;
export const ACOUSTIC_DRUM_KITS = [AVL_BLACK_PEARL, AVL_RED_ZEPPELIN] as const;

/**
 * Hydrogen's kits (Debian hydrogen-drumkits) that the separation model trains on (render-drum-hits.ts, and the
 * drums of the songs of the focus `hydrogen-drums` in render-training.ts): those of the package that no held-out
 * family plays and that share no recordings or maker with one. Left out: the three Millo kits (one Ludwig set
 * recorded thrice, and the held-out family plays the third), HardElectro1 (ArtemioLabs synthesised it, as it did
 * the held-out ElectricEmpireKit) and The Black Pearl (the AVL kit's recordings). `gm`: the kit has a kick, a
 * snare and a hi-hat named so, and plays songs' GM drum parts; the others (hand percussion, djembes) play lone
 * patterns only.
 */
export const HYDROGEN_TRAINING_KITS = [
  { name: "h2-rumpf", dir: "rumpf_kit_z01_h2", seed: 18_010, gm: true },
  { name: "h2-audiophob", dir: "Audiophob", seed: 18_011, gm: true },
  { name: "h2-varibreaks", dir: "VariBreaks", seed: 18_012, gm: true },
  { name: "h2-gimme-a-hand", dir: "Gimme A Hand 1.0", seed: 18_013, gm: false },
  { name: "h2-circafrique", dir: "circAfrique v4", seed: 18_014, gm: false },
] as const;
