/**
 * How stems-4's network hears one part of a corpus song played alone by each soundfont (the corpus' FluidR3 and
 * the four training ones): the share of the part's energy in each estimated stem. It tells whether a timbre the
 * corpus loses (FluidR3's warm pad taken for bass, say: test/corpus/separation-by-program.ts) is the soundfont's
 * own or the part's.
 * Further arguments are FluidSynth settings for every render (`synth.chorus.active=0`: FluidR3's square lead loses
 * its chorus, and with it most of what the network hears as a voice). Each line also gives the render's stereo
 * correlation (left with right over the whole part: 1 centred, 0 unrelated, −1 opposite).
 * Usage: node tools/separation-model/part-shares.ts <track id, e.g. development-005> <comp|pad|lead|voice|bass|drums>
 *   [FluidSynth setting…]
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { FOUR_STEMS, fourStemsNetwork } from "../../src/modules/stems-4/index.ts";
import { corpusSpecs, SPLITS, type Split } from "../../test/corpus/corpus.ts";
import { midiFile } from "../../test/corpus/midi.ts";
import { renderMidi, SAMPLE_RATE, SOUNDFONT } from "../../test/corpus/render.ts";
import { composeSong } from "../../test/corpus/song.ts";
import { TRAINING_SOUNDFONTS } from "./training-soundfonts.ts";

const [id, partName, ...settings] = process.argv.slice(2);
const split = Object.keys(SPLITS).find((s) => id?.startsWith(`${s}-`)) as Split | undefined;
const spec = split ? corpusSpecs(split).find((s) => s.id === id) : undefined;
if (!spec) throw new Error("usage: part-shares.ts <track id, e.g. development-005> <part name>");
const part = composeSong(spec).parts.find((p) => p.name === partName);
if (!part) throw new Error(`${id} has no part "${partName}"`);

const energy = (channels: Float32Array[]) =>
  channels.reduce((sum, channel) => sum + channel.reduce((s, v) => s + v * v, 0), 0);
/** Left with right: their inner product over the root of their energies' product. */
function stereoCorrelation([left, right]: Float32Array[]): number {
  if (!left || !right) return 1;
  const cross = left.reduce((sum, v, i) => sum + v * (right[i] as number), 0);
  return cross / Math.sqrt(energy([left]) * energy([right]));
}
const scratch = fs.mkdtempSync(path.join(os.tmpdir(), "part-shares-"));
try {
  const by = settings.length ? `, FluidSynth ${settings.join(" ")}` : "";
  console.log(`${id} ${partName} (GM ${part.program}) alone${by}: share of its energy in each stem`);
  console.log(`  ${"soundfont".padEnd(17)}${FOUR_STEMS.map((s) => s.padStart(8)).join("")}  L/R correlation`);
  for (const soundfont of [{ name: "fluidr3 (corpus)", file: SOUNDFONT }, ...TRAINING_SOUNDFONTS]) {
    const channels = await renderMidi(midiFile([part]), path.join(scratch, "part"), soundfont.file, settings);
    const stems = await fourStemsNetwork({ sampleRate: SAMPLE_RATE, channels });
    const energies = FOUR_STEMS.map((s) => energy(stems[s]));
    const total = energies.reduce((a, b) => a + b, 0);
    const shares = energies.map((e) => `${((100 * e) / total).toFixed(0)} %`.padStart(8));
    console.log(`  ${soundfont.name.padEnd(17)}${shares.join("")}  ${stereoCorrelation(channels).toFixed(2).padStart(15)}`);
  }
} finally {
  fs.rmSync(scratch, { recursive: true, force: true });
}
