import { noteFramesToTime, outputToNotesPoly } from "@spotify/basic-pitch";
import { noteScores } from "../../../test/midi/note-metrics.ts";
import { composePiece, renderPiece } from "../../../test/midi/piece.ts";
import { activations } from "./transcribe.ts";

const ref = composePiece(20, 7);
const audio = renderPiece(ref, 22050);
const { frames, onsets } = await activations(audio, new AbortController().signal);
const fr = (t: number) => Math.round(t * 86.13);
for (const t of [1.15, 1.2, 1.22, 1.24, 1.25, 1.26, 1.28, 1.3, 1.35])
  console.log(
    t,
    "55 frame",
    frames[fr(t)]![55 - 21]!.toFixed(2),
    "onset",
    onsets[fr(t)]![55 - 21]!.toFixed(2),
    "65 onset",
    onsets[fr(t)]![65 - 21]!.toFixed(2),
  );
const clone = (a: number[][]) => a.map((r) => r.slice());
for (const infer of [true, false])
  for (const melodia of [true, false])
    for (const on of [0.5, 0.6, 0.7]) {
      const ev = outputToNotesPoly(clone(frames), clone(onsets), on, 0.3, 11, infer, null, null, melodia);
      const est = noteFramesToTime(ev).map((n) => ({ pitch: n.pitchMidi, start: n.startTimeSeconds }));
      const s = noteScores(ref, est);
      console.log({
        infer,
        melodia,
        on,
        n: est.length,
        p: s.precision.toFixed(3),
        r: s.recall.toFixed(3),
        f: s.f.toFixed(3),
      });
    }
