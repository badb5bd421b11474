/** Pitch-class names as Mixdown spells them in keys and chord labels. */
export const PITCH_NAMES = ["C", "C#", "D", "Eb", "E", "F", "F#", "G", "Ab", "A", "Bb", "B"] as const;

export const pitchName = (pitchClass: number): string => PITCH_NAMES[((pitchClass % 12) + 12) % 12] as string;
