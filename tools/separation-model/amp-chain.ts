/**
 * Guitars through an amplifier and cabinet for the separation model's training songs (render-training.ts, focus
 * "amped"): the part's DI (FluidSynth's guitar, mono) through the CAPS suite's tube amplifier (C* AmpVTS) and a
 * loudspeaker cabinet (C* CabinetIV), Debian package `caps` (LADSPA, run by ffmpeg's ladspa filter). Each take
 * draws its gain from clean to high gain, its tone stack and cabinet, and its place in the stereo image: centred,
 * panned, or double-tracked (a second take at another gain, 12–30 ms late, the two hard left and right) as rock
 * mixes place rhythm guitars. The test families' amplifiers (Guitarix, sox's overdrive, test/families/amp.ts) are
 * held out: none of this chain's packages is theirs.
 */
import { ffmpegFilter, panGains, rmsDb, SAMPLE_RATE } from "../../test/families/audio.ts";
import { Rng } from "../../test/music/synth.ts";

interface Take {
  /** Boost before the amplifier in dB (a pedal's, or a hotter pickup's): AmpVTS alone only saturates gently. */
  boostDb: number;
  gain: number;
  toneStack: number;
  cabinet: number;
}

/** Mono DI through AmpVTS and CabinetIV with the take's settings, levelled to the DI's RMS. */
async function amplifyTake(di: Float32Array, take: Take): Promise<Float32Array> {
  // The DI enters at a peak of 0.5, so the boost and gain drive every part alike.
  const peak = di.reduce((m, v) => Math.max(m, Math.abs(v)), 0) || 1;
  const boost = `volume=${(10 ** (take.boostDb / 20)).toFixed(3)}`;
  const amp = `ladspa=f=caps:p=AmpVTS:c=c0=1|c1=${take.gain.toFixed(3)}|c4=${take.toneStack}`;
  const cabinet = `ladspa=f=caps:p=CabinetIV:c=c0=${take.cabinet}`;
  const [out] = await ffmpegFilter([di.map((v) => (v / peak) * 0.5)], `${boost},${amp},${cabinet}`);
  const gain = 10 ** ((rmsDb([di]) - rmsDb([out])) / 20);
  return Number.isFinite(gain) ? out.map((v) => v * gain) : out;
}

/**
 * One take at high gain (12–18 dB of boost, amplifier gain 0.8–1), tone stack and cabinet drawn from the seed: the
 * analysis' development plan plays its distorted guitars so (test/families/tracks.ts), an amplifier chain that no
 * held-out family shares.
 */
export function highGainTake(di: Float32Array, seed: number): Promise<Float32Array> {
  const rng = new Rng(seed);
  return amplifyTake(di, {
    boostDb: 12 + 6 * rng.next(),
    gain: 0.8 + 0.2 * rng.next(),
    toneStack: Math.floor(rng.next() * 9),
    cabinet: Math.floor(rng.next() * 25),
  });
}

/**
 * A part chain (render.ts' PartChain) for one song: each call amplifies a part with settings drawn from the seed
 * and the call's order.
 */
export function ampChain(seed: number): (audio: Float32Array[]) => Promise<Float32Array[]> {
  const rng = new Rng(seed);
  const random = () => rng.next();
  return async (audio) => {
    const frames = audio[0]?.length ?? 0;
    const di = new Float32Array(frames);
    for (const channel of audio) {
      for (let i = 0; i < frames; i++) di[i] = (di[i] as number) + (channel[i] as number) / audio.length;
    }
    // Clean (gain ~0.1, no boost: under 0.1 % of a sine's power in harmonics) to high gain (gain ~1 and 18 dB
    // of boost: 17 %, near a square wave's 19 %), evenly.
    const take = (): Take => {
      const drive = random();
      return {
        boostDb: 18 * drive * random(),
        gain: 0.05 + 0.95 * drive,
        toneStack: Math.floor(random() * 9),
        cabinet: Math.floor(random() * 25),
      };
    };
    const first = take();
    const placement = random();
    const left = await amplifyTake(di, first);
    if (placement < 0.3) return [left, left.slice()];
    if (placement < 0.55) {
      const [l, r] = panGains(random() * 2 - 1);
      return [left.map((v) => v * l), left.map((v) => v * r)];
    }
    const delay = Math.round((0.012 + 0.018 * random()) * SAMPLE_RATE);
    const late = new Float32Array(frames);
    late.set(di.subarray(0, frames - delay), delay);
    const gain = Math.min(1, Math.max(0.05, first.gain + (random() - 0.5) * 0.3));
    const right = await amplifyTake(late, { ...first, gain });
    return [left, right];
  };
}
