"""
Loads the weights of an exported network (export.py's ONNX file, e.g. the committed models/stems-4.onnx) back
into MaskNet and saves them as train.py's .pt, so a later run can train the committed network further
(`RESUME=1 FREEZE_BATCHNORM=1 python3 train.py ...`). The export folded each BatchNorm into the convolution
before it; here the convolutions get the folded weights and the BatchNorms become identities (mean 0,
variance 1 - eps, scale 1, shift 0), which is why training on must keep their statistics frozen.
A network exported before model.py had its refining convolutions loads with them at their start (zero). The
softmax's sharpness (export.py) is not a weight: it is printed, to be passed to export.py again.
Usage: python3 from_onnx.py <model .onnx> <out .pt>
"""
import sys

import onnx
import torch
from onnx import numpy_helper

from model import MaskNet


def main():
    source, out = sys.argv[1], sys.argv[2]
    model = onnx.load(source)
    graph = model.graph
    # Training runs at sharpness 1; a later export should pass the committed network's again.
    sharpness = next((p.value for p in model.metadata_props if p.key == "mask_sharpness"), "1")
    weights = {i.name: torch.from_numpy(numpy_helper.to_array(i).copy()) for i in graph.initializer}
    convs = [n for n in graph.node if n.op_type == "Conv"]
    # The per-frame layers: MatMul by [in, out] in files exported before model.py flattened their input to 2-D,
    # Gemm by [out, in] (transB) since.
    matmuls = [n for n in graph.node if n.op_type in ("MatMul", "Gemm") and n.input[1] in weights]
    net = MaskNet()
    state = net.state_dict()
    conv_modules = ["conv.0", "conv.3"] + [f"context.{i}.0" for i in range(len(net.context))]
    # A network exported before the refining convolutions had none: they stay at their start (no correction).
    if len(convs) == len(conv_modules) + 2:
        conv_modules += ["refine.0", "refine.2"]
    if len(convs) != len(conv_modules) or len(matmuls) != 3:
        raise SystemExit(f"{source}: {len(convs)} convolutions and {len(matmuls)} matrix products, not MaskNet's")
    for node, name in zip(convs, conv_modules):
        state[f"{name}.weight"] = weights[node.input[1]]
        state[f"{name}.bias"] = weights[node.input[2]]
    for node, name in zip(matmuls, ["fc_in.0", "fc_mid.0", "fc_out"]):
        weight = weights[node.input[1]]
        transposed = any(a.name == "transB" and a.i == 1 for a in node.attribute)
        state[f"{name}.weight"] = weight if transposed else weight.T.contiguous()
        if len(node.input) > 2:
            state[f"{name}.bias"] = weights[node.input[2]]
    # The biases and LayerNorms keep their names: "net."-prefixed in files exported with a wrapper module
    # (before the export gave one mask per stem), bare since.
    for key, value in weights.items():
        name = key[4:] if key.startswith("net.") else key
        if name in state:
            state[name] = value
    for name, module in net.named_modules():
        if isinstance(module, (torch.nn.BatchNorm1d, torch.nn.BatchNorm2d)):
            state[f"{name}.running_mean"] = torch.zeros_like(module.running_mean)
            state[f"{name}.running_var"] = torch.full_like(module.running_var, 1 - module.eps)
            state[f"{name}.weight"] = torch.ones_like(module.weight)
            state[f"{name}.bias"] = torch.zeros_like(module.bias)
    net.load_state_dict(state)
    torch.save(net.state_dict(), out)
    print("imported", source, "to", out, f"(exported with mask_sharpness {sharpness}: pass it to export.py again)")


if __name__ == "__main__":
    main()
