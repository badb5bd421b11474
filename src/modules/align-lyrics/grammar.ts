import type { LyricWord } from "./lyrics.ts";

/**
 * The odds of a word being left out: small enough that a word the audio holds is placed, large enough that a
 * word it does not hold is skipped (and reported unplaced) instead of squeezed in over its neighbours. At
 * 0.001 the search skipped a whole spoken sentence of the tests' speech and gave the next one its place; at
 * 1e-5 and 1e-7 every spoken word is placed and an unspoken one is still skipped.
 */
const SKIP_WEIGHT = 1e-5;
const weight = (p: number): string => p.toFixed(6);

/** The grammar token of the i-th lyric word: every occurrence is its own token, so repeats stay apart. */
export const tokenOf = (index: number): string => `w${index}`;
export const indexOf = (token: string): number | undefined => {
  const match = /^w(\d+)$/.exec(token);
  return match ? Number(match[1]) : undefined;
};

/** A pronouncing dictionary of the lyric tokens: "w3 HH EH L OW", "w3(2) …". */
export function lyricsDictionary(words: LyricWord[]): string {
  return words
    .flatMap((w, i) =>
      w.pronunciations.map((phones, n) => `${tokenOf(i)}${n === 0 ? "" : `(${n + 1})`} ${phones.join(" ")}`),
    )
    .join("\n")
    .concat("\n");
}

/** A JSGF grammar of the words in order, each of them skippable at a cost (words without pronunciation left out). */
export function lyricsGrammar(words: LyricWord[]): string {
  const items = words.flatMap((w, i) =>
    w.pronunciations.length > 0
      ? [`(/${weight(1 - SKIP_WEIGHT)}/ ${tokenOf(i)} | /${weight(SKIP_WEIGHT)}/ <NULL>)`]
      : [],
  );
  return `#JSGF V1.0;\ngrammar lyrics;\npublic <lyrics> =\n  ${items.join("\n  ")}\n;\n`;
}
