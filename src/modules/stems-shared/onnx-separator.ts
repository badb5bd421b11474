import path from "node:path";
import { istft, type Spectrogram, stft } from "../../dsp/spectrogram.ts";
import { JobFailure } from "../../jobs/job-failure.ts";

/**
 * Bins per tile when a chunk is turned between the spectrogram's frame-major layout and the model's bin-major
 * planes: a tile's rows stay in the cache while the frames are walked, instead of one cache line per cell.
 */
const TILE_BINS = 32;

/**
 * Adds one chunk of a mask model's output plane (bin-major, from `first`), weighted for the cross-fade, to a
 * frame-major gain: the hot loop of magnitude mask models, kept apart so V8 compiles it with everything in
 * registers, and walked in tiles of TILE_BINS bins.
 */
function addMaskChunk(
  result: Float32Array,
  first: number,
  T: number,
  F: number,
  start: number,
  end: number,
  bins: number,
  weight: Float32Array,
  gains: Float32Array,
): void {
  for (let low = 0; low < F; low += TILE_BINS) {
    const high = Math.min(F, low + TILE_BINS);
    for (let i = 0; i < end; i++) {
      const w = weight[i] as number;
      const row = (start + i) * bins;
      for (let f = low, at = first + low * T + i; f < high; f++, at += T) {
        gains[row + f] = (gains[row + f] as number) + w * (result[at] as number);
      }
    }
  }
}

/** Writes one chunk of a channel's magnitudes (frame-major, from frame `start`) into a bin-major model plane at `base`, in tiles. */
function putMagnitudeChunk(
  re: Float32Array,
  im: Float32Array,
  data: Float32Array,
  base: number,
  T: number,
  F: number,
  start: number,
  end: number,
  bins: number,
): void {
  for (let low = 0; low < F; low += TILE_BINS) {
    const high = Math.min(F, low + TILE_BINS);
    for (let i = 0; i < end; i++) {
      const row = (start + i) * bins;
      for (let f = low, at = base + low * T + i; f < high; f++, at += T) {
        const x = re[row + f] as number;
        const y = im[row + f] as number;
        data[at] = Math.sqrt(x * x + y * y);
      }
    }
  }
}

/** How a spectrogram-mask separation model is fed and what its output means. */
export interface ModelSettings {
  /** STFT size and hop the model was trained with (MDX-Net: 6144 or 7680, hop 1024). */
  fftSize: number;
  hop: number;
  /** Frames per chunk when the model's time axis is not fixed in its input shape. */
  frames: number;
  /** Frames each chunk shares with the next, cross-faded (default half a chunk, as MDX-Net). */
  overlap?: number;
  /** "spectrogram": the output is the stem's spectrogram; "mask": it multiplies the input element by element. */
  output: "spectrogram" | "mask";
}

/** A model the operator supplied that cannot be used as it is: not the user's fault, and retrying won't help. */
export function modelFailure(file: string, reason: string, cause?: unknown): JobFailure {
  return new JobFailure("INTERNAL_ERROR", `The separation model ${path.basename(file)} cannot be used: ${reason}`, {
    cause,
  });
}

/** What the model's input shape [batch, channels, bins, frames] says, symbolic axes filled in. */
interface Layout {
  batch: number;
  /** 4: [L.re, L.im, R.re, R.im] (MDX-Net); 2: [|L|, |R|]; 1: |X| of each channel alone. */
  planes: 1 | 2 | 4;
  bins: number;
  frames: number;
}

function layoutOf(shape: ReadonlyArray<number | string>, settings: ModelSettings, file: string): Layout {
  if (shape.length !== 4) {
    throw modelFailure(file, `its input must be [batch, channels, bins, frames], not rank ${shape.length}`);
  }
  const fixed = (dim: number | string | undefined) => (typeof dim === "number" && dim > 0 ? dim : undefined);
  const [batch, planes, bins, frames] = shape.map(fixed);
  if (planes !== 1 && planes !== 2 && planes !== 4) {
    throw modelFailure(file, `its input has ${String(shape[1])} channels; 4 (complex stereo), 2 or 1 are supported`);
  }
  const available = settings.fftSize / 2 + 1;
  if (bins !== undefined && bins > available) {
    throw modelFailure(file, `it takes ${bins} frequency bins, more than an STFT of size ${settings.fftSize} has`);
  }
  return { batch: batch ?? 1, planes, bins: bins ?? available, frames: frames ?? settings.frames };
}

/** Runs a one-stem separation model (separateStems) and returns its stem, one signal per channel. */
export async function separateWithModel(
  file: string,
  channels: readonly Float32Array[],
  settings: ModelSettings,
  signal?: AbortSignal,
  onProgress?: (fraction: number) => void,
): Promise<Float32Array[]> {
  return (await separateStems(file, channels, settings, 1, [0], signal, onProgress))[0] as Float32Array[];
}

/**
 * Runs a spectrogram-mask separation model over a whole recording and returns the stems it estimates whose
 * indices are in `keep` (in that order), each one signal per channel: separatedSpectrograms (same arguments),
 * inverted.
 */
