import { readOnnxMetadata } from "./onnx-metadata.ts";
import { type ModelSettings, modelFailure } from "./onnx-separator.ts";

/** The job's overrides of a model's settings (stems-drums and stems-vocals-accompaniment take them as params). */
export interface ModelOverrides {
  modelFftSize?: number;
  modelHop?: number;
  modelFrames?: number;
  modelOutput?: ModelSettings["output"];
  modelStem?: string;
}

/**
 * A model file's separator settings: the job's overrides, else its metadata_props (`n_fft`, `hop_length`,
 * `frames`, `overlap`, `output`), else MDX-Net's usual values; with the metadata, for what else it says.
 */
export async function modelSettingsOf(
  file: string,
  p: ModelOverrides = {},
): Promise<{ settings: ModelSettings; metadata: Record<string, string> }> {
  let metadata: Record<string, string>;
  try {
    metadata = await readOnnxMetadata(file);
  } catch (error) {
    throw modelFailure(file, `it is not an ONNX model (${(error as Error).message})`, error);
  }
  const integer = (param: number | undefined, key: string, fallback: number, least = 1) => {
    const value = param ?? (metadata[key] === undefined ? fallback : Number(metadata[key]));
    if (!Number.isInteger(value) || value < least)
      throw modelFailure(file, `its ${key} metadata "${metadata[key]}" is not a count`);
    return value;
  };
  const output = p.modelOutput ?? metadata.output ?? "spectrogram";
  if (output !== "spectrogram" && output !== "mask") {
    throw modelFailure(file, `its output metadata "${output}" is neither spectrogram nor mask`);
  }
  const settings: ModelSettings = {
    fftSize: integer(p.modelFftSize, "n_fft", 6144),
    hop: integer(p.modelHop, "hop_length", 1024),
    frames: integer(p.modelFrames, "frames", 256),
    ...(metadata.overlap === undefined ? {} : { overlap: integer(undefined, "overlap", 0, 0) }),
    output,
  };
  return { settings, metadata };
}
