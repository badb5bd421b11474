/**
 * File name endings of audio and video that ffmpeg reads, for files whose type the browser does not know (it says
 * "" or application/octet-stream for some, application/ogg for others).
 */
export const MEDIA_EXTENSIONS = (
  "3gp aac ac3 aif aifc aiff amr ape au avi caf dts eac3 flac flv m2ts m4a m4b m4v mka mkv mov mp2 mp3 " +
  "mp4 mpeg mpg mts oga ogg ogv opus ra rm snd spx tta voc w64 wav weba webm wma wmv wv"
).split(" ");
const KNOWN = new Set(MEDIA_EXTENSIONS);

/**
 * Why a file chosen on the run page is not taken (its name and the type the browser gave it), or undefined: the
 * inputs of workflows are audio or video, and a text or image file would only fail later, in the job.
 */
export function notMedia(name: string, type: string): string | undefined {
  if (/^(audio|video)\//i.test(type)) return undefined;
  const extension = /\.([a-z0-9]+)$/i.exec(name)?.[1]?.toLowerCase();
  if (extension && KNOWN.has(extension)) return undefined;
  return `${name} is not an audio or video file (${type || "unknown type"}): choose an audio or video file.`;
}
