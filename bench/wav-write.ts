/**
 * Writing a job's PCM result as 16-bit WAV (the default output of stems and loudness-normalize): Mixdown's own
 * writer (src/media/wav.ts) ÷ piping the same float samples to ffmpeg's pcm_s16le encoder, as Mixdown did before
 * (the samples are identical: test/media/wav.test.ts). A 90 s stereo 44.1 kHz result; the two alternate over
 * BENCH_ROUNDS (5) rounds; best of each. CPU counts this process and ffmpeg. Run: node bench/wav-write.ts
 */
import { spawn } from "node:child_process";
import path from "node:path";
import { AUDIO_FORMATS } from "../src/media/formats.ts";
import { writeWav16 } from "../src/media/wav.ts";
import { cpuSeconds, envInt, makeTempDir, printTable, round, runBench } from "./lib/harness.ts";

const ROUNDS = envInt("BENCH_ROUNDS", 5);
const FRAMES = 90 * 44100;

/** The float samples interleaved and piped to ffmpeg in 64 Ki-frame blocks, as the ffmpeg path of encodePcm does. */
function ffmpegWav(channels: Float32Array[], file: string): Promise<void> {
  const args = ["-hide_banner", "-nostdin", "-v", "error", "-y", "-f", "f32le", "-ar", "44100", "-ac", "2"];
  const child = spawn("ffmpeg", [...args, "-i", "pipe:0", ...AUDIO_FORMATS.wav.args, file], {
    stdio: ["pipe", "ignore", "inherit"],
  });
  const done = new Promise<void>((resolve, reject) =>
    child.on("close", (code) => (code === 0 ? resolve() : reject(new Error(`ffmpeg exited with ${code}`)))),
  );
  let offset = 0;
  const writeMore = () => {
    while (offset < FRAMES) {
      const end = Math.min(FRAMES, offset + 65536);
      const chunk = new Float32Array((end - offset) * 2);
      for (let i = offset; i < end; i++) {
        chunk[(i - offset) * 2] = channels[0]?.[i] as number;
        chunk[(i - offset) * 2 + 1] = channels[1]?.[i] as number;
      }
      offset = end;
      if (!child.stdin.write(Buffer.from(chunk.buffer))) return void child.stdin.once("drain", writeMore);
    }
    child.stdin.end();
  };
  writeMore();
  return done;
}

async function measure(write: () => Promise<void>): Promise<{ seconds: number; cpu: number }> {
  const cpu = cpuSeconds("self", { children: true });
  const start = performance.now();
  await write();
  return { seconds: (performance.now() - start) / 1000, cpu: cpuSeconds("self", { children: true }) - cpu };
}

runBench(async () => {
  const dir = makeTempDir("mixdown-bench-wav-");
  const channels = [0, 1].map((c) => Float32Array.from({ length: FRAMES }, (_, i) => 0.8 * Math.sin(i * (0.01 + c))));
  const ours: { seconds: number; cpu: number }[] = [];
  const theirs: { seconds: number; cpu: number }[] = [];
  for (let r = 0; r < ROUNDS; r++) {
    theirs.push(await measure(() => ffmpegWav(channels, path.join(dir, "ffmpeg.wav"))));
    ours.push(await measure(() => writeWav16(channels, 44100, path.join(dir, "mixdown.wav"))));
  }
  const best = (list: { seconds: number; cpu: number }[]) => ({
    seconds: Math.min(...list.map((m) => m.seconds)),
    cpu: Math.min(...list.map((m) => m.cpu)),
  });
  const [mixdown, ffmpeg] = [best(ours), best(theirs)];
  console.log(`A 90 s stereo 44.1 kHz result to 16-bit WAV, best of ${ROUNDS} rounds:`);
  printTable([
    ["writer", "s", "CPU s (with ffmpeg's)"],
    ["ffmpeg pcm_s16le, piped", round(ffmpeg.seconds, 3), round(ffmpeg.cpu)],
    ["Mixdown's (src/media/wav.ts)", round(mixdown.seconds, 3), round(mixdown.cpu)],
  ]);
  const ratio = ffmpeg.cpu / mixdown.cpu;
  console.log(`CPU ffmpeg / Mixdown: ${ratio.toFixed(2)} (goal > 1: ${ratio > 1 ? "met" : "NOT met"})`);
  console.log(JSON.stringify({ bench: "wav-write", ffmpeg, mixdown, cpuRatio: ratio, goalMet: ratio > 1 }));
});
