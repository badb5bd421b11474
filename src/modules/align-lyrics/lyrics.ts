import { dictionaryKey, espeakPronunciations, lookupCmudict, type Phones } from "../../speech/pronounce.ts";

export interface LyricWord {
  /** As written, without the punctuation around it. */
  word: string;
  /** Every pronunciation tried for it; none when it has nothing to pronounce. */
  pronunciations: Phones[];
}

/** The words of a text: whitespace-separated tokens stripped of surrounding punctuation; bare punctuation is no word. */
export const splitWords = (lyrics: string): string[] =>
  lyrics
    .split(/\s+/)
    .map((token) => token.replace(/^[^\p{L}\p{N}']+|[^\p{L}\p{N}']+$/gu, ""))
    .filter((word) => /[\p{L}\p{N}]/u.test(word));

/** Dictionary spellings to try for a word: as is, without edge apostrophes ("singin'"), and its hyphenated parts. */
function candidates(word: string): { whole: string[]; parts: string[] } {
  const key = dictionaryKey(word);
  const bare = key.replace(/^'+|'+$/g, "");
  const lowered = word.toLowerCase().replace(/[’‘`]/g, "'");
  return { whole: [...new Set([lowered, key, bare])].filter(Boolean), parts: bare.split("-").filter(Boolean) };
}

/**
 * Pronunciations for the words of the lyrics: CMUdict's (all variants) when it has the word or every part of a
 * hyphenated one, else one from espeak-ng's letter-to-sound rules.
 */
export async function pronounceLyrics(words: string[], dictFile: string, signal?: AbortSignal): Promise<LyricWord[]> {
  const keys = words.flatMap((w) => {
    const c = candidates(w);
    return [...c.whole, ...c.parts];
  });
  const dictionary = await lookupCmudict(dictFile, keys);
  const fromDictionary = words.map((word): Phones[] => {
    const c = candidates(word);
    for (const key of c.whole) {
      const found = dictionary.get(key);
      if (found) return found;
    }
    const parts = c.parts.map((part) => dictionary.get(part)?.[0]);
    if (c.parts.length > 1 && parts.every((p) => p !== undefined)) return [parts.flat() as Phones];
    return [];
  });
  const unknown = [...new Set(words.filter((_, i) => fromDictionary[i]?.length === 0).map(dictionaryKey))].filter(
    Boolean,
  );
  const guessed = await espeakPronunciations(unknown, signal);
  return words.map((word, i) => {
    const known = fromDictionary[i] ?? [];
    const guess = guessed.get(dictionaryKey(word));
    return { word, pronunciations: known.length > 0 ? known : guess ? [guess] : [] };
  });
}
