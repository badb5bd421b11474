/**
 * The cues behind the analysis' confidences on the calibration material, to place the curves' midpoints of
 * src/dsp/pulse-evidence.ts and tonal-evidence.ts between "nothing to find" and music:
 *   node test/analysis/calibration-report.ts [--tracks]
 * Music: the generated suite, the corpus' development and tuning splits and the family material's development
 * plan (test/families/tracks.ts: the families' styles played by the corpus' soundfont); never the held-out split or
 * families, nor the test material of nothing-to-find.test.ts.
 */
import { ANALYSIS_SAMPLE_RATE, analyzeMusic, type MusicAnalysis } from "../../src/dsp/analyze-music.ts";
import { decodeAudio } from "../../src/media/pcm.ts";
import { renderedCorpus } from "../corpus/corpus.ts";
import { renderedFamilyTracks } from "../families/cache.ts";
import { developmentPlan } from "../families/tracks.ts";
import { generateTrack, suiteSpecs } from "../music/generator.ts";
import { calibrationMaterial, RATE } from "./calibration-material.ts";

interface Row {
  name: string;
  group: string;
  periodicity: number;
  salience: number;
  keyMargin: number;
  tuningClarity: number;
  harmonicMovement: number;
  bpm: number | null;
  bpmConfidence: number;
  key: string | null;
  keyConfidence: number;
}

const round3 = (x: number) => Math.round(x * 1000) / 1000;
const row = (name: string, group: string, a: MusicAnalysis): Row => ({
  name,
  group,
  periodicity: round3(a.evidence.pulse.periodicity),
  salience: round3(a.evidence.pulse.salience),
  keyMargin: round3(a.evidence.keyMargin),
  tuningClarity: round3(a.evidence.tuningClarity),
  harmonicMovement: round3(a.evidence.harmonicMovement),
  bpm: a.bpm,
  bpmConfidence: a.bpmConfidence,
  key: a.key,
  keyConfidence: a.keyConfidence,
});

const rows: Row[] = [];
for (const m of await calibrationMaterial()) rows.push(row(m.name, m.kind, analyzeMusic(m.signal, RATE)));
for (const spec of suiteSpecs()) {
  const track = generateTrack({ ...spec, sampleRate: RATE });
  const [left, right] = track.channels;
  const mono = Float32Array.from(left, (v, i) => (v + (right[i] as number)) / 2);
  rows.push(row(`suite ${spec.seed}`, "music", analyzeMusic(mono, RATE)));
}
for (const split of ["development", "tuning"] as const)
  for (const track of await renderedCorpus(split)) {
    const pcm = await decodeAudio(track.mixture, { sampleRate: ANALYSIS_SAMPLE_RATE, channels: 1 });
    rows.push(row(track.id, "music", analyzeMusic(pcm.channels[0] as Float32Array, pcm.sampleRate)));
  }

for (const track of await renderedFamilyTracks(developmentPlan())) {
  const pcm = await decodeAudio(track.mixture, { sampleRate: ANALYSIS_SAMPLE_RATE, channels: 1 });
  rows.push(row(track.id, "music", analyzeMusic(pcm.channels[0] as Float32Array, pcm.sampleRate)));
}

if (process.argv.includes("--tracks")) for (const r of rows) console.log(JSON.stringify(r));
const cues = ["periodicity", "salience", "keyMargin", "tuningClarity", "harmonicMovement"] as const;
for (const group of [...new Set(rows.map((r) => r.group))]) {
  const members = rows.filter((r) => r.group === group);
  const range = Object.fromEntries(
    cues.map((cue) => {
      const values = members.map((r) => r[cue]);
      return [cue, `${Math.min(...values)}..${Math.max(...values)}`];
    }),
  );
  const nullBpm = members.filter((r) => r.bpm === null).length;
  const nullKey = members.filter((r) => r.key === null).length;
  console.log(`${group} (${members.length}): ${JSON.stringify(range)}; bpm null ${nullBpm}, key null ${nullKey}`);
}
