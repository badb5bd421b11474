/**
 * One track of the family material to audio: every part played by the family its plan names for the part's
 * slot, the parts of a slot levelled together to the slot's loudness in a pop balance, the slots summed into the
 * four true stems, the stems through the plan's mixing chain, then — as the corpus does (test/corpus/render.ts) —
 * all stems scaled by one gain so the mixture peaks at −1 dBFS, quantised to 16 bits, and the mixture written as
 * their exact sum. Each part is also written alone (parts/), at its level in the mix before the mixing chain,
 * for the measures of a sound alone.
 */
import fsp from "node:fs/promises";
import path from "node:path";
import { encodeWav16 } from "../../src/media/wav.ts";
import { type CorpusTruth, type NoteEvent, type PartName, STEMS, type Stem } from "../corpus/types.ts";
import { CABINET_FILTER } from "./amp.ts";
import { addInto, ffmpegFilter, panGains, Rng, SAMPLE_RATE, type Stereo, silence, sumOf } from "./audio.ts";
import type { Material, MaterialPart, Slot } from "./material.ts";
import { STEM_OF_SLOT } from "./material.ts";
import { applyMixChain } from "./mix-chains.ts";
import { familyById, renderOf } from "./registry.ts";

export interface TrackPlan {
  id: string;
  material: () => Material;
  /** The family that plays each slot the material uses. */
  families: Partial<Record<Slot, string>>;
  /** The mixing chain's family. */
  mix: string;
  /** A spoken voice laid over a score that has none (its family in `families.voice`), `voiceDb` under the rest. */
  speechOver?: boolean;
}

/** What render-track.ts writes beside the truth: which family played what. */
export interface TrackMeta {
  id: string;
  source: Material["source"];
  style: string;
  families: Partial<Record<Slot, string>>;
  mix: string;
  parts: { file: string; slot: Slot; family: string; program: number }[];
  /** The stems present: over 0.1 % of the mixture's energy. */
  stemsPresent: Stem[];
}

/** The slots' loudness in the mix: RMS (dBFS) over the part's sounding stretches, before the master gain. */
const SLOT_DB: Record<Slot, number> = {
  drums: -16,
  bass: -18,
  voice: -16,
  guitar: -20,
  "guitar-distorted": -19,
  "guitar-acoustic": -18,
  keys: -21,
  pads: -24,
  orchestral: -20,
  lead: -21,
};

/** RMS in dB over the 100 ms blocks within 30 dB of the loudest: the level while the part plays. */
export function activeDb(audio: Stereo): number {
  const block = Math.round(0.1 * SAMPLE_RATE);
  const powers: number[] = [];
  for (let at = 0; at + block <= audio[0].length; at += block) {
    let p = 0;
    for (let i = at; i < at + block; i++) p += ((audio[0][i] as number) ** 2 + (audio[1][i] as number) ** 2) / 2;
    powers.push(p / block);
  }
  const loudest = Math.max(...powers);
  const kept = powers.filter((p) => p > loudest * 1e-3);
  const mean = kept.reduce((a, p) => a + p, 0) / Math.max(1, kept.length);
  return mean > 0 ? 10 * Math.log10(mean) : Number.NEGATIVE_INFINITY;
}

const seedOf = (text: string) => [...text].reduce((h, c) => (Math.imul(h, 31) + c.charCodeAt(0)) >>> 0, 7);

/** The notes moved by up to ±`seconds` each (a second take of the same part). */
function retaken(notes: readonly NoteEvent[], seconds: number, seed: number): NoteEvent[] {
  const rng = new Rng(seed);
  return notes.map((n) => ({ ...n, time: Math.max(0, n.time + rng.uniform(-seconds, seconds)) }));
}

