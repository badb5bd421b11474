import fsp from "node:fs/promises";
import path from "node:path";
import { ANALYSIS_SAMPLE_RATE, analyzeMusic } from "../../dsp/analyze-music.ts";
import { findSections } from "../../dsp/sections.ts";
import type { Module } from "../../engine/types.ts";
import { decodeAudio } from "../../media/pcm.ts";

export const musicAnalysisModule: Module = {
  name: "music-analysis",
  description:
    "Tempo, beats with their position in the bar (2, 3 or 4 beats: 6/8, 3/4, 4/4), chords (major/minor triads on 12 roots, or N), key and song sections of a piece of music.",
  params: { type: "object", additionalProperties: false, properties: {} },
  inputs: { audio: { type: "audio", description: "Music to analyse" } },
  outputs: {
    bpm: {
      type: "number",
      nullable: true,
      description:
        "Global tempo, beats per minute; null when there is no steady beat to count (silence, noise, speech, a drone, music in free time), and then the beat map is empty",
    },
    bpmConfidence: { type: "number", description: "0..1: how sure the analysis is that there is a steady beat" },
    beatMap: {
      type: "json",
      description: '[{"time": seconds, "beatNum": 1..N}], beatNum 1 = downbeat; [] without a beat',
    },
    chordMap: {
      type: "json",
      description:
        '[{"start": s, "end": s, "chord": "C" | "Am" | … | "N", "confidence": 0..1}]; N where no chord sounds, its confidence how clearly none does',
    },
    key: {
      type: "string",
      nullable: true,
      description: 'e.g. "C major", "A minor"; null when the harmony supports no key (silence, noise, speech, a drone)',
    },
    keyConfidence: { type: "number", description: "0..1: how sure the analysis is of the key (low where key is null)" },
    sections: {
      type: "json",
      description:
        '[{"start": s, "end": s, "label": "A" | "B" | …, "confidence": 0..1}]: contiguous from 0 to the end, boundaries on downbeats; repeated sections share a letter, letters in order of first appearance; confidence: how clearly the section\'s edges and its letter stand out',
    },
  },
  heavy: true,
  async run(ctx) {
    const pcm = await decodeAudio(
      String(ctx.inputs.audio),
      { sampleRate: ANALYSIS_SAMPLE_RATE, channels: 1 },
      ctx.signal,
    );
    const signal = pcm.channels[0] as Float32Array;
    const analysis = analyzeMusic(signal, pcm.sampleRate);
    const beatMap = path.join(ctx.outputDir, "beats.json");
    const chordMap = path.join(ctx.outputDir, "chords.json");
    await fsp.writeFile(beatMap, JSON.stringify(analysis.beats));
    await fsp.writeFile(chordMap, JSON.stringify(analysis.chords));
    const sections = path.join(ctx.outputDir, "sections.json");
    await fsp.writeFile(sections, JSON.stringify(findSections(signal, pcm.sampleRate, analysis.beats)));
    return {
      bpm: analysis.bpm,
      bpmConfidence: analysis.bpmConfidence,
      beatMap,
      chordMap,
      key: analysis.key,
      keyConfidence: analysis.keyConfidence,
      sections,
    };
  },
};
