"""
Exports a trained MaskNet (train.py's .pt) as the ONNX model stems-4 runs: input [1, 2, 2049, 512] stereo STFT
magnitudes, output [1, 4, 2049, 512] masks (vocals, drums, bass, other; each for both channels), with the
settings in metadata_props as src/modules/stems-shared/onnx-separator.ts reads them. `sharpness` (default 1)
scales the logits before the softmax (model.py's MaskNet.sharpness); it is recorded in the metadata as
mask_sharpness, and from_onnx.py reads it back.
Usage: python3 export.py <model .pt> <out .onnx> [sharpness]
"""
import sys

import onnx
import torch

from model import BINS, HOP, N_FFT, STEMS, MaskNet

FRAMES = 512


def main():
    source, out = sys.argv[1], sys.argv[2]
    sharpness = float(sys.argv[3]) if len(sys.argv) > 3 else 1.0
    if not 0 < sharpness <= 4:
        raise SystemExit(f"sharpness {sys.argv[3]}: must be above 0 and at most 4")
    net = MaskNet()
    net.load_state_dict(torch.load(source))
    net.sharpness = sharpness
    net.eval()
    example = torch.rand(1, 2, BINS, FRAMES)
    torch.onnx.export(net, example, out, input_names=["magnitudes"], output_names=["masks"], opset_version=13)
    model = onnx.load(out)
    for key, value in {
        "n_fft": N_FFT,
        "hop_length": HOP,
        "frames": FRAMES,
        # Chunks of 512 frames share 32 (0.75 s) instead of half their length: nearly half the work.
        "overlap": 32,
        "output": "mask",
        "stems": ",".join(STEMS),
        "mask_sharpness": sharpness,
        "source": "Mixdown tools/separation-model (MaskNet, trained on renders by soundfonts other than FluidR3)",
    }.items():
        entry = model.metadata_props.add()
        entry.key, entry.value = key, str(value)
    onnx.save(model, out)
    print("exported", out)


if __name__ == "__main__":
    main()
