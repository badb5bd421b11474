import { encodeWav, programme, type Spoken, silence, speak, toneBed } from "./speech-audio.ts";

export const SENTENCES = [
  "The weather is nice today.",
  "I would like a cup of coffee, please.",
  "We are going to the park this afternoon.",
  "My brother works at the bank in the city.",
  "Please call me when you get home tonight.",
  "The children are playing in the garden.",
];

/** The sentences with 2.5 s of silence or 3 s of a music-like tone bed between them (and 1 s before the first). */
export async function speechWithPauses(): Promise<{ wav: Buffer; spoken: Spoken[] }> {
  const pieces: Parameters<typeof programme>[0] = [silence(1)];
  for (const [i, text] of SENTENCES.entries()) {
    pieces.push({ text, audio: await speak(text) });
    pieces.push(i % 2 === 0 ? silence(2.5) : toneBed(3));
  }
  const { samples, spoken } = programme(pieces);
  return { wav: encodeWav(samples), spoken };
}
