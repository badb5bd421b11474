/**
 * Issue 52, part 4: bars start where the music does. The first downbeat the analysis reports (the first beat
 * numbered 1) is the song's first downbeat: after a pickup of one or two beats, when the music starts on its
 * downbeat at 0 s (the lead-in cut away), when it starts at 0 s on a pickup, and after 1.3 s of silence.
 * On the corpus' held-out split; a first downbeat counts when it is within 70 ms of the truth.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { ANALYSIS_SAMPLE_RATE, analyzeMusic } from "../../src/dsp/analyze-music.ts";
import { decodeAudio } from "../../src/media/pcm.ts";
import { renderedCorpus } from "../corpus/corpus.ts";

const TOLERANCE = 0.07;
const SILENCE_SECONDS = 1.3;
/** The share of tracks of each case whose first downbeat is right, at least. */
const GOAL = 0.8;

type Case = "pickup" | "pickup at 0 s" | "downbeat at 0 s" | "after silence";

const firstDownbeat = (beats: { time: number; beatNum: number }[]) => beats.find((b) => b.beatNum === 1)?.time;

test("the first downbeat is where the music's first bar starts: after pickups, at 0 s, after silence", async (t) => {
  const rows: { id: string; case: Case; truth: number; found: number | null }[] = [];
  const rate = ANALYSIS_SAMPLE_RATE;
  for (const track of await renderedCorpus("held-out")) {
    const pcm = await decodeAudio(track.mixture, { sampleRate: rate, channels: 1 });
    const signal = pcm.channels[0] as Float32Array;
    const truthDownbeat = firstDownbeat(track.truth.beats) as number;
    const firstBeat = track.truth.beats[0]?.time as number;
    const found = (audio: Float32Array, shift: number) => {
      const time = firstDownbeat(analyzeMusic(audio, rate).beats);
      return time === undefined ? null : time - shift;
    };
    // The music from its first beat: its first sample is the first note's attack.
    const fromFirstBeat = signal.subarray(Math.round(firstBeat * rate));
    const padded = new Float32Array(signal.length + Math.round(SILENCE_SECONDS * rate));
    padded.set(signal, Math.round(SILENCE_SECONDS * rate));
    const pickup = track.truth.pickupBeats > 0;
    if (pickup) rows.push({ id: track.id, case: "pickup", truth: truthDownbeat, found: found(signal, 0) });
    rows.push({
      id: track.id,
      case: pickup ? "pickup at 0 s" : "downbeat at 0 s",
      truth: truthDownbeat - firstBeat,
      found: found(fromFirstBeat, 0),
    });
    rows.push({ id: track.id, case: "after silence", truth: truthDownbeat, found: found(padded, SILENCE_SECONDS) });
  }
  const right = (r: (typeof rows)[number]) => r.found !== null && Math.abs(r.found - r.truth) <= TOLERANCE;
  for (const r of rows.filter((r) => !right(r))) t.diagnostic(`missed: ${JSON.stringify(r)}`);
  for (const name of ["pickup", "pickup at 0 s", "downbeat at 0 s", "after silence"] as const) {
    const members = rows.filter((r) => r.case === name);
    const share = members.filter(right).length / members.length;
    t.diagnostic(`${name}: ${members.filter(right).length} of ${members.length} (${share.toFixed(3)})`);
    assert.ok(members.length >= 8, `${name}: ${members.length} tracks`);
    assert.ok(share >= GOAL, `${name}: the first downbeat right on ${share.toFixed(3)} of the tracks`);
  }
});
