/**
 * Amplifier-and-cabinet chains for a guitar's DI signal, run offline: Guitarix's LV2 amplifier and pedal
 * simulations (Debian guitarix-lv2) through lv2file (Debian lv2file), or sox's overdrive, each followed by a
 * guitar-cabinet response made of ffmpeg filters (Guitarix's own cabinet plugin and its full amp, gx_amp,
 * crash under lv2file: they need host features it lacks). The output is levelled to the DI's loudness.
 */
import path from "node:path";
import { ffmpeg, sox } from "../helpers/media.ts";
import { execFileAsync, readFloat, rmsDb, SAMPLE_RATE, withScratch, writeFloat } from "./audio.ts";

const GX = "http://guitarix.sourceforge.net/plugins/";

/** A 4×12-like cabinet: no lows under 90 Hz, a low-mid bump, a presence peak, nothing past 5 kHz. */
export const CABINET_FILTER =
  "highpass=f=90:poles=2,equalizer=f=120:t=q:w=1:g=3,equalizer=f=400:t=q:w=1:g=-3," +
  "equalizer=f=2200:t=q:w=1.2:g=4,lowpass=f=4800:poles=2,lowpass=f=5400:poles=2";

export interface AmpStage {
  /** An LV2 plugin's URI (run by lv2file with these control values) or a sox effect chain. */
  lv2?: { uri: string; controls: Record<string, number> };
  sox?: string[];
}

export const AMP_CHAINS = {
  "guitarix-metal": [{ lv2: { uri: `${GX}gxmetal_amp#metal_amp`, controls: {} } }],
  "guitarix-ts9-jcm800": [
    { lv2: { uri: `${GX}gxts9#ts9sim`, controls: {} } },
    { lv2: { uri: `${GX}gx_jcm800pre_#_jcm800pre_`, controls: {} } },
  ],
  "sox-overdrive": [{ sox: ["overdrive", "28", "20"] }],
} satisfies Record<string, AmpStage[]>;
export type AmpChain = keyof typeof AMP_CHAINS;

/** The DI (mono) through the chain's stages and the cabinet, levelled to the DI's RMS; mono out. */
export async function amplify(di: Float32Array, chain: AmpChain): Promise<Float32Array> {
  return withScratch(async (dir) => {
    let current = path.join(dir, "stage-0.wav");
    await writeFloat(current, [di]);
    for (const [i, stage] of (AMP_CHAINS[chain] as AmpStage[]).entries()) {
      const next = path.join(dir, `stage-${i + 1}.wav`);
      if (stage.lv2) {
        const controls = Object.entries(stage.lv2.controls).flatMap(([port, value]) => ["-p", `${port}:${value}`]);
        await execFileAsync("lv2file", ["--ignore-clipping", "-i", current, "-o", next, ...controls, stage.lv2.uri]);
      } else await sox([current, "-e", "floating-point", "-b", "32", next, ...(stage.sox ?? [])]);
      current = next;
    }
    const out = path.join(dir, "cabinet.wav");
    await ffmpeg([
      ...["-nostdin", "-i", current, "-af", CABINET_FILTER],
      ...["-ar", String(SAMPLE_RATE), "-ac", "1", "-c:a", "pcm_f32le", out],
    ]);
    const amplified = (await readFloat(out))[0];
    const result = new Float32Array(di.length);
    result.set(amplified.subarray(0, di.length));
    const gain = 10 ** ((rmsDb([di]) - rmsDb([result])) / 20);
    return Number.isFinite(gain) ? result.map((v) => v * gain) : result;
  });
}
