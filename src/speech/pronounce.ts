import { spawn } from "node:child_process";
import fs from "node:fs";
import readline from "node:readline";
import { ToolError } from "../media/run-tool.ts";
import { which } from "./which.ts";

/** A pronunciation: CMU phones without stress (what pocketsphinx's en-us model and dictionary use). */
export type Phones = string[];

/** How a word is looked up: lower case, typographic apostrophes straightened, nothing but letters, digits, ' and -. */
export const dictionaryKey = (word: string): string =>
  word
    .toLowerCase()
    .replace(/[’‘`]/g, "'")
    .replace(/[^\p{L}\p{N}'-]+/gu, "")
    .replace(/^['-]+|['-]+$/g, "");

/** Every pronunciation CMUdict has for the wanted keys ("word", "word(2)", … lines), read in one pass. */
export async function lookupCmudict(dictFile: string, keys: Iterable<string>): Promise<Map<string, Phones[]>> {
  const wanted = new Set(keys);
  const found = new Map<string, Phones[]>();
  const lines = readline.createInterface({ input: fs.createReadStream(dictFile, "utf8"), crlfDelay: Infinity });
  for await (const line of lines) {
    const space = line.indexOf(" ");
    if (space <= 0) continue;
    const key = line.slice(0, space).replace(/\(\d+\)$/, "");
    if (!wanted.has(key)) continue;
    const phones = line
      .slice(space + 1)
      .trim()
      .split(/\s+/);
    found.set(key, [...(found.get(key) ?? []), phones]);
  }
  return found;
}

/**
 * espeak-ng's US English IPA (as printed with --ipa, stress marks removed) to CMU phones. Flaps and glottal
 * stops become T (CMUdict writes "butter" B AH T ER), syllabic consonants get their schwa back.
 */
const IPA_TO_CMU: Record<string, string> = {
  aɪɚ: "AY ER",
  aɪə: "AY AH",
  ɑːɹ: "AA R",
  ɔːɹ: "AO R",
  oːɹ: "AO R",
  ɛɹ: "EH R",
  ʊɹ: "UH R",
  ɪɹ: "IY R",
  iə: "IY AH",
  əl: "AH L",
  aɪ: "AY",
  aʊ: "AW",
  eɪ: "EY",
  oʊ: "OW",
  ɔɪ: "OY",
  dʒ: "JH",
  tʃ: "CH",
  n̩: "AH N",
  l̩: "AH L",
  m̩: "AH M",
  iː: "IY",
  uː: "UW",
  ɑː: "AA",
  ɔː: "AO",
  oː: "OW",
  ɜː: "ER",
  i: "IY",
  u: "UW",
  ɪ: "IH",
  ᵻ: "IH",
  ɛ: "EH",
  e: "EH",
  æ: "AE",
  a: "AE",
  ɑ: "AA",
  ɒ: "AA",
  ɔ: "AO",
  o: "OW",
  ʊ: "UH",
  ʌ: "AH",
  ə: "AH",
  ɐ: "AH",
  ɚ: "ER",
  ɝ: "ER",
  ɜ: "ER",
  p: "P",
  b: "B",
  t: "T",
  d: "D",
  k: "K",
  g: "G",
  ɡ: "G",
  f: "F",
  v: "V",
  θ: "TH",
  ð: "DH",
  s: "S",
  z: "Z",
  ʃ: "SH",
  ʒ: "ZH",
  h: "HH",
  x: "K",
  ç: "HH",
  m: "M",
  n: "N",
  ŋ: "NG",
  l: "L",
  ɫ: "L",
  ɹ: "R",
  r: "R",
  ɾ: "T",
  ʔ: "T",
  w: "W",
  ʍ: "W",
  j: "Y",
};
const LONGEST_SYMBOL = Math.max(...Object.keys(IPA_TO_CMU).map((s) => [...s].length));

/** CMU phones of an IPA string, longest symbols first; what has no English counterpart is left out. */
export function ipaToCmu(ipa: string): Phones {
  const chars = [...ipa.replace(/[ˈˌ_\s.‿]/g, "")];
  const phones: Phones = [];
  for (let i = 0; i < chars.length; ) {
    let taken = 0;
    for (let n = Math.min(LONGEST_SYMBOL, chars.length - i); n > 0 && !taken; n--) {
      const cmu = IPA_TO_CMU[chars.slice(i, i + n).join("")];
      if (cmu) {
        phones.push(...cmu.split(" "));
        taken = n;
      }
    }
    i += taken || 1;
  }
  // espeak writes r-coloured vowels before a vowel as ɚɹ ("accessories"); CMUdict has ER alone.
  return phones.filter((phone, i) => !(phone === "R" && phones[i - 1] === "ER"));
}

/** Runs espeak-ng with text on stdin; resolves with its stdout. */
function espeak(args: string[], input: string, signal?: AbortSignal): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn("espeak-ng", args, { stdio: ["pipe", "pipe", "pipe"], signal });
    let stdout = "";
    let stderr = "";
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => (stderr = (stderr + chunk).slice(-8192)));
    child.on("error", reject);
    child.on("close", (code) => {
      if (signal?.aborted) reject(signal.reason);
      else if (code !== 0) reject(new ToolError("espeak-ng", code, stderr));
      else resolve(stdout);
    });
    child.stdin.on("error", () => {});
    child.stdin.end(input);
  });
}

/**
 * Pronunciations for words no dictionary has, from espeak-ng's letter-to-sound rules (its US English IPA
 * mapped to CMU phones). All words go through one espeak-ng process, one line (a sentence) each.
 */
export async function espeakPronunciations(words: string[], signal?: AbortSignal): Promise<Map<string, Phones>> {
  const found = new Map<string, Phones>();
  if (words.length === 0) return found;
  const args = ["-q", "--ipa", "-v", "en-us", "--stdin"];
  const lines = (await espeak(args, words.map((w) => `${w}.\n`).join(""), signal)).split("\n").filter((l) => l.trim());
  const aligned = lines.length === words.length;
  for (const [i, word] of words.entries()) {
    const ipa = aligned ? (lines[i] as string) : await espeak(args, `${word}.\n`, signal);
    const phones = ipaToCmu(ipa);
    if (phones.length > 0) found.set(word, phones);
  }
  return found;
}

/** Whether espeak-ng is on PATH. */
export const espeakInstalled = (): boolean => which("espeak-ng") !== undefined;
