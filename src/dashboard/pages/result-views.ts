import fsp from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import tonejs from "@tonejs/midi";
import type { Job } from "../../domain.ts";
import type { Runtime } from "../../runtime.ts";
import { formatJson } from "./format-json.ts";
import {
  type Beat,
  type ChordSpan,
  type Note,
  type Section,
  type Segment,
  type Shaped,
  shapeOf,
  type TimedWord,
} from "./result-shapes.ts";

/** JSON and MIDI results larger than this are offered for download only, not read into the page. */
export const MAX_READ_BYTES = 4 * 1024 * 1024;
/** Formatted JSON longer than this is not printed in the page. */
const MAX_PRINTED_CHARS = 64 * 1024;
const TOO_LONG = "Too long to show here; download it.";

export interface ResultFile {
  key: string;
  url: string;
  contentType: string;
}

/** A job's results sorted into the views a person reads or hears them with. */
export interface ResultViews {
  /** Scalars (bpm, key, text…), shown as text. */
  values: { key: string; text: string }[];
  /** Audio outputs: a player each, or one stem mixer when there are several. */
  audio: ResultFile[];
  images: ResultFile[];
  beats?: { file: ResultFile; beats: Beat[] };
  chords?: { file: ResultFile; chords: ChordSpan[] };
  /** Song form (A, B, A…). */
  sections?: { file: ResultFile; sections: Section[] };
  notes?: { files: ResultFile[]; notes: Note[] };
  transcript?: { file: ResultFile; segments: Segment[] };
  /** Word timings without segments (lyrics alignment). */
  words?: { file: ResultFile; words: TimedWord[] };
  /** JSON of no known shape, formatted; or why it is not shown. */
  json: { key: string; text: string | undefined; problem: string | undefined; file?: ResultFile }[];
  /** Files no view shows: download only. */
  files: ResultFile[];
  /** The audio the timed views (beats, chords, notes, words) play and follow, and what it is. */
  source?: { url: string; label: string };
  /** Why the timed views have no audio, when they have none. */
  noSource?: string;
}

/**
 * A stored result parsed by `parse`, read through the one read every store has (copyToFile) and bounded by
 * MAX_READ_BYTES; or why it is not shown.
 */
async function readResult<T>(
  runtime: Runtime,
  key: string,
  parse: (bytes: Buffer) => T,
): Promise<{ value: T } | { problem: string }> {
  let dir: string | undefined;
  try {
    const info = await runtime.blobs.stat(key);
    if (!info) return { problem: "The file is no longer stored." };
    if (info.size > MAX_READ_BYTES) return { problem: "Too large to show here; download it." };
    dir = await fsp.mkdtemp(path.join(os.tmpdir(), "mixdown-result-"));
    const file = path.join(dir, "blob");
    if (!(await runtime.blobs.copyToFile(key, file))) return { problem: "The file is no longer stored." };
    const bytes = await fsp.readFile(file);
    try {
      return { value: parse(bytes) };
    } catch (error) {
      return { problem: `The file could not be read as its type says (${(error as Error).message}).` };
    }
  } catch (error) {
    return { problem: `The file could not be read from storage (${(error as Error).message}).` };
  } finally {
    if (dir) await fsp.rm(dir, { recursive: true, force: true });
  }
}

/** A Standard MIDI File's notes, every track's, by start time. */
function midiNotes(bytes: Buffer): Note[] {
  const midi = new tonejs.Midi(bytes);
  return midi.tracks
    .flatMap((track) =>
      track.notes.map((n) => ({
        pitch: n.midi,
        start: n.time,
        end: n.time + n.duration,
        velocity: Math.round(n.velocity * 127),
      })),
    )
    .sort((a, b) => a.start - b.start);
}

const isPlayable = (contentType: string) => /^(audio|video)\/|^application\/octet-stream$/.test(contentType);

/**
 * The audio behind the timed views: the job's input when it is one of Mixdown's own stored files (signed
 * afresh, since the job's URL may have expired), else the job's first audio output. An input elsewhere on the
 * web is not played: the page's CSP admits only Mixdown's own file origin.
 */
