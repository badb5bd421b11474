"""
Exports a trained MaskNet (train.py's .pt) as the ONNX model stems-4 runs: input [1, 2, 2049, 512] stereo STFT
magnitudes, output [1, 4, 2049, 512] masks (vocals, drums, bass, other; each for both channels), with the
settings in metadata_props as src/modules/stems-shared/onnx-separator.ts reads them.
Usage: python3 export.py <model .pt> <out .onnx>
"""
import sys

import onnx
import torch

from model import BINS, HOP, N_FFT, STEMS, MaskNet

FRAMES = 512


def main():
    source, out = sys.argv[1], sys.argv[2]
    net = MaskNet()
    net.load_state_dict(torch.load(source))
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
        "source": "Mixdown tools/separation-model (MaskNet, trained on renders by soundfonts other than FluidR3)",
    }.items():
        entry = model.metadata_props.add()
        entry.key, entry.value = key, str(value)
    onnx.save(model, out)
    print("exported", out)


if __name__ == "__main__":
    main()