export async function separateStems(...args: Parameters<typeof separatedSpectrograms>): Promise<Float32Array[][]> {
  const { mixture, stems, gains } = await separatedSpectrograms(...args);
  return stems.map((stemSpecs) =>
    stemSpecs.map((spec, c) => (gains ? istft(mixture[c] as Spectrogram, spec.re) : istft(spec))),
  );
}

/** A model's stems as spectrograms, before the inverse STFT. */
export interface SeparatedSpectrograms {
  /** The input's STFT, one per channel. */
  mixture: Spectrogram[];
  /** Per kept stem and channel: a complex model's spectrogram, or with `gains` a real gain per cell in `re`. */
  stems: Spectrogram[][];
  /** Magnitude models: each stem is the mixture's spectrogram times its gain (it keeps the mixture's phase). */
  gains: boolean;
}

/**
 * Runs a spectrogram-mask separation model over a whole recording: the spectrograms of the stems whose indices
 * are in `keep` (in that order). A model of `stemCount` stems gives them one after another on its output's
 * channel axis (`stemCount` times the input's channels), or, for a stereo magnitude model whose output has
 * exactly `stemCount` channels, one mask per stem for both channels of a pair (Mixdown's network; `output: "mask"`): then both
 * channels' stems share one gain array. Chunks of the model's frame count overlap by
 * `settings.overlap` frames (half a chunk by default) and are cross-faded (sin² weights); bins above the model's
 * are left out of the stems. onnxruntime is loaded only here, when a model is used.
 */
