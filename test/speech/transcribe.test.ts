import assert from "node:assert/strict";
import fs from "node:fs";
import { after, before, describe, test } from "node:test";
import { transcribeModule } from "../../src/modules/transcribe/index.ts";
import { SENTENCES, speechWithPauses } from "./fixtures.ts";
import { readJson, runModule } from "./run-module.ts";
import { encodeWav, programme, type Spoken, silence, toneBed, wordErrorRate } from "./speech-audio.ts";

interface Word {
  word: string;
  start: number;
  end: number;
}
interface Segment {
  start: number;
  end: number;
  text: string;
  words: Word[];
}

describe("transcribe with pocketsphinx behind Silero VAD", () => {
  let spoken: Spoken[];
  let text: string;
  let transcript: Segment[];
  const dirs: string[] = [];

  before(async () => {
    const speech = await speechWithPauses();
    spoken = speech.spoken;
    const { outputs, dir } = await runModule(transcribeModule, speech.wav, { engine: "pocketsphinx" });
    dirs.push(dir);
    text = String(outputs.text);
    transcript = readJson(outputs.transcript);
  });
  after(() => {
    for (const dir of dirs) fs.rmSync(dir, { recursive: true, force: true });
  });

  test("word error rate on six espeak-ng sentences is at most 30 %", (t) => {
    const wer = wordErrorRate(SENTENCES.join(" "), text);
    t.diagnostic(`WER ${(wer * 100).toFixed(1)} % — hypothesis: ${text}`);
    assert.ok(wer <= 0.3, `WER ${(wer * 100).toFixed(1)} %: ${text}`);
  });

  test("the transcript is segments of timed words, in order, and the text is their words", () => {
    assert.ok(transcript.length > 0);
    let previousEnd = 0;
    for (const segment of transcript) {
      assert.deepEqual(Object.keys(segment).sort(), ["end", "start", "text", "words"]);
      assert.ok(segment.words.length > 0);
      assert.equal(segment.text, segment.words.map((w) => w.word).join(" "));
      assert.equal(segment.start, segment.words[0]?.start);
      assert.equal(segment.end, segment.words.at(-1)?.end);
      for (const word of segment.words) {
        assert.deepEqual(Object.keys(word).sort(), ["end", "start", "word"]);
        assert.match(word.word, /^\S+$/);
        assert.ok(word.start >= previousEnd - 1e-9 && word.end >= word.start, JSON.stringify(word));
        previousEnd = word.end;
      }
    }
    assert.equal(text, transcript.map((s) => s.text).join(" "));
  });

  test("only voiced passages are transcribed: every word lies in a sentence, on the input's own timeline", () => {
    const words = transcript.flatMap((s) => s.words);
    for (const word of words) {
      const middle = (word.start + word.end) / 2;
      const home = spoken.find((s) => middle >= s.start - 0.3 && middle <= s.end + 0.3);
      assert.ok(home, `"${word.word}" at ${word.start}–${word.end} s is in a silence or the tone bed`);
    }
    // Each sentence got words, starting near its onset: the splice map brought them back to the right place.
    for (const sentence of spoken) {
      const inside = words.filter((w) => w.start >= sentence.start - 0.3 && w.end <= sentence.end + 0.3);
      assert.ok(inside.length >= 3, `"${sentence.text}" got ${inside.length} words`);
      assert.ok(Math.abs((inside[0] as Word).start - sentence.start) < 0.25, `"${sentence.text}" starts off`);
    }
  });

  test("music alone (a tone bed with silences) gives an empty transcript", async () => {
    const { samples } = programme([silence(1), toneBed(6), silence(1), toneBed(4)]);
    const { outputs, dir } = await runModule(transcribeModule, encodeWav(samples), {});
    dirs.push(dir);
    assert.equal(outputs.text, "");
    assert.deepEqual(readJson(outputs.transcript), []);
  });
});
