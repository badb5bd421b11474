/**
 * The soundfonts the separation model trains on (render-training.ts, render-drum-hits.ts): Debian's GM
 * soundfonts other than FluidR3 (packages timgm6mb-soundfont, musescore-general-soundfont, csound-soundfont,
 * opl3-soundfont), with the share of the songs each plays.
 */
export const TRAINING_SOUNDFONTS = [
  { name: "timgm6mb", file: "/usr/share/sounds/sf2/TimGM6mb.sf2", seed: 18_004, share: 0.35 },
  { name: "musescore", file: "/usr/share/sounds/sf3/MuseScore_General.sf3", seed: 18_005, share: 0.2 },
  { name: "csound", file: "/usr/share/sounds/sf2/sf_GMbank.sf2", seed: 18_006, share: 0.25 },
  { name: "opl3", file: "/usr/share/sounds/sf2/OPL-3_FM_128M.sf2", seed: 18_007, share: 0.2 },
] as const;
