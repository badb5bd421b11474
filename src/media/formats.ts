/** Output formats Mixdown encodes to, with the ffmpeg arguments and the media type of each. */
export const AUDIO_FORMATS = {
  mp3: {
    extension: "mp3",
    contentType: "audio/mpeg",
    args: ["-c:a", "libmp3lame", "-q:a", "2", "-f", "mp3"],
  },
  wav: { extension: "wav", contentType: "audio/wav", args: ["-c:a", "pcm_s16le", "-f", "wav"] },
  flac: { extension: "flac", contentType: "audio/flac", args: ["-c:a", "flac", "-f", "flac"] },
  ogg: { extension: "ogg", contentType: "audio/ogg", args: ["-c:a", "libvorbis", "-q:a", "5", "-f", "ogg"] },
  opus: {
    extension: "opus",
    contentType: "audio/opus",
    args: ["-c:a", "libopus", "-b:a", "128k", "-f", "opus"],
  },
  m4a: { extension: "m4a", contentType: "audio/mp4", args: ["-c:a", "aac", "-b:a", "192k", "-f", "ipod"] },
} as const;

export type AudioFormat = keyof typeof AUDIO_FORMATS;
export const AUDIO_FORMAT_NAMES = Object.keys(AUDIO_FORMATS) as AudioFormat[];
