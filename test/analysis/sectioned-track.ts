/**
 * A constructed song with known sections for the section tests: four 16 s sections at 120 BPM in 4/4 (8 bars
 * each) from the music generator, A B A C. A is the same audio twice (drums, bass, sine chords on I–V–vi–IV);
 * B is a breakdown (organ on ii–IV–ii–V, high-passed at 500 Hz so kick and bass drop out); C is a wash (saw
 * chords on vi–iii–IV–IV over loud noise). The beat grid runs on through the joins.
 */
import { generateTrack, type Track, type TrackSpec } from "../music/generator.ts";
import { biquad } from "../music/synth.ts";

const SECTION_SECONDS = 16;
const SAMPLE_RATE = 22050;

const base: TrackSpec = {
  seed: 1801,
  bpm: 120,
  meter: 4,
  durationSeconds: SECTION_SECONDS,
  tonic: 0,
  mode: "major",
  progression: ["I", "V", "vi", "IV"],
  jitterMs: 0,
  tempoDriftPercent: 0,
  noiseDb: -40,
  timbre: "sine",
  sampleRate: SAMPLE_RATE,
};

const highPassed = (track: Track): Track => ({
  ...track,
  channels: [
    biquad(track.channels[0], "highpass", 500, 0.7, SAMPLE_RATE),
    biquad(track.channels[1], "highpass", 500, 0.7, SAMPLE_RATE),
  ],
});

const SECTIONS: { label: string; render: () => Track }[] = [
  { label: "A", render: () => generateTrack(base) },
  {
    label: "B",
    render: () =>
      highPassed(generateTrack({ ...base, seed: 1802, timbre: "organ", progression: ["ii", "IV", "ii", "V"] })),
  },
  { label: "A", render: () => generateTrack(base) },
  {
    label: "C",
    render: () =>
      generateTrack({ ...base, seed: 1803, timbre: "saw", noiseDb: -8, progression: ["vi", "iii", "IV", "IV"] }),
  },
];

export interface SectionedTrack extends Track {
  sections: { start: number; end: number; label: string }[];
}

export function sectionedTrack(): SectionedTrack {
  const parts = SECTIONS.map((s) => s.render());
  const length = parts.reduce((a, p) => a + p.channels[0].length, 0);
  const channels: [Float32Array, Float32Array] = [new Float32Array(length), new Float32Array(length)];
  const beats: { time: number; beatNum: number }[] = [];
  const sections: SectionedTrack["sections"] = [];
  let offset = 0;
  parts.forEach((part, i) => {
    channels[0].set(part.channels[0], offset);
    channels[1].set(part.channels[1], offset);
    const start = offset / SAMPLE_RATE;
    beats.push(...part.truth.beats.map((b) => ({ time: b.time + start, beatNum: b.beatNum })));
    offset += part.channels[0].length;
    sections.push({ start, end: offset / SAMPLE_RATE, label: SECTIONS[i]?.label as string });
  });
  const truth = { ...(parts[0] as Track).truth, beats, chords: [] };
  return { sampleRate: SAMPLE_RATE, channels, truth, sections };
}
