import { spawn } from "node:child_process";
import fs from "node:fs";
import fsp from "node:fs/promises";
import path from "node:path";
import { ToolError } from "../media/run-tool.ts";
import { which } from "./which.ts";

/** The header writeWav16 writes (RIFF, fmt, data): pocketsphinx_batch skips it with -adchdr. */
const WAV_HEADER_BYTES = 44;

export const POCKETSPHINX_BINARY = "pocketsphinx_continuous";
/** The same decoder over a list of utterances (a control file), the models loaded once. */
export const POCKETSPHINX_BATCH_BINARY = "pocketsphinx_batch";

/** Where Debian's pocketsphinx-en-us (and a source build) put the US English models. */
const MODEL_DIRS = ["/usr/share/pocketsphinx/model/en-us", "/usr/local/share/pocketsphinx/model/en-us"];

export interface PocketsphinxSetup {
  binary: string;
  batchBinary: string;
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
  const batchBinary = which(POCKETSPHINX_BATCH_BINARY);
  if (!binary || !batchBinary)
    return `${binary ? POCKETSPHINX_BATCH_BINARY : POCKETSPHINX_BINARY} is not installed (apt-get install pocketsphinx pocketsphinx-en-us)`;
  for (const dir of MODEL_DIRS) {
    const setup = {
      binary,
      batchBinary,
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

/** Runs a pocketsphinx program; resolves with its stdout (streamed, no size cap). */
function runDecoder(binary: string, argv: string[], signal?: AbortSignal): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(binary, argv, { stdio: ["ignore", "pipe", "pipe"], signal });
    const stdout: string[] = [];
    let stderr = "";
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => stdout.push(chunk));
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => {
      stderr = (stderr + chunk).slice(-65536);
    });
    child.on("error", reject);
    child.on("close", (code) => {
      if (signal?.aborted) reject(signal.reason);
      else if (code !== 0) reject(new ToolError(path.basename(binary), code, stderr));
      else resolve(stdout.join(""));
    });
  });
}

/** pocketsphinx counts in frames of 10 ms. */
const FRAMES_PER_SECOND = 100;

/**
 * Parses a `-hypseg` file: per utterance "id S _ T _ A _ L _", then "startFrame acoustic lm token" per token
 * and the end frame. Times come back on the file's timeline through the utterances' starts.
 */
export function parseHypseg(text: string, utterances: { start: number }[]): TimedToken[] {
  const tokens: TimedToken[] = [];
  for (const line of text.split("\n")) {
    const fields = line.trim().split(/\s+/);
    const utterance = Number(/^u(\d+)$/.exec(fields[0] ?? "")?.[1]);
    const start = utterances[utterance]?.start;
    if (start === undefined || fields[1] !== "S") continue;
    const offset = Math.round(start * FRAMES_PER_SECOND);
    const rest = fields.slice(9);
    for (let i = 0; i + 4 < rest.length; i += 4) {
      const token = (rest[i + 3] as string).replace(/\(\d+\)$/, "");
      tokens.push({
        token,
        start: (offset + Number(rest[i])) / FRAMES_PER_SECOND,
        end: (offset + Number(rest[i + 4])) / FRAMES_PER_SECOND,
        utterance,
      });
    }
  }
  return tokens;
}

/**
 * Decodes each span of a 16 kHz mono 16-bit WAV as an utterance of its own with pocketsphinx_batch: the
 * models are loaded once, and each utterance gets its own cepstral mean (the model's `-cmn batch`) instead of
 * one carried over from whatever came before. Silence removal is off: the spans are the speech already.
 */
export async function runPocketsphinxBatch(
  setup: PocketsphinxSetup,
  wav: string,
  spans: { start: number; end: number }[],
  args: string[],
  workDir: string,
  signal?: AbortSignal,
): Promise<TimedToken[]> {
  if (spans.length === 0) return [];
  const ctl = path.join(workDir, "utterances.ctl");
  const hypseg = path.join(workDir, "utterances.hypseg");
  const stem = wav.replace(/\.wav$/, "");
  const frame = (seconds: number) => Math.round(seconds * FRAMES_PER_SECOND);
  const lines = spans.map((s, i) => `${stem} ${frame(s.start)} ${frame(s.end)} u${i}\n`);
  await fsp.writeFile(ctl, lines.join(""));
  const starts = spans.map((s) => ({ start: frame(s.start) / FRAMES_PER_SECOND }));
  const argv = ["-ctl", ctl, "-adcin", "yes", "-cepext", ".wav", "-adchdr", String(WAV_HEADER_BYTES)];
  argv.push("-hypseg", hypseg, "-hmm", setup.hmm, "-remove_silence", "no", ...args);
  await runDecoder(setup.batchBinary, argv, signal);
  return parseHypseg(await fsp.readFile(hypseg, "utf8"), starts);
}

/** Runs pocketsphinx_continuous on a 16 kHz mono 16-bit WAV with word times; streams its output (no size cap). */
export async function runPocketsphinx(
  setup: PocketsphinxSetup,
  wav: string,
  args: string[],
  signal?: AbortSignal,
): Promise<TimedToken[]> {
  const argv = ["-infile", wav, "-time", "yes", "-hmm", setup.hmm, ...args];
  return parseTimedOutput(await runDecoder(setup.binary, argv, signal));
}
