import fs from "node:fs";
import path from "node:path";
import {
  CONDITIONS,
  type Condition,
  DEV_SENTENCES,
  HELD_OUT_SENTENCES,
  makeBeds,
  readSentences,
  type Utterance,
  underCondition,
  VOICES,
  type Voice,
} from "./corpus.ts";
import { encodeWav, RATE } from "./speech-audio.ts";

export interface CorpusFile {
  voice: Voice;
  condition: Condition;
  /** Which sentences: the development voices read the development ones, the held-out voices the others. */
  sentences: "dev" | "held-out";
  wav: string;
  spoken: Utterance[];
}

/**
 * Writes each voice's reading under each condition as a WAV in dir (each voice synthesised once, the beds
 * mixed in per condition); only the voices and conditions asked for.
 */
export async function writeCorpus(
  dir: string,
  voiceIds: string[] = VOICES.map((v) => v.id),
  conditionIds: string[] = CONDITIONS.map((c) => c.id),
): Promise<CorpusFile[]> {
  fs.mkdirSync(dir, { recursive: true });
  const files: CorpusFile[] = [];
  let beds: Awaited<ReturnType<typeof makeBeds>> | undefined;
  for (const voice of VOICES.filter((v) => voiceIds.includes(v.id))) {
    const sentences = voice.split === "dev" ? DEV_SENTENCES : HELD_OUT_SENTENCES;
    const { speech, spoken } = await readSentences(voice, sentences);
    beds ??= await makeBeds(120 * RATE);
    for (const condition of CONDITIONS.filter((c) => conditionIds.includes(c.id))) {
      const wav = path.join(dir, `${voice.id}-${condition.id}.wav`.replace(/[^A-Za-z0-9.+-]+/g, "_"));
      fs.writeFileSync(wav, encodeWav(underCondition(speech, spoken, condition, beds)));
      files.push({ voice, condition, sentences: voice.split, wav, spoken });
    }
  }
  return files;
}
