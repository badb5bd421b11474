"""
Blends two trained MaskNets weight by weight (train.py's or from_onnx.py's .pt files, the same architecture):
a + t (b - a), so t = 0 is a and t = 1 is b. A fine-tuned network and the one it started from, blended, often
keep what the fine-tuning gained and lose less of what it forgot (Wortsman et al. 2022, "Robust fine-tuning of
zero-shot models"). Integer buffers are a's. Export the result with export.py.
Usage: python3 interpolate.py <a .pt> <b .pt> <t> <out .pt>
"""
import sys

import torch


def main():
    a_path, b_path, t, out = sys.argv[1], sys.argv[2], float(sys.argv[3]), sys.argv[4]
    a, b = torch.load(a_path), torch.load(b_path)
    if a.keys() != b.keys():
        raise SystemExit(f"{a_path} and {b_path} are not the same network")
    torch.save({k: a[k] + t * (b[k] - a[k]) if a[k].is_floating_point() else a[k] for k in a}, out)
    print(f"{out}: {1 - t:g} × {a_path} + {t:g} × {b_path}")


if __name__ == "__main__":
    main()
