import assert from "node:assert/strict";
import fs from "node:fs";
import { after, before, describe, test } from "node:test";
import { lyricsGrammar } from "../../src/modules/align-lyrics/grammar.ts";
import { alignLyricsModule } from "../../src/modules/align-lyrics/index.ts";
import { pronounceLyrics, splitWords } from "../../src/modules/align-lyrics/lyrics.ts";
import { locatePocketsphinx } from "../../src/speech/pocketsphinx.ts";
import { espeakPronunciations, lookupCmudict } from "../../src/speech/pronounce.ts";
import { readJson, runModule } from "./run-module.ts";
import { encodeWav, programme, type Spoken, silence, speak, toneBed } from "./speech-audio.ts";

/** Three lines; the second has words CMUdict lacks (their pronunciation comes from espeak-ng). */
export const LINES = [
  "The quick brown fox jumps over the lazy dog",
  "Glimmerfax and zorbly sing about Mixdown tonight",
  "We are going to the park this afternoon",
];
const GAPS = [0.05, 0.12, 0.2, 0.08];

/** Each word spoken on its own, so its start is known exactly; short gaps inside a line, 3 s of silence or tone bed between lines. */
export async function wordByWord(): Promise<{ wav: Buffer; spoken: Spoken[] }> {
  const pieces: Parameters<typeof programme>[0] = [silence(0.8)];
  let n = 0;
  for (const [i, line] of LINES.entries()) {
    for (const word of line.split(" ")) {
      pieces.push({ text: word, audio: await speak(word) });
      pieces.push(silence(GAPS[n++ % GAPS.length] as number));
    }
    pieces.push(i === 0 ? silence(3) : toneBed(3));
  }
  const { samples, spoken } = programme(pieces);
  return { wav: encodeWav(samples), spoken };
}

interface Aligned {
  word: string;
  start: number | null;
  end: number | null;
}

/** Every aligned word's start error against the truth, in order (Infinity when not placed). */
function startErrors(alignment: Aligned[], spoken: Spoken[]): number[] {
  assert.deepEqual(
    alignment.map((a) => a.word),
    spoken.map((s) => s.text),
  );
  return alignment.map((a, i) =>
    a.start === null ? Number.POSITIVE_INFINITY : Math.abs(a.start - (spoken[i] as Spoken).start),
  );
}

describe("align-lyrics with pocketsphinx", () => {
  let wav: Buffer;
  let spoken: Spoken[];
  const dirs: string[] = [];

  before(async () => {
    ({ wav, spoken } = await wordByWord());
  });
  after(() => {
    for (const dir of dirs) fs.rmSync(dir, { recursive: true, force: true });
  });

  const align = async (lyrics: string): Promise<Aligned[]> => {
    const { outputs, dir } = await runModule(alignLyricsModule, wav, { lyrics });
    dirs.push(dir);
    return readJson(outputs.alignment);
  };

  test("every word's start is within 150 ms of where it was spoken, words missing from CMUdict included", async (t) => {
    const alignment = await align(LINES.join("\n"));
    for (const a of alignment) {
      assert.deepEqual(Object.keys(a).sort(), ["end", "start", "word"]);
      assert.ok(a.start !== null && a.end !== null && a.end >= a.start, JSON.stringify(a));
    }
    const errors = startErrors(alignment, spoken);
    const mean = errors.reduce((a, b) => a + b, 0) / errors.length;
    t.diagnostic(`start error: mean ${(mean * 1000).toFixed(0)} ms, max ${(Math.max(...errors) * 1000).toFixed(0)} ms`);
    errors.forEach((e, i) => {
      assert.ok(e <= 0.15, `"${alignment[i]?.word}" starts ${(e * 1000).toFixed(0)} ms off`);
    });
  });

  test("a word that was never said is returned in place with null times; the others stay right", async () => {
    const lyrics = LINES.join("\n").replace("lazy dog", "lazy yellow dog");
    const alignment = await align(lyrics);
    assert.deepEqual(
      alignment.map((a) => a.word),
      splitWords(lyrics),
    );
    const yellow = alignment.findIndex((a) => a.word === "yellow");
    assert.deepEqual(alignment[yellow], { word: "yellow", start: null, end: null });
    const errors = startErrors(
      alignment.filter((_, i) => i !== yellow),
      spoken,
    );
    assert.ok(Math.max(...errors) <= 0.15, `max start error ${(Math.max(...errors) * 1000).toFixed(0)} ms`);
  });

  test("words are the lyrics' tokens without the punctuation around them; punctuation alone is no word", () => {
    assert.deepEqual(splitWords("(Oh) don't stop — rock-n-roll,\n\"singin'\" 1999!"), [
      "Oh",
      "don't",
      "stop",
      "rock-n-roll",
      "singin'",
      "1999",
    ]);
  });

  test("pronunciations: CMUdict first (hyphenated parts too), espeak-ng's letter-to-sound for the rest", async () => {
    const setup = locatePocketsphinx();
    assert.ok(typeof setup !== "string", String(setup));
    const words = await pronounceLyrics(["Hello", "rock-n-roll", "Glimmerfax", "1999"], setup.dict);
    assert.deepEqual(words[0]?.pronunciations, [
      ["HH", "AH", "L", "OW"],
      ["HH", "EH", "L", "OW"],
    ]);
    assert.deepEqual(words[1]?.pronunciations, [["R", "AA", "K", "EH", "N", "R", "OW", "L"]]);
    assert.deepEqual(words[2]?.pronunciations, [["G", "L", "IH", "M", "ER", "F", "AE", "K", "S"]]);
    assert.ok((words[3]?.pronunciations[0]?.length ?? 0) > 10, "a number is read out");
    assert.match(lyricsGrammar(words), /\(\/0\.999990\/ w2 \| \/0\.000010\/ <NULL>\)/);
  });

  test("espeak-ng's pronunciations mapped to CMU phones agree with CMUdict's on 300 dictionary words", async () => {
    const setup = locatePocketsphinx();
    assert.ok(typeof setup !== "string", String(setup));
    const lines = fs.readFileSync(setup.dict, "utf8").split("\n");
    const words = lines
      .filter((_, i) => i % 450 === 7)
      .map((l) => l.split(" ")[0] as string)
      .filter((w) => /^[a-z]+$/.test(w));
    const dictionary = await lookupCmudict(setup.dict, words);
    const guessed = await espeakPronunciations(words);
    const distance = (a: string[], b: string[]) => {
      let row = Array.from({ length: b.length + 1 }, (_, j) => j);
      for (let i = 1; i <= a.length; i++) {
        const next = [i];
        for (let j = 1; j <= b.length; j++)
          next.push(
            Math.min(
              (row[j] as number) + 1,
              (next[j - 1] as number) + 1,
              (row[j - 1] as number) + (a[i - 1] === b[j - 1] ? 0 : 1),
            ),
          );
        row = next;
      }
      return row[b.length] as number;
    };
    let errors = 0;
    let phones = 0;
    for (const word of words) {
      const references = dictionary.get(word) ?? [];
      errors += Math.min(...references.map((r) => distance(r, guessed.get(word) ?? [])));
      phones += references[0]?.length ?? 0;
    }
    assert.ok(words.length >= 250);
    assert.ok(errors / phones <= 0.15, `phone error rate ${((errors / phones) * 100).toFixed(1)} %`);
  });
});
