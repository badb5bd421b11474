/**
 * Harmony of the corpus songs: progressions in Roman numerals with sevenths, inversions and borrowed chords,
 * and what each chord is as a major/minor triad (the truth label, as MIREX maps maj7, min7 and 7 to maj/min).
 */
import { mod12, parseNumeral, pitchName, type Triad } from "../music/theory.ts";
import type { Mode } from "./types.ts";

export interface Chord {
  triad: Triad;
  /** Pitch classes sounded: root, third, fifth and maybe a seventh. */
  pitchClasses: number[];
  /** The pitch class in the bass: the root, or the third or fifth for an inversion. */
  bass: number;
  /** As played: "G7/B", "Fmaj7", "Am". */
  symbol: string;
}

/**
 * "V7/3" = the V chord with its seventh, first inversion (third in the bass); "/5" = second inversion.
 * The seventh is minor on minor triads and on V and bVII, major on the other major triads (Imaj7, IVmaj7).
 */
export function realise(token: string, tonic: number, mode: Mode): Chord {
  const match = /^([b#]?[IViv]+)(7?)(?:\/([35]))?$/.exec(token);
  if (!match) throw new RangeError(`bad chord token ${token}`);
  const triad = parseNumeral(match[1] as string, tonic, mode);
  const pitchClasses = [...triad.pitchClasses];
  let suffix = triad.quality === "minor" ? "m" : "";
  if (match[2]) {
    const dominant = triad.quality === "major" && (triad.root === mod12(tonic + 7) || triad.root === mod12(tonic + 10));
    const seventh = triad.quality === "minor" || dominant ? 10 : 11;
    pitchClasses.push(mod12(triad.root + seventh));
    suffix += seventh === 11 ? "maj7" : "7";
  }
  const inversion = match[3] === "3" ? 1 : match[3] === "5" ? 2 : 0;
  const bass = triad.pitchClasses[inversion] as number;
  const symbol = `${pitchName(triad.root)}${suffix}${inversion ? `/${pitchName(bass)}` : ""}`;
  return { triad, pitchClasses, bass, symbol };
}

/** Four-chord (or eight-chord) progressions per section kind; the songs also borrow from the parallel key. */
export const PROGRESSIONS: Record<Mode, Record<"verse" | "chorus" | "bridge", string[][]>> = {
  major: {
    verse: [
      ["I", "V/3", "vi", "IV"],
      ["I", "vi7", "ii7", "V7"],
      ["I", "IV/3", "V", "IV"],
      ["I", "iii", "IV", "V"],
      ["I7", "IV7", "I7", "V7"],
      ["I", "bVII", "IV", "I"],
    ],
    chorus: [
      ["IV", "V", "I", "vi"],
      ["vi", "IV", "I", "V/3"],
      ["IV", "iv", "I", "I"],
      ["I", "V", "vi", "iii", "IV", "I", "IV", "V"],
      ["ii7", "V7", "I", "vi7"],
      ["IV", "I/3", "V", "V7"],
    ],
    bridge: [
      ["bVI", "bVII", "I", "I"],
      ["ii7", "V7", "iii7", "vi"],
      ["IV", "V", "iii", "vi"],
      ["bVI", "IV", "V", "V"],
      ["vi", "iii", "IV", "V7"],
    ],
  },
  minor: {
    verse: [
      ["i", "VI", "III", "VII"],
      ["i", "iv7", "V7", "i"],
      ["i", "VII", "VI", "V"],
      ["i", "v", "VI", "iv"],
      ["i", "III/3", "VI", "V"],
      ["i7", "iv7", "i7", "V7"],
    ],
    chorus: [
      ["VI", "VII", "i", "i"],
      ["iv", "V", "i", "VI"],
      ["VI", "III", "VII", "i"],
      ["i", "VI", "III", "VII", "iv", "i", "V", "V7"],
      ["iv7", "VII7", "III7", "VI7"],
    ],
    bridge: [
      ["iv", "i", "VI", "V7"],
      ["VI", "iv", "V", "V"],
      ["IV", "IV", "i", "i"],
      ["bII", "V", "i", "i"],
      ["III", "VII", "iv", "V"],
    ],
  },
};
