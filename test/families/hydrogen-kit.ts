/**
 * Hydrogen drum kits (Debian hydrogen-drumkits) played from note events: each kit's drumkit.xml is read, every
 * GM drum key is mapped to one of the kit's instruments by its name, and each hit mixes that instrument's sample
 * of the hit's velocity layer into the output, with the instrument's and layer's gains and Hydrogen's pan
 * (pan_L, pan_R). Instruments of one mute group choke each other (a closed hi-hat stops an open one). Samples are
 * recordings (acoustic kits) or synthesised sounds (electronic kits), decoded by ffmpeg to 44.1 kHz stereo.
 */
import fs from "node:fs";
import path from "node:path";
import type { NoteEvent } from "../corpus/types.ts";
import { addInto, SAMPLE_RATE, type Stereo, sampleFile, silence } from "./audio.ts";

export const HYDROGEN_KITS_DIR = "/usr/share/hydrogen/data/drumkits";

/** The drum elements a GM drum key stands for. */
export type DrumElement =
  | "kick"
  | "snare"
  | "side stick"
  | "clap"
  | "closed hi-hat"
  | "pedal hi-hat"
  | "open hi-hat"
  | "crash"
  | "ride"
  | "ride bell"
  | "high tom"
  | "mid tom"
  | "floor tom"
  | "tambourine"
  | "cowbell";

/** GM percussion key → element (keys not listed fall back to the nearest kind: 52/55/57 crash, 59 ride, …). */
export const GM_ELEMENT: Record<number, DrumElement> = {
  35: "kick",
  36: "kick",
  37: "side stick",
  38: "snare",
  39: "clap",
  40: "snare",
  41: "floor tom",
  42: "closed hi-hat",
  43: "floor tom",
  44: "pedal hi-hat",
  45: "mid tom",
  46: "open hi-hat",
  47: "mid tom",
  48: "high tom",
  49: "crash",
  50: "high tom",
  51: "ride",
  52: "crash",
  53: "ride bell",
  54: "tambourine",
  55: "crash",
  56: "cowbell",
  57: "crash",
  59: "ride",
};

/** An element a kit lacks is played by the first of these it has. */
const FALLBACK: Record<DrumElement, DrumElement[]> = {
  kick: [],
  snare: [],
  "side stick": ["snare"],
  clap: ["snare"],
  "closed hi-hat": [],
  "pedal hi-hat": ["closed hi-hat"],
  "open hi-hat": ["closed hi-hat"],
  crash: ["ride", "open hi-hat"],
  ride: ["crash", "closed hi-hat"],
  "ride bell": ["ride", "cowbell", "crash"],
  "high tom": ["mid tom", "floor tom", "snare"],
  "mid tom": ["high tom", "floor tom", "snare"],
  "floor tom": ["mid tom", "high tom", "snare"],
  tambourine: ["closed hi-hat"],
  cowbell: ["side stick", "closed hi-hat"],
};

/**
 * Names of a kit's instruments to elements, first match wins (overridden per kit by `names`); null: an
 * articulation no GM key plays (a snare roll, a choked cymbal). A china or splash is a crash only in a kit
 * without one (FALLBACK_NAMES).
 */
const NAME_PATTERNS: [RegExp, DrumElement | null][] = [
  [/roll|choke|flink|swish|splash|china|semi-?open|hat free|rimshot/i, null],
  [/kick|bass ?drum|\bbd\b/i, "kick"],
  [/rim ?click|stick/i, "side stick"],
  [/clap/i, "clap"],
  [/snare/i, "snare"],
  [/pedal|foot/i, "pedal hi-hat"],
  [/(hat|hh).*(open|op\b)|open.*(hat|hh)/i, "open hi-hat"],
  [/(hat|hh)/i, "closed hi-hat"],
  [/cowbell/i, "cowbell"],
  [/crash\/ride/i, null],
  [/ride.*(bell|cup)|(bell|cup).*ride|ride-cup/i, "ride bell"],
  [/ride/i, "ride"],
  [/crash/i, "crash"],
  [/floor|tom.*(low|lo\b)|low.*tom/i, "floor tom"],
  [/tom.*mid|mid.*tom|tom 2/i, "mid tom"],
  [/tom/i, "high tom"],
  [/tambourine/i, "tambourine"],
];
const FALLBACK_NAMES: [RegExp, DrumElement][] = [[/china|splash/i, "crash"]];

interface Layer {
  file: string;
  min: number;
  max: number;
  gain: number;
}

export interface KitInstrument {
  name: string;
  gain: number;
  panLeft: number;
  panRight: number;
  muteGroup: number;
  layers: Layer[];
}

export interface HydrogenKit {
  dir: string;
  instruments: KitInstrument[];
  /** The instrument playing each element. */
  byElement: Map<DrumElement, KitInstrument>;
}

const tag = (xml: string, name: string): string | undefined =>
  new RegExp(`<${name}>([^<]*)</${name}>`).exec(xml)?.[1]?.trim();
const num = (xml: string, name: string, fallback: number): number => {
  const value = Number(tag(xml, name));
  return Number.isFinite(value) && tag(xml, name) !== undefined ? value : fallback;
};

