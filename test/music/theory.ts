/**
 * Music theory for the test-music generator: pitch spelling, keys, Roman-numeral chords, scales.
 * Everything here is exact (integer pitch classes, MIDI numbers), with equal temperament at A4 = 440 Hz.
 */
import type { Mode } from "./generator.ts";

/** The one spelling used for every label: sharps for C# and F#, flats for Eb, Ab and Bb. */
export const PITCH_NAMES = ["C", "C#", "D", "Eb", "E", "F", "F#", "G", "Ab", "A", "Bb", "B"] as const;

/** Every chord label the generator can produce: 12 major, 12 minor, and "N" (no chord). */
export const CHORD_VOCABULARY: readonly string[] = [...PITCH_NAMES, ...PITCH_NAMES.map((name) => `${name}m`), "N"];

export type Quality = "major" | "minor";

export interface Triad {
  /** Pitch class of the root, 0 = C. */
  root: number;
  quality: Quality;
  /** Root, third and fifth as pitch classes. */
  pitchClasses: [number, number, number];
  /** "C", "C#m", "Eb" … in the spelling of PITCH_NAMES. */
  label: string;
}

export const MAJOR_SCALE = [0, 2, 4, 5, 7, 9, 11] as const;
/** Natural minor; the dominant "V" in minor borrows the raised 7th (harmonic minor), as is usual. */
export const MINOR_SCALE = [0, 2, 3, 5, 7, 8, 10] as const;

const NUMERALS = ["I", "II", "III", "IV", "V", "VI", "VII"] as const;

export function mod12(n: number): number {
  return ((n % 12) + 12) % 12;
}

export function pitchName(pitchClass: number): string {
  return PITCH_NAMES[mod12(pitchClass)] as string;
}

export function keyLabel(tonic: number, mode: Mode): string {
  return `${pitchName(tonic)} ${mode}`;
}

export function chordLabel(root: number, quality: Quality): string {
  return quality === "minor" ? `${pitchName(root)}m` : pitchName(root);
}

export function triad(root: number, quality: Quality): Triad {
  const r = mod12(root);
  return {
    root: r,
    quality,
    pitchClasses: [r, mod12(r + (quality === "major" ? 4 : 3)), mod12(r + 7)],
    label: chordLabel(r, quality),
  };
}

export function scaleOf(tonic: number, mode: Mode): number[] {
  return (mode === "major" ? MAJOR_SCALE : MINOR_SCALE).map((step) => mod12(tonic + step));
}

/**
 * The triad a Roman numeral names in a key. Upper case is a major triad, lower case minor; the root is the
 * degree of the key's scale (major, or natural minor), optionally lowered or raised by a leading "b" or "#"
 * (e.g. "bVII" in major). So in A minor: i = Am, iv = Dm, v = Em, V = E, VI = F, III = C, VII = G.
 * Diminished and augmented chords ("vii°") are outside the label vocabulary and are refused.
 */
export function parseNumeral(numeral: string, tonic: number, mode: Mode): Triad {
  const match = /^([b#]?)([IViv]+)$/.exec(numeral);
  const accidental = match?.[1] ?? "";
  const body = match?.[2] ?? "";
  const upper = body.toUpperCase();
  const degree = NUMERALS.indexOf(upper as (typeof NUMERALS)[number]);
  if (!match || degree < 0 || (body !== upper && body !== body.toLowerCase()))
    throw new RangeError(
      `unsupported Roman numeral ${JSON.stringify(numeral)} (major/minor triads only, e.g. I ii V vi bVII)`,
    );
  const scale = mode === "major" ? MAJOR_SCALE : MINOR_SCALE;
  const shift = accidental === "b" ? -1 : accidental === "#" ? 1 : 0;
  return triad(tonic + (scale[degree] as number) + shift, body === upper ? "major" : "minor");
}

/**
 * The key's scale as the melody uses it over one chord: a chord tone outside the scale (the raised leading
 * tone of V in minor, a borrowed chord's notes) replaces the scale tones a semitone from it.
 */
export function melodyScale(tonic: number, mode: Mode, chord: Triad): number[] {
  let pitches = scaleOf(tonic, mode);
  for (const tone of chord.pitchClasses) {
    if (pitches.includes(tone)) continue;
    pitches = pitches.filter((pc) => pc !== mod12(tone - 1) && pc !== mod12(tone + 1));
    pitches.push(tone);
  }
  return pitches.sort((a, b) => a - b);
}

export function midiToHz(midi: number): number {
  return 440 * 2 ** ((midi - 69) / 12);
}

/** The MIDI note of a pitch class in [low, low + 12). */
export function midiInRange(pitchClass: number, low: number): number {
  return low + mod12(pitchClass - low);
}
