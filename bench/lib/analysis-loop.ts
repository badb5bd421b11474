// The work of one beats-and-chords job without Mixdown around it: decode a file to 22.05 kHz mono with
// ffmpeg and analyse it, RUNS times in a row. bench/distributed.ts runs one and two of these at once to
// measure how far this machine itself scales the same CPU-bound work.
import { ANALYSIS_SAMPLE_RATE, analyzeMusic } from "../../src/dsp/analyze-music.ts";
import { decodeAudio } from "../../src/media/pcm.ts";

const [file, runs] = [process.argv[2] ?? "", Number(process.argv[3] ?? 1)];
for (let run = 0; run < runs; run++) {
  const pcm = await decodeAudio(file, { sampleRate: ANALYSIS_SAMPLE_RATE, channels: 1 });
  analyzeMusic(pcm.channels[0] as Float32Array, pcm.sampleRate);
}
