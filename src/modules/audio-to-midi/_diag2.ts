import { noteFramesToTime, outputToNotesPoly } from "@spotify/basic-pitch";
import { noteScores } from "../../../test/midi/note-metrics.ts";
import { composePiece, renderPiece } from "../../../test/midi/piece.ts";
import { activations } from "./transcribe.ts";

const ref = composePiece(20, Number(process.argv[2] ?? 7));
const audio = renderPiece(ref, 22050);
const { frames, onsets } = await activations(audio, new AbortController().signal);
const clone = (a: number[][]) => a.map((r) => r.slice());
const out = [];
for (const on of [0.5, 0.6, 0.7]) {
  const ev = outputToNotesPoly(clone(frames), clone(onsets), on, 0.3, 11);
  const est = noteFramesToTime(ev).map((n) => ({ pitch: n.pitchMidi, start: n.startTimeSeconds }));
  const s = noteScores(ref, est);
  out.push(
    `on=${on} n=${est.length}/${ref.length} p=${s.precision.toFixed(3)} r=${s.recall.toFixed(3)} f=${s.f.toFixed(3)}`,
  );
}
console.log(process.env.VARIANT, out.join(" | "));
