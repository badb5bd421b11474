/**
 * How the section letters' threshold (SECTION_OPTIONS.labelThreshold, dB RMS) trades pairwise label F against
 * finding as many distinct letters as the truth, on the material that may be tuned on: the corpus' development and
 * tuning splits and the family material's development plan (never the held-out split or families).
 *   node test/analysis/section-label-report.ts [threshold …]   (default 2 2.5 3 3.5)
 */
import { ANALYSIS_SAMPLE_RATE, analyzeMusic } from "../../src/dsp/analyze-music.ts";
import { findSections, SECTION_OPTIONS } from "../../src/dsp/sections.ts";
import { decodeAudio } from "../../src/media/pcm.ts";
import { renderedCorpus } from "../corpus/corpus.ts";
import { renderedFamilyTracks } from "../families/cache.ts";
import { developmentPlan } from "../families/tracks.ts";
import { boundaryF, distinctLabels, type LabelledSpan, pairwiseF } from "../helpers/segment-metrics.ts";

interface Song {
  signal: Float32Array;
  beats: { time: number; beatNum: number }[];
  truth: LabelledSpan[];
}

async function song(mixture: string, truth: LabelledSpan[]): Promise<Song> {
  const pcm = await decodeAudio(mixture, { sampleRate: ANALYSIS_SAMPLE_RATE, channels: 1 });
  const signal = pcm.channels[0] as Float32Array;
  return { signal, beats: analyzeMusic(signal, ANALYSIS_SAMPLE_RATE).beats, truth };
}

const material: Record<string, Song[]> = { corpus: [], "development plan": [] };
for (const split of ["development", "tuning"] as const)
  for (const track of await renderedCorpus(split))
    material.corpus?.push(await song(track.mixture, track.truth.sections));
for (const track of await renderedFamilyTracks(developmentPlan()))
  material["development plan"]?.push(await song(track.mixture, track.truth.sections));

const thresholds = process.argv.slice(2).map(Number);
for (const threshold of thresholds.length > 0 ? thresholds : [2, 2.5, 3, 3.5])
  for (const [name, songs] of Object.entries(material)) {
    const found = songs.map((s) =>
      findSections(s.signal, ANALYSIS_SAMPLE_RATE, s.beats, { ...SECTION_OPTIONS, labelThreshold: threshold }),
    );
    const mean = (values: number[]) => (values.reduce((a, v) => a + v, 0) / values.length).toFixed(3);
    const withSeveral = songs.flatMap((s, i) => (distinctLabels(s.truth) >= 2 ? [i] : []));
    const enough = withSeveral.filter(
      (i) => distinctLabels(found[i] as LabelledSpan[]) >= distinctLabels(songs[i]?.truth ?? []),
    );
    console.log(
      `threshold ${threshold} dB, ${name} (${songs.length}): pairwise F ${mean(songs.map((s, i) => pairwiseF(s.truth, found[i] as LabelledSpan[])))}, ` +
        `boundary F ±0.5 s ${mean(songs.map((s, i) => boundaryF(s.truth, found[i] as LabelledSpan[], 0.5)))}, ` +
        `as many letters as the truth ${((100 * enough.length) / withSeveral.length).toFixed(0)} %`,
    );
  }
