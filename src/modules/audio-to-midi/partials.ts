/** What the note repairs (subharmonic-ghosts.ts, restruck-notes.ts) read of a note's partials in a spectrum. */

/** Equal-tempered frequency (Hz) of a MIDI note, A4 = 440 Hz. */
export const midiHz = (midi: number): number => 440 * 2 ** ((midi - 69) / 12);

/** A partial's magnitude: the largest of the 3 bins around its bin, so a slightly detuned partial still counts. */
export const partialMagnitude = (spectrum: Float32Array, bin: number): number =>
  Math.max(spectrum[bin - 1] as number, spectrum[bin] as number, spectrum[bin + 1] as number);
