import { outputToNotesPoly } from "@spotify/basic-pitch";
import { composePiece, renderPiece } from "../../../test/midi/piece.ts";
import { loadModel } from "./model.ts";
import { activations } from "./transcribe.ts";

const secs = Number(process.argv[2] ?? 30);
const ref = composePiece(secs, 3);
const audio = renderPiece(ref, 22050).subarray(0, secs * 22050);
let t = performance.now();
await loadModel();
console.log("load", Math.round(performance.now() - t));
t = performance.now();
const { frames, onsets } = await activations(audio, new AbortController().signal);
console.log("secs", secs, "inference", Math.round(performance.now() - t), "frames", frames.length);
t = performance.now();
const ev = outputToNotesPoly(frames, onsets, 0.5, 0.3, 11);
console.log(
  "post",
  Math.round(performance.now() - t),
  "notes",
  ev.length,
  "rss MB",
  Math.round(process.memoryUsage().rss / 1e6),
);