export async function separatedSpectrograms(
  file: string,
  channels: readonly Float32Array[],
  settings: ModelSettings,
  stemCount: number,
  keep: readonly number[],
  signal?: AbortSignal,
  onProgress?: (fraction: number) => void,
): Promise<SeparatedSpectrograms> {
  const ort = await import("onnxruntime-node");
  let session: Awaited<ReturnType<typeof ort.InferenceSession.create>>;
  try {
    // No spinning: onnxruntime's idle threads would otherwise busy-wait between runs, taking the core the
    // chunk's accumulation and the inverse STFTs need (stems-4 ran 4.1× the STFT round trip with it, 3.4× without).
    session = await ort.InferenceSession.create(file, { extra: { session: { intra_op: { allow_spinning: "0" } } } });
  } catch (error) {
    throw modelFailure(file, `onnxruntime cannot load it (${(error as Error).message})`, error);
  }
  try {
    const input = session.inputMetadata[0];
    if (!input?.isTensor || input.type !== "float32") throw modelFailure(file, "its input must be a float32 tensor");
    const layout = layoutOf(input.shape, settings, file);
    const specs = channels.map((channel) => stft(channel, settings.fftSize, settings.hop));
    const first = specs[0];
    if (!first) return { mixture: [], stems: keep.map(() => []), gains: true };
    const { frames, bins } = first;
    const complex = layout.planes === 4;
    const outputShape = session.outputMetadata[0]?.isTensor ? session.outputMetadata[0].shape : [];
    const shared = layout.planes === 2 && settings.output === "mask" && outputShape[1] === stemCount;
    // Planes of one stem in the output: its channels' (a complex model's as real and imaginary), or one shared.
    const stemPlanes = shared ? 1 : layout.planes;

    // Channel groups the model sees together: stereo pairs (a lone channel fills both sides), or one by one.
    const groups: number[][] = [];
    const perGroup = layout.planes === 1 ? 1 : 2;
    for (let c = 0; c < channels.length; c += perGroup) {
      groups.push(perGroup === 1 ? [c] : [c, Math.min(c + 1, channels.length - 1)]);
    }
    // How many chunk results each channel's target adds up per frame: one per group side, or one per group shared.
    const uses = new Float32Array(channels.length);
    for (const group of groups) for (const c of shared ? new Set(group) : group) uses[c] = (uses[c] as number) + 1;

    // Per kept stem and channel: a complex model's spectrogram, or for magnitude models a real gain (the stem
    // is the mixture's spectrogram times it: half the memory, and the inverse STFT applies it on the fly).
    const target = (spec: Spectrogram): Spectrogram => ({
      ...spec,
      re: new Float32Array(spec.re.length),
      im: complex ? new Float32Array(spec.im.length) : new Float32Array(0),
    });
    const targets = keep.map(() => {
      if (!shared) return specs.map(target);
      const stemTargets: Spectrogram[] = [];
      for (const group of groups) {
        const gain = target(specs[group[0] as number] as Spectrogram);
        for (const c of group) stemTargets[c] = gain;
      }
      return stemTargets;
    });

    const T = layout.frames;
    // sin² fades over the overlap at both ends of a chunk, 1 between: consecutive fades add up to 1.
    const overlap = Math.max(0, Math.min(Math.floor(T / 2), settings.overlap ?? Math.floor(T / 2)));
    const stride = Math.max(1, T - overlap);
    const weight = Float32Array.from({ length: T }, (_, i) => {
      const edge = Math.min(i, T - 1 - i);
      return edge >= overlap ? 1 : Math.sin((Math.PI * (edge + 0.5)) / (2 * overlap)) ** 2;
    });
    const starts: number[] = [];
    for (let start = 0; start === 0 || start + T - stride < frames; start += stride) starts.push(start);
    const weightSum = new Float32Array(frames);
    const frameWeight = new Float32Array(T);
    for (const start of starts)
      for (let i = 0; i < T && start + i < frames; i++)
        weightSum[start + i] = (weightSum[start + i] as number) + (weight[i] as number);

    const F = Math.min(layout.bins, bins);
    const planeSize = layout.bins * T;
    const itemSize = layout.planes * planeSize;
    const data = new Float32Array(layout.batch * itemSize);
    const inputName = session.inputNames[0] as string;
    const outputName = session.outputNames[0] as string;

    let done = 0;
    for (const group of groups) {
      for (let chunk = 0; chunk < starts.length; chunk += layout.batch) {
        signal?.throwIfAborted();
        onProgress?.(done++ / (groups.length * Math.ceil(starts.length / layout.batch)));
        const batch = starts.slice(chunk, chunk + layout.batch);
        data.fill(0);
        batch.forEach((start, b) => {
          group.forEach((c, side) => {
            const { re, im } = specs[c] as Spectrogram;
            const end = Math.min(T, frames - start);
            const base = b * itemSize + (complex ? 2 * side : side) * planeSize;
            if (!complex) {
              putMagnitudeChunk(re, im, data, base, T, F, start, end, bins);
              return;
            }
            // Complex models, frame by frame: the spectrogram is frame-major, the model's planes bin-major.
            for (let i = 0; i < end; i++) {
              const row = (start + i) * bins;
              for (let f = 0, at = base + i; f < F; f++, at += T) {
                data[at] = re[row + f] as number;
                data[at + planeSize] = im[row + f] as number;
              }
            }
          });
        });
        const tensor = new ort.Tensor("float32", data, [layout.batch, layout.planes, layout.bins, T]);
        let result: Float32Array;
        try {
          const outputs = await session.run({ [inputName]: tensor });
          const output = outputs[outputName];
          if (
            output?.type !== "float32" ||
            output.data.length !== (stemCount * data.length * stemPlanes) / layout.planes
          ) {
            throw new Error(
              stemCount === 1
                ? `output ${outputName} is not a float32 tensor of the input's shape`
                : `output ${outputName} is not a float32 tensor of ${stemCount} stems of the input's shape`,
            );
          }
          result = output.data as Float32Array;
        } catch (error) {
          throw modelFailure(file, (error as Error).message, error);
        }
        keep.forEach((stem, k) => {
          accumulate(result, stem, targets[k] as Spectrogram[], batch, group);
        });
      }
    }
    /** Adds chunk results of one stem, weighted for the cross-fade, to its spectrograms. */
    function accumulate(
      result: Float32Array,
      stem: number,
      stemTargets: Spectrogram[],
      batch: number[],
      group: number[],
    ) {
      const isMask = settings.output === "mask";
      batch.forEach((start, b) => {
        (shared ? group.slice(0, 1) : group).forEach((c, side) => {
          const { re: sRe, im: sIm } = specs[c] as Spectrogram;
          const { re: tRe, im: tIm } = stemTargets[c] as Spectrogram;
          // Where this stem's planes (the real one, and for complex models the imaginary one) start in `result`.
          const first = ((b * stemCount + stem) * stemPlanes + (complex ? 2 * side : side)) * planeSize;
          const end = Math.min(T, frames - start);
          // Each frame's cross-fade weight, divided by what all the chunk results added to it will weigh.
          for (let i = 0; i < end; i++) {
            frameWeight[i] = (weight[i] as number) / ((uses[c] as number) * (weightSum[start + i] as number));
          }
          if (!complex && isMask) {
            addMaskChunk(result, first, T, F, start, end, bins, frameWeight, tRe);
            return;
          }
          for (let i = 0; i < end; i++) {
            const w = frameWeight[i] as number;
            const row = (start + i) * bins;
            for (let f = 0, plane = first; f < F; f++, plane += T) {
              const cell = row + f;
              if (complex) {
                let outRe = result[plane + i] as number;
                let outIm = result[plane + planeSize + i] as number;
                if (isMask) {
                  outRe *= sRe[cell] as number;
                  outIm *= sIm[cell] as number;
                }
                tRe[cell] = (tRe[cell] as number) + w * outRe;
                tIm[cell] = (tIm[cell] as number) + w * outIm;
              } else {
                // A magnitude: the stem takes the mixture's phase, so it is a gain on the mixture.
                const value = result[plane + i] as number;
                let gain = value;
                if (!isMask) {
                  const re = sRe[cell] as number;
                  const im = sIm[cell] as number;
                  const magnitude = Math.sqrt(re * re + im * im);
                  gain = magnitude > 0 ? value / magnitude : 0;
                }
                tRe[cell] = (tRe[cell] as number) + w * gain;
              }
            }
          }
        });
      });
    }
    return { mixture: specs, stems: targets, gains: !complex };
  } finally {
    await session.release();
  }
}
