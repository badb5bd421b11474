import path from "node:path";
import { fourStemMasks } from "../../dsp/four-stems.ts";
import { istft, stft } from "../../dsp/spectrogram.ts";
import type { Module } from "../../engine/types.ts";
import { AUDIO_FORMAT_NAMES, AUDIO_FORMATS, type AudioFormat } from "../../media/formats.ts";
import { decodeAudio, encodePcm, type Pcm } from "../../media/pcm.ts";
import { analysisSize } from "../stems-shared/masked-stem.ts";

export const FOUR_STEMS = ["vocals", "drums", "bass", "other"] as const;
export type FourStems = Record<(typeof FOUR_STEMS)[number], Float32Array[]>;

/**
 * Vocals, drums, bass and other of a recording by the classical masks of dsp/four-stems.ts (one mask per stem
 * for all channels); other is the input minus the three, so the four add up to the input exactly.
 */
export function fourStemsClassical(pcm: Pcm): FourStems {
  const { fftSize, hop } = analysisSize(pcm.sampleRate);
  const specs = pcm.channels.map((channel) => stft(channel, fftSize, hop));
  const masks = fourStemMasks(specs, pcm.sampleRate);
  const drums = specs.map((spec) => istft(spec, masks.drums));
  const bass = specs.map((spec) => istft(spec, masks.bass));
  const vocals = specs.map((spec) => istft(spec, masks.vocals));
  const other = pcm.channels.map((channel, c) => {
    const d = drums[c] as Float32Array;
    const b = bass[c] as Float32Array;
    const v = vocals[c] as Float32Array;
    return channel.map((x, i) => x - (d[i] as number) - (b[i] as number) - (v[i] as number));
  });
  return { vocals, drums, bass, other };
}

export const stems4Module: Module = {
  name: "stems-4",
  description:
    "Splits a song into vocals, drums, bass and other with classical masks: harmonic/percussive/residual separation for the drums (Driedger et al. 2014), a low-band f0 track and its partials for the bass, a predominant-melody f0 track (harmonic summation, stereo centre) and its partials for the vocals. The four stems add up to the input.",
  params: {
    type: "object",
    additionalProperties: false,
    properties: { format: { enum: AUDIO_FORMAT_NAMES, default: "wav" } },
  },
  inputs: { audio: { type: "audio", description: "Song to separate" } },
  outputs: {
    vocals: { type: "audio", description: "Lead vocals (the predominant melody)" },
    drums: { type: "audio", description: "Drums, cymbals included" },
    bass: { type: "audio", description: "Bass line" },
    other: { type: "audio", description: "Everything else: the input minus the other three" },
    method: { type: "string", description: '"classical"' },
  },
  heavy: true,
  async run(ctx) {
    const format = (ctx.params.format ?? "wav") as AudioFormat;
    const pcm = await decodeAudio(String(ctx.inputs.audio), {}, ctx.signal);
    ctx.reportProgress?.(0.1);
    const stems = fourStemsClassical(pcm);
    ctx.reportProgress?.(0.9);
    const extension = AUDIO_FORMATS[format].extension;
    const files = Object.fromEntries(
      FOUR_STEMS.map((name) => [name, path.join(ctx.outputDir, `${name}.${extension}`)]),
    );
    await Promise.all(
      FOUR_STEMS.map((name) =>
        encodePcm({ sampleRate: pcm.sampleRate, channels: stems[name] }, files[name] as string, format, ctx.signal),
      ),
    );
    return { ...files, method: "classical" };
  },
};
