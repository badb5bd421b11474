import path from "node:path";
import { istft, type Spectrogram, stft } from "../../dsp/spectrogram.ts";
import { JobFailure } from "../../jobs/job-failure.ts";

/** How a spectrogram-mask separation model is fed and what its output means. */
export interface ModelSettings {
  /** STFT size and hop the model was trained with (MDX-Net: 6144 or 7680, hop 1024). */
  fftSize: number;
  hop: number;
  /** Frames per chunk when the model's time axis is not fixed in its input shape. */
  frames: number;
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
  return (await separateStems(file, channels, settings, 1, signal, onProgress))[0] as Float32Array[];
}

/**
 * Runs a spectrogram-mask separation model over a whole recording and returns the `stemCount` stems it
 * estimates, each one signal per channel. A model of several stems gives them one after another on its output's
 * channel axis (`stemCount` times the input's channels). Chunks of the model's frame count overlap by half and
 * are cross-faded (sin² weights); bins above the model's are left out of the stems. onnxruntime is loaded only
 * here, when a model is used.
 */
export async function separateStems(
  file: string,
  channels: readonly Float32Array[],
  settings: ModelSettings,
  stemCount: number,
  signal?: AbortSignal,
  onProgress?: (fraction: number) => void,
): Promise<Float32Array[][]> {
  const ort = await import("onnxruntime-node");
  let session: Awaited<ReturnType<typeof ort.InferenceSession.create>>;
  try {
    session = await ort.InferenceSession.create(file);
  } catch (error) {
    throw modelFailure(file, `onnxruntime cannot load it (${(error as Error).message})`, error);
  }
  try {
    const input = session.inputMetadata[0];
    if (!input?.isTensor || input.type !== "float32") throw modelFailure(file, "its input must be a float32 tensor");
    const layout = layoutOf(input.shape, settings, file);
    const specs = channels.map((channel) => stft(channel, settings.fftSize, settings.hop));
    const first = specs[0];
    if (!first) return Array.from({ length: stemCount }, () => []);
    const { frames, bins } = first;
    const targets = Array.from({ length: stemCount }, () =>
      specs.map((spec) => ({ ...spec, re: new Float32Array(spec.re.length), im: new Float32Array(spec.im.length) })),
    );

    // Channel groups the model sees together: stereo pairs (a lone channel fills both sides), or one by one.
    const groups: number[][] = [];
    const perGroup = layout.planes === 1 ? 1 : 2;
    for (let c = 0; c < channels.length; c += perGroup) {
      groups.push(perGroup === 1 ? [c] : [c, Math.min(c + 1, channels.length - 1)]);
    }
    const uses = new Float32Array(channels.length);
    for (const group of groups) for (const c of group) uses[c] = (uses[c] as number) + 1;

    const T = layout.frames;
    const stride = Math.max(1, Math.floor(T / 2));
    const weight = Float32Array.from({ length: T }, (_, i) => (T === 1 ? 1 : Math.sin((Math.PI * (i + 0.5)) / T) ** 2));
    const starts: number[] = [];
    for (let start = 0; start === 0 || start + T - stride < frames; start += stride) starts.push(start);
    const weightSum = new Float32Array(frames);
    for (const start of starts)
      for (let i = 0; i < T && start + i < frames; i++)
        weightSum[start + i] = (weightSum[start + i] as number) + (weight[i] as number);

    const F = Math.min(layout.bins, bins);
    const planeSize = layout.bins * T;
    const itemSize = layout.planes * planeSize;
    const data = new Float32Array(layout.batch * itemSize);
    const inputName = session.inputNames[0] as string;
    const outputName = session.outputNames[0] as string;
    const complex = layout.planes === 4;

    let done = 0;
    for (const group of groups) {
      for (let chunk = 0; chunk < starts.length; chunk += layout.batch) {
        signal?.throwIfAborted();
        onProgress?.(done++ / (groups.length * Math.ceil(starts.length / layout.batch)));
        const batch = starts.slice(chunk, chunk + layout.batch);
        data.fill(0);
        batch.forEach((start, b) => {
          group.forEach((c, side) => {
            const spec = specs[c] as Spectrogram;
            for (let i = 0; i < T && start + i < frames; i++) {
              const row = (start + i) * bins;
              for (let f = 0; f < F; f++) {
                const re = spec.re[row + f] as number;
                const im = spec.im[row + f] as number;
                const at = b * itemSize + f * T + i;
                if (complex) {
                  data[at + 2 * side * planeSize] = re;
                  data[at + (2 * side + 1) * planeSize] = im;
                } else data[at + side * planeSize] = Math.sqrt(re * re + im * im);
              }
            }
          });
        });
        const tensor = new ort.Tensor("float32", data, [layout.batch, layout.planes, layout.bins, T]);
        let result: Float32Array;
        try {
          const outputs = await session.run({ [inputName]: tensor });
          const output = outputs[outputName];
          if (output?.type !== "float32" || output.data.length !== stemCount * data.length) {
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
        for (let stem = 0; stem < stemCount; stem++) {
          accumulate(result, stem, targets[stem] as Spectrogram[], batch, group);
        }
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
      batch.forEach((start, b) => {
        group.forEach((c, side) => {
          const spec = specs[c] as Spectrogram;
          const target = stemTargets[c] as Spectrogram;
          for (let i = 0; i < T && start + i < frames; i++) {
            const row = (start + i) * bins;
            const w = weight[i] as number;
            for (let f = 0; f < F; f++) {
              const re = spec.re[row + f] as number;
              const im = spec.im[row + f] as number;
              const at = (b * stemCount + stem) * itemSize + f * T + i;
              let outRe: number;
              let outIm: number;
              if (complex) {
                outRe = result[at + 2 * side * planeSize] as number;
                outIm = result[at + (2 * side + 1) * planeSize] as number;
                if (settings.output === "mask") {
                  outRe *= re;
                  outIm *= im;
                }
              } else {
                // A magnitude: the stem takes the mixture's phase.
                const magnitude = Math.sqrt(re * re + im * im);
                const value = result[at + side * planeSize] as number;
                const gain = settings.output === "mask" ? value : magnitude > 0 ? value / magnitude : 0;
                outRe = gain * re;
                outIm = gain * im;
              }
              target.re[row + f] = (target.re[row + f] as number) + w * outRe;
              target.im[row + f] = (target.im[row + f] as number) + w * outIm;
            }
          }
        });
      });
    }
    return targets.map((stemTargets) =>
      stemTargets.map((target, c) => {
        const scale = uses[c] as number;
        for (let t = 0; t < frames; t++) {
          const norm = 1 / (scale * (weightSum[t] as number));
          for (let f = 0; f < F; f++) {
            const i = t * bins + f;
            target.re[i] = (target.re[i] as number) * norm;
            target.im[i] = (target.im[i] as number) * norm;
          }
        }
        return istft(target);
      }),
    );
  } finally {
    await session.release();
  }
}