/** A sidechain duck: −9 dB at each kick, back over 60 % of the gap to the next beat. */
function ducked(audio: Stereo, kicks: readonly number[]): Stereo {
  const gain = new Float32Array(audio[0].length).fill(1);
  const sorted = [...kicks].sort((a, b) => a - b);
  sorted.forEach((t, k) => {
    const at = Math.round(t * SAMPLE_RATE);
    const span = Math.round(0.6 * ((sorted[k + 1] ?? t + 0.5) - t) * SAMPLE_RATE);
    for (let i = 0; i < span && at + i < gain.length; i++) {
      const x = i / span;
      gain[at + i] = Math.min(gain[at + i] as number, 0.35 + 0.65 * x * x);
    }
  });
  return audio.map((channel) => channel.map((v, i) => v * (gain[i] as number))) as Stereo;
}

/** Notes for a voice laid over a score without one: a phrase of words on the beats of every other two bars. */
function speechNotes(truth: CorpusTruth): NoteEvent[] {
  const bars = truth.beats.filter((b) => b.beatNum === 1).map((b) => b.time);
  return truth.beats
    .filter((b) => {
      const bar = bars.filter((t) => t <= b.time + 1e-6).length - 1;
      return bar % 4 < 2;
    })
    .map((b) => ({ midi: 57, time: b.time, duration: 0.4, velocity: 0.9 }));
}

/** One part by its slot's family, stereo, at the part's channel volume and pan. */
async function playPart(
  plan: TrackPlan,
  part: MaterialPart,
  length: number,
  seed: number,
  kicks: number[],
): Promise<Stereo> {
  const familyId = plan.families[part.slot];
  if (!familyId) throw new Error(`${plan.id}: no family for the ${part.slot} slot`);
  const family = familyById(familyId);
  const volume = (part.volume / 127) ** 2;
  const gains = panGains(((part.pan - 64) / 64) * 0.8).map((g) => g * volume) as [number, number];
  let audio: Stereo;
  if (family.render.type === "instrument") {
    audio = await family.render.play(part.notes, { length, slot: part.slot, program: part.program, gains, seed });
    if (family.id === "waveguide-guitar") audio = await ffmpegFilter(audio, CABINET_FILTER);
  } else if (family.render.type === "voice") {
    const voice = await family.render.sing(part.notes, length, seed);
    audio = [voice.map((v) => v * volume), voice.map((v) => v * volume)];
  } else if (family.render.type === "amp") {
    // Two takes of the part, each through the amp, panned apart: a rock mix's double-tracked guitar.
    const { di, amplify } = family.render;
    const takes = await Promise.all(
      [0, 1].map(async (take) => {
        const notes = take ? retaken(part.notes, 0.012, seed) : part.notes;
        return amplify(await di(notes, length, seed + take), seed + take);
      }),
    );
    audio = silence(length);
    addInto(audio, takes[0] as Float32Array, 0, ...(panGains(-0.75).map((g) => g * volume) as [number, number]));
    addInto(audio, takes[1] as Float32Array, 0, ...(panGains(0.75).map((g) => g * volume) as [number, number]));
  } else throw new Error(`${family.id} cannot play a part (${family.render.type})`);
  return part.sidechain ? ducked(audio, kicks) : audio;
}

const PART_NAME: Record<Slot, PartName> = {
  drums: "drums",
  bass: "bass",
  voice: "voice",
  guitar: "comp",
  "guitar-distorted": "comp",
  "guitar-acoustic": "comp",
  keys: "comp",
  pads: "pad",
  orchestral: "pad",
  lead: "lead",
};

const PEAK = 10 ** (-1 / 20);

