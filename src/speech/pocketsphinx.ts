import { spawn } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { ToolError } from "../media/run-tool.ts";
import { which } from "./which.ts";

export const POCKETSPHINX_BINARY = "pocketsphinx_continuous";

/** Where Debian's pocketsphinx-en-us (and a source build) put the US English models. */
const MODEL_DIRS = ["/usr/share/pocketsphinx/model/en-us", "/usr/local/share/pocketsphinx/model/en-us"];

export interface PocketsphinxSetup {
  binary: string;
  /** Acoustic model directory. */
  hmm: string;
  /** Trigram language model. */
  lm: string;
  /** Pronouncing dictionary (CMUdict, phones without stress). */
  dict: string;
}

/** The pocketsphinx program and its English models, or why they are missing. */
export function locatePocketsphinx(): PocketsphinxSetup | string {
  const binary = which(POCKETSPHINX_BINARY);
  if (!binary) return `${POCKETSPHINX_BINARY} is not installed (apt-get install pocketsphinx pocketsphinx-en-us)`;
  for (const dir of MODEL_DIRS) {
    const setup = {
      binary,
      hmm: path.join(dir, "en-us"),
      lm: path.join(dir, "en-us.lm.bin"),
      dict: path.join(dir, "cmudict-en-us.dict"),
    };
    if ([setup.hmm, setup.lm, setup.dict].every((p) => fs.existsSync(p))) return setup;
  }
  return "the pocketsphinx US English models are not installed (apt-get install pocketsphinx-en-us)";
}

/** One timed token of pocketsphinx's output: a word (alternate pronunciation mark removed) or a filler. */
export interface TimedToken {
  token: string;
  start: number;
  end: number;
  /** Which utterance (pocketsphinx's own split at pauses) it belongs to. */
  utterance: number;
}

const TIMED_LINE = /^(\S+) (\d+(?:\.\d+)?) (\d+(?:\.\d+)?) (\S+)$/;

/** Fillers, silences and sentence marks: <s>, </s>, <sil>, [NOISE], [SPEECH]. */
export const isFiller = (token: string): boolean => token.startsWith("<") || token.startsWith("[");

/** Parses `-time yes` output: a hypothesis line, then one "token start end confidence" line per token. */
export function parseTimedOutput(stdout: string): TimedToken[] {
  const tokens: TimedToken[] = [];
  let utterance = -1;
  for (const line of stdout.split("\n")) {
    const match = TIMED_LINE.exec(line.trim());
    if (!match) continue;
    const token = (match[1] as string).replace(/\(\d+\)$/, "");
    if (token === "<s>") utterance++;
    tokens.push({ token, start: Number(match[2]), end: Number(match[3]), utterance: Math.max(0, utterance) });
  }
  return tokens;
}

/** Runs pocketsphinx_continuous on a 16 kHz mono 16-bit WAV with word times; streams its output (no size cap). */
export function runPocketsphinx(
  setup: PocketsphinxSetup,
  wav: string,
  args: string[],
  signal?: AbortSignal,
): Promise<TimedToken[]> {
  const argv = ["-infile", wav, "-time", "yes", "-hmm", setup.hmm, ...args];
  return new Promise((resolve, reject) => {
    const child = spawn(setup.binary, argv, { stdio: ["ignore", "pipe", "pipe"], signal });
    const stdout: string[] = [];
    let stderr = "";
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => stdout.push(chunk));
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => {
      stderr = (stderr + chunk).slice(-65536);
    });
    child.on("error", reject);
    child.on("close", (code) => {
      if (signal?.aborted) reject(signal.reason);
      else if (code !== 0) reject(new ToolError(POCKETSPHINX_BINARY, code, stderr));
      else resolve(parseTimedOutput(stdout.join("")));
    });
  });
}
