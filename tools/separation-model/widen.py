"""
Starts a wider MaskNet from a trained narrower one (after Net2Net, Chen et al., ICLR 2016): the old units keep
their weights, the new ones start small, and the layers that read them start with zero weights on them. The
function is not exactly kept (each LayerNorm now averages over more units), but training goes on from close
to where the narrow network was instead of from nothing. BatchNorms are as from_onnx.py leaves them
(identities), so train on with FREEZE_BATCHNORM=1.
Usage: python3 widen.py <narrow .pt> <out .pt> <new width>
"""
import sys

import torch

from model import MaskNet


def main():
    source, out, width = sys.argv[1], sys.argv[2], int(sys.argv[3])
    old_state = torch.load(source)
    old = old_state["fc_in.0.weight"].shape[0]
    narrow = MaskNet(hidden=old)
    narrow.load_state_dict(old_state)
    wide = MaskNet(hidden=width)
    torch.manual_seed(0)
    state = wide.state_dict()
    for key, value in narrow.state_dict().items():
        target = state[key]
        if target.shape == value.shape:
            state[key] = value.clone()
            continue
        grown = torch.zeros_like(target)
        if key == "fc_mid.0.weight":
            # Its input is [h, r]: both halves grew.
            grown[:old, :old] = value[:, :old]
            grown[:old, width : width + old] = value[:, old:]
            grown[old:] = torch.randn(width - old, 2 * width) * 0.01
        elif key in ("fc_in.0.weight",):
            grown[:old] = value
            grown[old:] = torch.randn(width - old, target.shape[1]) * 0.01
        elif key.endswith("running_var") or (key.endswith(".weight") and target.dim() == 1):
            # LayerNorm and BatchNorm scales, BatchNorm variances: the new units' are small (LayerNorm) or 1.
            grown.fill_(0.1 if key.startswith(("fc_in.1", "fc_mid.1")) else 1.0)
            grown[:old] = value
        else:
            # Biases, BatchNorm means and shifts, the time convolutions and fc_out: the old block, zeros around it.
            grown[tuple(slice(0, n) for n in value.shape)] = value
        state[key] = grown
    wide.load_state_dict(state)
    torch.save(wide.state_dict(), out)
    print(f"widened {source} from {old} to {width} units: {out}")


if __name__ == "__main__":
    main()