/** Renders the plan into `dir`: drums/bass/vocals/other.wav, mixture.wav, parts/*.wav, truth.json, meta.json. */
export async function renderTrack(plan: TrackPlan, dir: string): Promise<void> {
  const material = plan.material();
  const { truth } = material;
  const length = Math.round(truth.duration * SAMPLE_RATE);
  const parts = [...material.parts];
  if (plan.speechOver) parts.push({ slot: "voice", program: 0, volume: 110, pan: 64, notes: speechNotes(truth) });
  const kicks = parts
    .filter((p) => p.slot === "drums")
    .flatMap((p) => p.notes.filter((n) => n.midi === 35 || n.midi === 36).map((n) => n.time));
  const rng = new Rng(seedOf(plan.id));
  const played: { part: MaterialPart; audio: Stereo }[] = [];
  for (const [i, part] of parts.entries())
    played.push({ part, audio: await playPart(plan, part, length, seedOf(plan.id) + i, kicks) });
  // Level each slot's parts together to the slot's loudness, ±1.5 dB by track.
  const slotGain = new Map<Slot, number>();
  for (const slot of new Set(parts.map((p) => p.slot))) {
    const sum = sumOf(...played.filter((p) => p.part.slot === slot).map((p) => p.audio));
    const found = activeDb(sum);
    slotGain.set(slot, Number.isFinite(found) ? 10 ** ((SLOT_DB[slot] + rng.uniform(-1.5, 1.5) - found) / 20) : 0);
  }
  for (const p of played) {
    const g = slotGain.get(p.part.slot) as number;
    p.audio = p.audio.map((channel) => channel.map((v) => v * g)) as Stereo;
  }
  const stems = Object.fromEntries(
    STEMS.map((stem) => [
      stem,
      sumOf(silence(length), ...played.filter((p) => STEM_OF_SLOT[p.part.slot] === stem).map((p) => p.audio)),
    ]),
  ) as Record<Stem, Stereo>;
  const mixChain = renderOf(plan.mix, "mix").chain;
  const mixed = await applyMixChain(mixChain, stems, seedOf(plan.id));
  const mixture = sumOf(...Object.values(mixed));
  let peak = 0;
  for (const channel of mixture) for (const v of channel) peak = Math.max(peak, Math.abs(v));
  const gain = PEAK / peak;
  await fsp.mkdir(path.join(dir, "parts"), { recursive: true });
  // Stems to 16-bit steps (floats k/32768, which the WAV writer maps back exactly), then summed exactly.
  const sum: Stereo = silence(length);
  const energies = new Map<Stem, number>();
  for (const stem of STEMS) {
    const steps = mixed[stem].map((channel) =>
      channel.map((v) => Math.max(-32768, Math.min(32767, Math.round(v * gain * 32768))) / 32768),
    ) as Stereo;
    addInto(sum, steps, 0);
    energies.set(
      stem,
      steps.reduce((a, c) => c.reduce((b, v) => b + v * v, a), 0),
    );
    await fsp.writeFile(path.join(dir, `${stem}.wav`), encodeWav16(steps, SAMPLE_RATE));
  }
  await fsp.writeFile(path.join(dir, "mixture.wav"), encodeWav16(sum, SAMPLE_RATE));
  const total = [...energies.values()].reduce((a, e) => a + e, 0);
  const meta: TrackMeta = {
    id: plan.id,
    source: material.source,
    style: material.style,
    families: plan.families,
    mix: plan.mix,
    parts: [],
    stemsPresent: STEMS.filter((stem) => (energies.get(stem) as number) > 1e-3 * total),
  };
  for (const [i, p] of played.entries()) {
    const file = `parts/${String(i).padStart(2, "0")}-${p.part.slot}.wav`;
    const partPeak = p.audio.reduce((q, c) => c.reduce((r, v) => Math.max(r, Math.abs(v * gain)), q), 0);
    const g = partPeak > PEAK ? (gain * PEAK) / partPeak : gain;
    await fsp.writeFile(
      path.join(dir, file),
      encodeWav16(
        p.audio.map((c) => c.map((v) => v * g)),
        SAMPLE_RATE,
      ),
    );
    meta.parts.push({ file, slot: p.part.slot, family: plan.families[p.part.slot] as string, program: p.part.program });
  }
  const fullTruth: CorpusTruth = {
    ...truth,
    parts: parts.map((p) => ({
      name: PART_NAME[p.slot],
      stem: STEM_OF_SLOT[p.slot],
      program: p.program,
      notes: p.notes,
    })),
  };
  await fsp.writeFile(path.join(dir, "truth.json"), JSON.stringify(fullTruth));
  await fsp.writeFile(path.join(dir, "meta.json"), JSON.stringify(meta));
}
