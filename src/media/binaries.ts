import { execFileSync } from "node:child_process";
import { createRequire } from "node:module";

const require = createRequire(import.meta.url);

function onPath(name: string): boolean {
  try {
    execFileSync(name, ["-version"], { stdio: "ignore" });
    return true;
  } catch {
    return false;
  }
}

/** The system binary if on PATH (Debian's ffmpeg), else the one shipped in an npm package. */
function resolve(name: "ffmpeg" | "ffprobe"): string {
  if (onPath(name)) return name;
  try {
    return (require(`@${name}-installer/${name}`) as { path: string }).path;
  } catch {
    throw new Error(`${name} not found: install it (apt-get install ffmpeg) or the @${name}-installer package`);
  }
}

let cache: { ffmpeg: string; ffprobe: string } | undefined;

/**
 * ffmpeg and ffprobe, found once per process: the first call records them in the environment, which
 * module processes forked later inherit, so none probes the PATH again (a synchronous start of two processes).
 */
export function mediaBinaries(): { ffmpeg: string; ffprobe: string } {
  cache ??= {
    ffmpeg: process.env.MIXDOWN_FFMPEG_PATH || resolve("ffmpeg"),
    ffprobe: process.env.MIXDOWN_FFPROBE_PATH || resolve("ffprobe"),
  };
  process.env.MIXDOWN_FFMPEG_PATH = cache.ffmpeg;
  process.env.MIXDOWN_FFPROBE_PATH = cache.ffprobe;
  return cache;
}