/** Reads `<dir>/drumkit.xml`'s instruments (the layered format and the older one with one file per instrument). */
export function readInstruments(kitDir: string, exclude: readonly string[] = []): KitInstrument[] {
  const dir = path.join(HYDROGEN_KITS_DIR, kitDir);
  const xml = fs.readFileSync(path.join(dir, "drumkit.xml"), "utf8");
  const instruments: KitInstrument[] = [];
  for (const block of xml.match(/<instrument>[\s\S]*?<\/instrument>/g) ?? []) {
    const name = tag(block, "name") ?? "";
    const layers: Layer[] = (block.match(/<layer>[\s\S]*?<\/layer>/g) ?? []).map((layer) => ({
      file: path.join(dir, tag(layer, "filename") ?? ""),
      min: num(layer, "min", 0),
      max: num(layer, "max", 1),
      gain: num(layer, "gain", 1),
    }));
    const single = layers.length === 0 ? tag(block, "filename") : undefined;
    if (single) layers.push({ file: path.join(dir, single), min: 0, max: 1, gain: 1 });
    const usable = layers.filter((l) => fs.existsSync(l.file));
    if (!name || usable.length === 0 || exclude.includes(name) || num(block, "volume", 1) === 0) continue;
    instruments.push({
      name,
      gain: num(block, "volume", 1) * num(block, "gain", 1),
      panLeft: num(block, "pan_L", 1),
      panRight: num(block, "pan_R", 1),
      muteGroup: num(block, "muteGroup", -1),
      layers: usable.sort((a, b) => a.min - b.min),
    });
  }
  return instruments;
}

/** Reads a kit and maps the GM drum elements to its instruments by their names (`names` overrides). */
export function readKit(
  kitDir: string,
  names: Partial<Record<DrumElement, string>> = {},
  exclude: readonly string[] = [],
): HydrogenKit {
  const dir = path.join(HYDROGEN_KITS_DIR, kitDir);
  const instruments = readInstruments(kitDir, exclude);
  const byElement = new Map<DrumElement, KitInstrument>();
  for (const [element, name] of Object.entries(names) as [DrumElement, string][]) {
    const found = instruments.find((i) => i.name === name);
    if (!found) throw new Error(`${kitDir}: no instrument named ${name}`);
    byElement.set(element, found);
  }
  for (const patterns of [NAME_PATTERNS, FALLBACK_NAMES])
    for (const instrument of instruments) {
      const element = patterns.find(([pattern]) => pattern.test(instrument.name))?.[1];
      if (element && !byElement.has(element)) byElement.set(element, instrument);
    }
  for (const [element, fallbacks] of Object.entries(FALLBACK) as [DrumElement, DrumElement[]][]) {
    if (byElement.has(element)) continue;
    const other = fallbacks.find((f) => byElement.has(f));
    if (other) byElement.set(element, byElement.get(other) as KitInstrument);
  }
  for (const needed of ["kick", "snare", "closed hi-hat"] as const)
    if (!byElement.has(needed)) throw new Error(`${kitDir}: no ${needed}`);
  return { dir, instruments, byElement };
}

/** The element a GM key plays in a kit (an unknown key: the crash, the kit's most common fill-in). */
export const elementOf = (key: number): DrumElement => GM_ELEMENT[key] ?? "crash";

/** Hits (GM keys, velocities 0..1) played by the kit into `length` frames of stereo. */
export function playKit(kit: HydrogenKit, hits: readonly NoteEvent[], length: number): Promise<Stereo> {
  const played = hits.flatMap((hit) => {
    const instrument = kit.byElement.get(elementOf(hit.midi));
    return instrument ? [{ instrument, time: hit.time, velocity: hit.velocity }] : [];
  });
  return playInstruments(played, length);
}

/** A hit on one instrument of a kit: its time in seconds and velocity 0..1. */
export interface InstrumentHit {
  instrument: KitInstrument;
  time: number;
  velocity: number;
}

/** Hits on a kit's instruments into `length` frames of stereo, each instrument's mute group choking the last hit. */
export async function playInstruments(hits: readonly InstrumentHit[], length: number): Promise<Stereo> {
  const out = silence(length);
  const sorted = [...hits].sort((a, b) => a.time - b.time);
  /** The last hit of each mute group: its start and sample length, to be cut at the next one. */
  const choke = new Map<number, { at: number; sample: Stereo; gains: [number, number] }>();
  const CHOKE_FRAMES = Math.round(0.012 * SAMPLE_RATE);
  for (const hit of sorted) {
    const instrument = hit.instrument;
    const layer =
      instrument.layers.find((l) => hit.velocity >= l.min && hit.velocity <= l.max) ??
      (instrument.layers.at(-1) as Layer);
    const sample = await sampleFile(layer.file);
    const at = Math.round(hit.time * SAMPLE_RATE);
    const gain = hit.velocity * layer.gain * instrument.gain;
    const gains: [number, number] = [gain * instrument.panLeft, gain * instrument.panRight];
    if (instrument.muteGroup >= 0) {
      const previous = choke.get(instrument.muteGroup);
      // The choked sound keeps ringing from its own mix: take back what it would still add after `at`, faded.
      if (previous && previous.at < at) {
        const tail = previous.sample.map((channel) => {
          const out = Float32Array.from(channel.subarray(Math.max(0, at - previous.at)));
          for (let i = 0; i < out.length; i++) out[i] = -(out[i] as number) * (i < CHOKE_FRAMES ? i / CHOKE_FRAMES : 1);
          return out;
        }) as Stereo;
        addInto(out, tail, at, previous.gains[0], previous.gains[1]);
      }
      choke.set(instrument.muteGroup, { at, sample, gains });
    }
    addInto(out, sample, at, gains[0], gains[1]);
  }
  return out;
}
