import fsp from "node:fs/promises";
import path from "node:path";
import { FrameAnalyzer, mixToMono } from "../../dsp/stft.ts";
import type { Module } from "../../engine/types.ts";
import { decodeAudio } from "../../media/pcm.ts";
import { encodePng, Image } from "../../media/png.ts";

/** Colour stops from silence to loudest (dark blue → purple → orange → pale yellow). */
const STOPS: [number, number, number][] = [
  [0, 0, 4],
  [40, 11, 84],
  [101, 21, 110],
  [159, 42, 99],
  [212, 72, 66],
  [245, 125, 21],
  [250, 193, 39],
  [252, 255, 164],
];

function colorAt(t: number): [number, number, number, number] {
  const x = Math.max(0, Math.min(1, t)) * (STOPS.length - 1);
  const i = Math.min(STOPS.length - 2, Math.floor(x));
  const [a, b] = [STOPS[i] as [number, number, number], STOPS[i + 1] as [number, number, number]];
  const f = x - i;
  return [
    Math.round(a[0] + (b[0] - a[0]) * f),
    Math.round(a[1] + (b[1] - a[1]) * f),
    Math.round(a[2] + (b[2] - a[2]) * f),
    255,
  ];
}

export const spectrogramModule: Module = {
  name: "spectrogram",
  description: "A PNG spectrogram with a logarithmic frequency axis (low frequencies at the bottom).",
  params: {
    type: "object",
    additionalProperties: false,
    properties: {
      width: { type: "integer", minimum: 16, maximum: 8192, default: 1024 },
      height: { type: "integer", minimum: 16, maximum: 2048, default: 512 },
      fftSize: { enum: [512, 1024, 2048, 4096, 8192], default: 4096 },
      minFrequency: { type: "number", minimum: 1, maximum: 1000, default: 30 },
      maxFrequency: { type: "number", minimum: 1000, maximum: 96000, default: 16000 },
      dynamicRange: {
        type: "number",
        minimum: 20,
        maximum: 160,
        default: 90,
        description: "dB shown below the loudest bin",
      },
    },
  },
  inputs: { audio: { type: "audio", description: "Audio to analyse" } },
  outputs: { image: { type: "image", description: "PNG spectrogram" } },
  heavy: true,
  async run(ctx) {
    const p = ctx.params as {
      width: number;
      height: number;
      fftSize: number;
      minFrequency: number;
      maxFrequency: number;
      dynamicRange: number;
    };
    const pcm = await decodeAudio(String(ctx.inputs.audio), {}, ctx.signal);
    const mono = mixToMono(pcm.channels);
    const analyzer = new FrameAnalyzer(p.fftSize);
    const maxFrequency = Math.min(p.maxFrequency, pcm.sampleRate / 2);
    const binOfRow = Float64Array.from({ length: p.height }, (_, y) => {
      const fraction = (p.height - 1 - y) / (p.height - 1);
      return (p.minFrequency * (maxFrequency / p.minFrequency) ** fraction * p.fftSize) / pcm.sampleRate;
    });
    const levels = new Float32Array(p.width * p.height);
    let loudest = Number.NEGATIVE_INFINITY;
    for (let x = 0; x < p.width; x++) {
      const spectrum = analyzer.magnitudesAt(mono, ((x + 0.5) * mono.length) / p.width);
      for (let y = 0; y < p.height; y++) {
        const bin = binOfRow[y] as number;
        const low = Math.floor(bin);
        const f = bin - low;
        const magnitude = (spectrum[low] ?? 0) * (1 - f) + (spectrum[low + 1] ?? 0) * f;
        const db = 20 * Math.log10(magnitude + 1e-12);
        levels[y * p.width + x] = db;
        if (db > loudest) loudest = db;
      }
    }
    const image = new Image(p.width, p.height);
    for (let y = 0; y < p.height; y++) {
      for (let x = 0; x < p.width; x++) {
        image.set(x, y, colorAt(1 + ((levels[y * p.width + x] as number) - loudest) / p.dynamicRange));
      }
    }
    const file = path.join(ctx.outputDir, "spectrogram.png");
    await fsp.writeFile(file, encodePng(image));
    return { image: file };
  },
};
