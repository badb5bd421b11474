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
 * The job's input when it is one of Mixdown's own stored files, signed afresh (the job's URL may have expired).
 * An input elsewhere on the web is not played: the page's CSP admits only Mixdown's own file origin.
 */
async function storedInput(runtime: Runtime, job: Job): Promise<ResultViews["source"]> {
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
  return undefined;
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
  const entries = Object.entries(job.result ?? {});
  // The audio the timed views follow: looked up beside the reads below, used only if some view is timed.
  const readsFiles = entries.some(([, e]) => "file" in e && /^(application\/json|audio\/midi)$/.test(e.contentType));
  const input = readsFiles ? storedInput(runtime, job).catch(() => undefined) : Promise.resolve(undefined);
  const readJson = (blob: string) =>
    readResult(runtime, blob, (bytes) => JSON.parse(bytes.toString("utf8")) as unknown);
  // Every file is signed, and every JSON or MIDI file read, at once: on an object store each is a round trip.
  const files = await Promise.all(
    entries.map(async ([key, entry]) => {
      if (!("file" in entry)) return undefined;
      const { contentType } = entry;
      const url = await runtime.fileUrls.downloadUrl(entry.file, runtime.config.urlTtlSeconds);
      return {
        file: { key, url, contentType },
        json: contentType === "application/json" ? await readJson(entry.file) : undefined,
        midi: contentType === "audio/midi" ? await readResult(runtime, entry.file, midiNotes) : undefined,
      };
    }),
  );
  const midiFiles: { file: ResultFile; read: Awaited<ReturnType<typeof readResult<Note[]>>> }[] = [];
  for (const [i, [key, entry]] of entries.entries()) {
    const stored = files[i];
    if (!("file" in entry) || !stored) {
      const value = "value" in entry ? entry.value : undefined;
      // A null value is an analysis that found nothing to report (a tempo without a beat, a key without harmony).
      if (value === null) views.values.push({ key, text: "none found" });
      else if (["string", "number", "boolean"].includes(typeof value)) views.values.push({ key, text: String(value) });
      else {
        const text = printed(value);
        views.json.push({ key, text, problem: text ? undefined : TOO_LONG });
      }
      continue;
    }
    const { file, json: read, midi } = stored;
    if (midi) midiFiles.push({ file, read: midi });
    else if (read) {
      const shaped = "value" in read ? shapeOf(read.value) : undefined;
      if (shaped && place(views, file, shaped)) continue;
      const text = "value" in read ? printed(read.value) : undefined;
      views.json.push({ key, text, problem: "problem" in read ? read.problem : text ? undefined : TOO_LONG, file });
    } else if (file.contentType.startsWith("audio/")) views.audio.push(file);
    else if (file.contentType.startsWith("image/")) views.images.push(file);
    else views.files.push(file);
  }
  // A notes list beats parsing the MIDI file: then the .mid is only offered for download beside the roll.
  for (const { file, read } of midiFiles) {
    if (views.notes) views.notes.files.push(file);
    else if ("value" in read && read.value.length > 0) views.notes = { files: [file], notes: read.value };
    else views.files.push(file);
  }
  const timed = views.beats || views.chords || views.sections || views.notes || views.transcript || views.words;
  if (timed) {
    const firstAudio = views.audio[0];
    views.source = (await input) ?? (firstAudio && { url: firstAudio.url, label: firstAudio.key });
    if (!views.source)
      views.noSource =
        "The job's input is not a file stored by Mixdown (or it has been removed), so there is no audio to play with these results.";
  }
  return views;
}
