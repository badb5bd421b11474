import fsp from "node:fs/promises";
import path from "node:path";
import { computePeaks } from "../../dsp/peaks.ts";
import type { Module } from "../../engine/types.ts";
import { decodeAudio, pcmLength } from "../../media/pcm.ts";
import { encodePng, Image, parseColor } from "../../media/png.ts";

const COLOR = { type: "string", pattern: "^#[0-9a-fA-F]{6}([0-9a-fA-F]{2})?$" };

export const waveformModule: Module = {
  name: "waveform",
  description:
    "Peaks of the waveform (min/max of all channels per bucket of samples) as JSON, and a PNG picture of it.",
  params: {
    type: "object",
    additionalProperties: false,
    properties: {
      pointsPerSecond: {
        type: "integer",
        minimum: 1,
        maximum: 2000,
        default: 50,
        description: "Buckets per second in the peaks JSON",
      },
      width: { type: "integer", minimum: 16, maximum: 8192, default: 1000 },
      height: { type: "integer", minimum: 16, maximum: 2048, default: 200 },
      color: { ...COLOR, default: "#2563eb" },
      background: { ...COLOR, default: "#ffffff00" },
    },
  },
  inputs: { audio: { type: "audio", description: "Audio to draw" } },
  outputs: {
    peaks: { type: "json", description: "{sampleRate, channels, samplesPerPeak, length, data: [min, max, …]}" },
    image: { type: "image", description: "PNG of the waveform" },
  },
  heavy: true,
  async run(ctx) {
    const p = ctx.params as {
      pointsPerSecond: number;
      width: number;
      height: number;
      color: string;
      background: string;
    };
    const pcm = await decodeAudio(String(ctx.inputs.audio), {}, ctx.signal);
    const samplesPerPeak = Math.max(1, Math.round(pcm.sampleRate / p.pointsPerSecond));
    const peaks = computePeaks(pcm.channels, samplesPerPeak);
    const data: number[] = [];
    for (let i = 0; i < peaks.min.length; i++) {
      data.push(Math.round((peaks.min[i] as number) * 1e4) / 1e4, Math.round((peaks.max[i] as number) * 1e4) / 1e4);
    }
    const peaksFile = path.join(ctx.outputDir, "peaks.json");
    const json = {
      version: 1,
      sampleRate: pcm.sampleRate,
      channels: pcm.channels.length,
      samplesPerPeak,
      length: peaks.min.length,
      data,
    };
    await fsp.writeFile(peaksFile, JSON.stringify(json));

    const image = new Image(p.width, p.height, parseColor(p.background));
    const columns = computePeaks(pcm.channels, Math.max(1, Math.ceil(pcmLength(pcm) / p.width)));
    const color = parseColor(p.color);
    const toY = (v: number) => Math.round(((1 - Math.max(-1, Math.min(1, v))) / 2) * (p.height - 1));
    for (let x = 0; x < columns.min.length; x++) {
      for (let y = toY(columns.max[x] as number); y <= toY(columns.min[x] as number); y++) image.set(x, y, color);
    }
    const imageFile = path.join(ctx.outputDir, "waveform.png");
    await fsp.writeFile(imageFile, encodePng(image));
    return { peaks: peaksFile, image: imageFile };
  },
};