async function sourceAudio(runtime: Runtime, job: Job, audio: ResultFile[]): Promise<ResultViews["source"]> {
  for (const [name, value] of Object.entries(job.params)) {
    if (typeof value !== "string") continue;
    const own = await runtime.fileUrls.keyOf(value, Date.parse(job.createdAt));
    if (typeof own !== "object") continue;
    const info = await runtime.blobs.stat(own.key);
    if (info && isPlayable(info.contentType))
      return {
        url: await runtime.fileUrls.downloadUrl(own.key, runtime.config.urlTtlSeconds),
        label: `input (${name})`,
      };
  }
  const first = audio[0];
  return first && { url: first.url, label: first.key };
}

function place(views: ResultViews, file: ResultFile, shaped: Shaped): boolean {
  switch (shaped.shape) {
    case "beats":
      if (views.beats) return false;
      views.beats = { file, beats: shaped.beats };
      return true;
    case "chords":
      if (views.chords) return false;
      views.chords = { file, chords: shaped.chords };
      return true;
    case "sections":
      if (views.sections) return false;
      views.sections = { file, sections: shaped.sections };
      return true;
    case "notes":
      if (views.notes) return false;
      views.notes = { files: [file], notes: shaped.notes };
      return true;
    case "transcript":
      if (views.transcript) return false;
      views.transcript = { file, segments: shaped.segments };
      return true;
    case "words":
      if (views.words) return false;
      views.words = { file, words: shaped.words };
      return true;
  }
}

const printed = (value: unknown) => {
  const text = formatJson(value);
  return text.length <= MAX_PRINTED_CHARS ? text : undefined;
};

/** Sorts a finished job's results into views; JSON and MIDI files are read (bounded) to learn their shape. */
export async function resultViews(runtime: Runtime, job: Job): Promise<ResultViews> {
  const views: ResultViews = { values: [], audio: [], images: [], json: [], files: [] };
  const midiFiles: { file: ResultFile; blob: string }[] = [];
  for (const [key, entry] of Object.entries(job.result ?? {})) {
    if (!("file" in entry)) {
      const value = entry.value;
      if (value === null || ["string", "number", "boolean"].includes(typeof value))
        views.values.push({ key, text: String(value) });
      else {
        const text = printed(value);
        views.json.push({ key, text, problem: text ? undefined : TOO_LONG });
      }
      continue;
    }
    const file = {
      key,
      url: await runtime.fileUrls.downloadUrl(entry.file, runtime.config.urlTtlSeconds),
      contentType: entry.contentType,
    };
    if (entry.contentType === "audio/midi") midiFiles.push({ file, blob: entry.file });
    else if (entry.contentType.startsWith("audio/")) views.audio.push(file);
    else if (entry.contentType.startsWith("image/")) views.images.push(file);
    else if (entry.contentType === "application/json") {
      const read = await readResult(runtime, entry.file, (bytes) => JSON.parse(bytes.toString("utf8")) as unknown);
      const shaped = "value" in read ? shapeOf(read.value) : undefined;
      if (shaped && place(views, file, shaped)) continue;
      const text = "value" in read ? printed(read.value) : undefined;
      views.json.push({ key, text, problem: "problem" in read ? read.problem : text ? undefined : TOO_LONG, file });
    } else views.files.push(file);
  }
  for (const { file, blob } of midiFiles) {
    if (views.notes) {
      views.notes.files.push(file);
      continue;
    }
    const read = await readResult(runtime, blob, midiNotes);
    if ("value" in read && read.value.length > 0) views.notes = { files: [file], notes: read.value };
    else views.files.push(file);
  }
  const timed = views.beats || views.chords || views.sections || views.notes || views.transcript || views.words;
  if (timed) {
    views.source = await sourceAudio(runtime, job, views.audio);
    if (!views.source)
      views.noSource =
        "The job's input is not a file stored by Mixdown (or it has been removed), so there is no audio to play with these results.";
  }
  return views;
}
