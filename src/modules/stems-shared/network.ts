import fsp from "node:fs/promises";
import path from "node:path";
import { fileURLToPath } from "node:url";
import type { Spectrogram } from "../../dsp/spectrogram.ts";
import { decodeAudio, type Pcm } from "../../media/pcm.ts";
import { writeWavFloat } from "../../media/wav.ts";
import { wienerStems } from "./masked-stem.ts";
import { modelSettingsOf } from "./model-settings.ts";
import { modelFailure, separatedSpectrograms } from "./onnx-separator.ts";

/**
 * Mixdown's own four-stem mask network (tools/separation-model: a band-compressed spectrogram, a dense layer per
 * frame and dilated convolutions over time, softmax masks), trained on renders by soundfonts other than the test
 * corpus' and shipped with the code. It runs through the same ONNX separator as operator models. Its softmax runs at
 * sharpness 0.7 (the logits scaled by 0.7, in the file: metadata `mask_sharpness`): trained on its own renders, it is
 * surer of each cell than music made another way bears out, and softer masks gained on the corpus and on every voice
 * made another way (tools/separation-model/README.md, "Softer masks").
 */
export const NETWORK_FILE = fileURLToPath(new URL("../../../models/stems-4.onnx", import.meta.url));
/** The rate the network was trained at: its STFT bins mean these frequencies only at this rate. */
export const NETWORK_SAMPLE_RATE = 44100;

/**
 * No instrument of the network's stems plays below this (a bass guitar's lowest string is 41 Hz, a 5-string's
 * 31 Hz, a kick's body 50-100 Hz): what lies under it (a DC offset, rumble, the offset a sample carries, swelling
 * with its note's envelope, as FluidR3's warm pad does) belongs to other. The network hears the input whole (it
 * was trained so: with those bins zeroed in its input, development lost 0.96 dB on drums and 0.25 and 0.37 on
 * bass and vocals), but those bins are taken out of the mixture its masks share out, so vocals, drums and bass
 * have none of them and other, the input minus the three, has them all.
 */
export const LOWEST_STEM_HZ = 20;

/** The stems taken from the network; other is the input minus them (one inverse STFT fewer). */
export type NetworkStem = "vocals" | "drums" | "bass";
export const NETWORK_STEMS = ["vocals", "drums", "bass"] as const satisfies readonly NetworkStem[];

/**
 * The `wanted` stems by the network, one signal per channel; `pcm` must be at NETWORK_SAMPLE_RATE. The network's
 * masks (one per stem, the same for both channels) share out each stereo pair's cells by a multichannel Wiener
 * filter (dsp/spatial-wiener.ts), which needs all of them; a lone channel (mono, or the last of an odd count)
 * takes the masks as they are. Only the wanted stems are inverted.
 */
export async function networkStems<S extends NetworkStem>(
  pcm: Pcm,
  wanted: readonly S[],
  signal?: AbortSignal,
  onProgress?: (fraction: number) => void,
): Promise<Record<S, Float32Array[]>> {
  if (pcm.sampleRate !== NETWORK_SAMPLE_RATE) throw new Error(`the network takes ${NETWORK_SAMPLE_RATE} Hz audio`);
  const { settings, metadata } = await modelSettingsOf(NETWORK_FILE);
  const names = (metadata.stems ?? "").split(",");
  const missing = (["vocals", "drums", "bass", "other"] as const).filter((stem) => !names.includes(stem));
  if (missing.length) throw modelFailure(NETWORK_FILE, `its stems metadata lacks ${missing.join(", ")}`);
  const keep = NETWORK_STEMS.map((stem) => names.indexOf(stem));
  const { mixture, stems } = await separatedSpectrograms(
    NETWORK_FILE,
    pcm.channels,
    settings,
    names.length,
    keep,
    signal,
    onProgress,
  );
  signal?.throwIfAborted();
  const ignoredBins = Math.ceil((LOWEST_STEM_HZ * settings.fftSize) / NETWORK_SAMPLE_RATE);
  for (const spec of mixture) withoutLowestBins(spec, ignoredBins);
  // The network gives one mask per stem for both channels of a pair: the gain array of the pair's first channel.
  const out = wienerStems(
    mixture,
    (c) => stems.map((stemSpecs) => (stemSpecs[c] as Spectrogram).re),
    wanted.map((stem) => NETWORK_STEMS.indexOf(stem)),
  );
  return Object.fromEntries(wanted.map((stem, i) => [stem, out[i]])) as Record<S, Float32Array[]>;
}

/** `spec` with its `count` lowest bins zeroed in every frame (in place). */
function withoutLowestBins(spec: Spectrogram, count: number): void {
  for (let row = 0; row < spec.re.length; row += spec.bins) {
    spec.re.fill(0, row, row + count);
    spec.im.fill(0, row, row + count);
  }
}

/** `channel` cut or padded with zeros to `length` samples. */
const fitted = (channel: Float32Array, length: number) => {
  if (channel.length === length) return channel;
  const out = new Float32Array(length);
  out.set(channel.subarray(0, length));
  return out;
};

/**
 * The network's stems of the audio file `file` (decoded as `pcm`) at `pcm`'s own rate: at another rate than
 * NETWORK_SAMPLE_RATE the network runs on a copy decoded at that rate, and each stem is resampled back by
 * ffmpeg (through a float WAV in `scratchDir`, deleted after, so samples past full scale survive) to the input's
 * length.
 */
export async function networkStemsOf<S extends NetworkStem>(
  file: string,
  pcm: Pcm,
  wanted: readonly S[],
  scratchDir: string,
  signal?: AbortSignal,
  onProgress?: (fraction: number) => void,
): Promise<Record<S, Float32Array[]>> {
  if (pcm.sampleRate === NETWORK_SAMPLE_RATE) return networkStems(pcm, wanted, signal, onProgress);
  const copy = await decodeAudio(file, { sampleRate: NETWORK_SAMPLE_RATE, channels: pcm.channels.length }, signal);
  const stems = await networkStems(copy, wanted, signal, onProgress);
  const length = pcm.channels[0]?.length ?? 0;
  await fsp.mkdir(scratchDir, { recursive: true });
  try {
    const back = async (stem: S) => {
      const wav = path.join(scratchDir, `${stem}.wav`);
      await writeWavFloat(stems[stem], NETWORK_SAMPLE_RATE, wav, signal);
      const resampled = await decodeAudio(wav, { sampleRate: pcm.sampleRate }, signal);
      return resampled.channels.map((channel) => fitted(channel, length));
    };
    const resampled: [S, Float32Array[]][] = [];
    for (const stem of wanted) resampled.push([stem, await back(stem)]);
    return Object.fromEntries(resampled) as Record<S, Float32Array[]>;
  } finally {
    await fsp.rm(scratchDir, { recursive: true, force: true });
  }
}
