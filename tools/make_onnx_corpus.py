#!/usr/bin/python3
"""Generate the ONNX corpus: real torchvision architectures (every classifier of
torchvision 0.14 at opsets 13 and 17, segmentation, detection, the three video
classifiers on a short clip, RAFT's optical flow; random weights), a small
nn.TransformerEncoder, a Conv1d audio net, LSTM/GRU text nets and a RoIAlign box
head, exported with torch.onnx.export at the opsets the CORPUS table gives, plus for each model an expectation file computed from the ONNX
graph with the `onnx` package alone.

Run with Debian's interpreter (python3-torch, python3-torchvision, python3-onnx):

    /usr/bin/python3 tools/make_onnx_corpus.py OUT_DIR [--only NAME|NAME@OPSET ...]
    /usr/bin/python3 tools/make_onnx_corpus.py --list    # every model's file stem
    /usr/bin/python3 tools/make_onnx_corpus.py --list-streamed  # those not kept (below)
    /usr/bin/python3 tools/make_onnx_corpus.py --list-refusals  # STEM<tab>refusal expected
    /usr/bin/python3 tools/make_onnx_corpus.py --list-data-dependent  # detectors' stems

Writes OUT_DIR/<name>.onnx and OUT_DIR/<name>.expect.json (<name> is the stem:
NAME at opset 13, NAME_opset<N> at another), and the numeric reference
for the evaluator's check (tests/corpus/onnx_corpus_eval_check.cpp): OUT_DIR/<name>.input.npy,
the very input the export traces (torch.manual_seed(0), then the model, then
torch.randn: deterministic; a model of several inputs, RAFT's two frames, has
<name>.input.<k>.npy for each input k after the first, and the expectation file's
input_files lists them in the graph's order), and OUT_DIR/<name>.torch.<k>.npy, PyTorch's eval-mode
forward of it (output k of the flattened result, dicts in insertion order as
torch.onnx.export flattens them; float32 as PyTorch computes it, INT64 token ids and
labels as Int32, which is how MegEngine holds them), and OUT_DIR/<name>.torch64.<k>.npy,
the same forward of the model converted to float64 (stored cast to float32; integer
outputs have none): the check's reference, as PyTorch's float32 result carries its own
rounding error (on fcn_resnet50 1.26e-4 of the largest |output|, beyond the 1e-4
bound). Offline: weights=None, fixed seeds, BatchNorm statistics set from a random
batch (calibrate_batch_norms) so that activations do not vanish, and the ResNets'
residual branches scaled by 0.5 (damp_residual_branches) so that their random deep
stacks do not amplify float32 rounding past the bound. The corpus lives in the build
tree and is never committed.

Models over protobuf's 2 GB (vit_h_14, regnet_y_128gf: 2.5 GB of weights each) are
written with external data, all of it in OUT_DIR/<name>.onnx.data next to the model
(write_onnx); the importer maps it. torch 1.13 cannot export swin_v2_*'s in-place
aten::zero; register_export_workarounds gives it the zeros_like symbolic later torch has.

Disk: the 80 classifiers hold 22.4 GB of weights, 45 GB at both opsets, more than the
~30 GB the corpus may take (the machine is shared). So the 15 models over 500 MB
(STREAMED: the eight VGGs, wide_resnet101_2, regnet_y_32gf, convnext_large, vit_l_16,
vit_l_32, vit_h_14, regnet_y_128gf; 27.6 GB at both opsets) are not kept:
tools/corpus_test.sh exports each, checks it on its own and deletes its .onnx (and
.onnx.data) once its checks pass (expectation and .npy files stay), so every run
exports them again; the rest, 17 GB, is exported once. At most one streamed model
is on disk at a time (twice over while write_onnx gathers external data), so the
corpus peaks near 22 GB. Every model, at both opsets, is checked by the one
command. Inputs stay 224 x 224: a smaller resolution saves time, not weight bytes.

The expectations restate the importer's documented mapping (formats/onnx/ONNX_IMPORT.md)
as counts over the ONNX graph, so the C++ check (tests/corpus/onnx_corpus_check.cpp)
compares mgedump's output with something mgedump did not produce:
  * compute families: Conv -> ConvBias/Convolution, ConvTranspose ->
    ConvolutionBackwardData, Gemm/MatMul -> MatrixMul/BatchedMatrixMul (plus an
    unrolled RNN/GRU/LSTM's per gate and direction: one for the input, one per step,
    and an Einsum's one per product),
    pools -> Pooling (two for a 3-D MaxPool or AveragePool), Softmax -> Softmax;
  * compute operators in all ("compute_operators"), null where some ONNX operator
    has no rule here ("compute_operators_no_rule" lists them; the C++ check then
    skips the count);
  * params (initializers imported as SharedDeviceTensor): every initializer read as
    data (Identity aliases count once), minus those only read as shape/axes/bounds
    operands (folded or re-created as small constants); a BatchNormalization whose
    input is a Conv output read by nothing else is folded: the Conv gets a new weight
    and a new bias, and the statistics and old weight/bias count only where still
    read elsewhere; INT64 data initializers are stored as Int32 (half the bytes).

It also records what the shapes should be, for the check of mgedump's static shape
inference (ir/infer.h):
  * "torch_outputs": each graph output's shape and dtype as PyTorch computes it (the
    model run in eval mode on the very input the export traced);
  * "value_info": name -> {dims, elem_type} of every tensor the exporter's own shape
    inference recorded in graph.value_info with fully static dims (others skipped),
    and "declared_outputs" the same for graph.output ("node_output_ops": each node
    output's producing op type, for messages). PyTorch 1.13 (Debian's) records
    no intermediate value_info at all, so "onnx_value_info" holds the same for what
    onnx's shape inference (onnx.shape_inference.infer_shapes, with data propagation)
    derives from the exported file: the per-tensor reference where the exporter
    records nothing. Where both record a tensor they must agree (checked here).

EXPECT_VERSION is written into every expectation file; tools/corpus_test.sh
regenerates a model whose file has another (older) version.
"""
import argparse
import json
import os
import sys
import time
import traceback

import numpy as np

# Bump whenever the expectation files gain or change a field the checks need
# (tools/corpus_test.sh regenerates files with another version; the C++ check
# refuses them). A field the checks read with a fallback that fits every older file
# (input_files, whose absence means the one input_file) needs no bump, nor the
# export of the whole corpus again.
EXPECT_VERSION = 7

# Operand positions that are shape-like: constant operands the importer folds or
# turns into fresh constants, never params.
SHAPE_OPERANDS = {
    "Reshape": {1}, "Unsqueeze": {1}, "Squeeze": {1}, "Split": {1}, "Slice": {1, 2, 3, 4},
    "ReduceSum": {1}, "ReduceMean": {1}, "ReduceMax": {1}, "Pad": {1, 2, 3}, "Resize": {1, 2, 3},
    "Clip": {1, 2}, "Expand": {1}, "Tile": {1}, "ConstantOfShape": {0}, "Dropout": {1, 2},
    "RoiAlign": {1, 2},  # constant rois and batch indices: one (R, 5) table made at import
}
FAMILIES = {
    "conv": ["Conv"],
    "deconv": ["ConvTranspose"],
    "matmul": ["Gemm", "MatMul"],
    "pooling": ["MaxPool", "AveragePool", "GlobalAveragePool", "GlobalMaxPool"],
    "softmax": ["Softmax"],
}


# Mapped to their 2-D operator, with a Reshape before and after, on 1-D data.
ONE_D = {"Conv", "MaxPool", "AveragePool", "GlobalAveragePool", "GlobalMaxPool"}
FOLDABLE = {"Shape", "Constant", "Gather", "Unsqueeze", "Squeeze", "Concat", "Slice", "Cast", "Identity",
            "Reshape", "Flatten", "Add", "Sub", "Mul", "Div"}
ELEMENTWISE = {"Add", "Sub", "Mul", "Div", "Pow", "Relu", "Sigmoid", "Tanh", "Exp", "Log", "Sqrt", "Abs", "Neg",
               "Erf", "HardSwish", "LeakyRelu"}
ONE_TO_ONE = {"Conv", "Softmax", "AveragePool", "GlobalAveragePool", "GlobalMaxPool", "Transpose", "Concat",
              "Split", "Gather", "Pad", "Resize", "Flatten", "Reshape", "Squeeze", "Unsqueeze"}


def compute_operator_count(model, folded_bns, inits):
    """MegEngine compute operators (everything but inputs, constants and params) the
    documented mapping gives, from the ONNX graph and onnx's own shape inference, and
    {op type: count} of the nodes this count has no rule for. With any such node the
    count is None: the model is still exported (the importer may map the operator, or
    its refusal is itself the finding), and the C++ check skips the count."""
    from onnx import TensorProto, helper, numpy_helper, shape_inference

    inferred = shape_inference.infer_shapes(model)
    shapes = {}
    for vi in list(inferred.graph.value_info) + list(inferred.graph.input) + list(inferred.graph.output):
        dims = vi.type.tensor_type.shape.dim
        shapes[vi.name] = [d.dim_value for d in dims]
    for t in model.graph.initializer:
        shapes[t.name] = list(t.dims)
    elem = {vi.name: vi.type.tensor_type.elem_type
            for vi in list(inferred.graph.value_info) + list(inferred.graph.input) + list(inferred.graph.output)}
    ints = {TensorProto.INT64, TensorProto.INT32, TensorProto.INT8, TensorProto.INT16, TensorProto.UINT8,
            TensorProto.BOOL}

    const = set(inits)
    count = 0
    no_rule = {}
    for n in model.graph.node:
        ins = [i for i in n.input if i]
        attrs = {a.name: helper.get_attribute_value(a) for a in n.attribute}
        all_const = all(i in const for i in ins)
        if n.op_type in ("Shape", "Constant") or (all_const and n.op_type in FOLDABLE and (
                n.op_type not in ("Add", "Sub", "Mul", "Div") or all(elem.get(i, TensorProto.INT64) in ints
                                                                      or i in inits for i in ins))):
            const.update(n.output)
            continue
        op = n.op_type
        rank = len(shapes.get(ins[0], [])) if ins else 0
        if op in ONE_D and rank == 3:
            count += 2  # 1-D: the 2-D operator over an inserted unit axis, Reshape there and back
        if rank == 5:
            if op == "Conv":
                count += len(ins) > 2  # 3-D: Convolution3D, then Elemwise ADD of the bias
            elif op in ("GlobalAveragePool", "GlobalMaxPool"):
                count += 2  # the Pooling over the data seen as (N, C, 1, D*H*W), Reshape there and back
            elif op in ONE_D or op == "ConvTranspose":
                # 3-D pools (two Poolings and their Reshapes), 3-D ConvTranspose:
                # no rule here yet.
                no_rule[f"{op} (3-D)"] = no_rule.get(f"{op} (3-D)", 0) + 1
                continue
        ranked = ("MatMul", "MaxPool", "ReduceMean", "ReduceSum", "ReduceMax")
        if op in ranked and not all(shapes.get(i) for i in ins[:2] if i not in inits):
            # Their count depends on the operands' ranks, which onnx's plain inference
            # leaves unknown after e.g. swin_t's window shifts.
            no_rule[f"{op} (rank unknown)"] = no_rule.get(f"{op} (rank unknown)", 0) + 1
            continue
        if op in ("Identity", "Dropout"):
            if ins[0] in const:
                const.update(n.output[:1])
            continue
        if op == "BatchNormalization":
            count += 0 if id(n) in folded_bns else 1
        elif op == "Concat" and len(ins) == 1:
            pass  # MegEngine's Concat::make returns a lone input; every dump does too (engine/passes/make_folds.cpp)
        elif op in ELEMENTWISE or op in ONE_TO_ONE:
            count += 1
        elif op == "Clip":
            count += 1 if len(ins) > 1 or "min" in attrs or "max" in attrs else 0
        elif op == "HardSigmoid":
            count += 1 if abs(attrs.get("alpha", 0.2) - 1 / 6) < 1e-7 and attrs.get("beta", 0.5) == 0.5 else 2
        elif op == "Cast":
            same = {elem.get(ins[0]), attrs["to"]} <= {TensorProto.INT64, TensorProto.INT32}
            count += 0 if same or elem.get(ins[0]) == attrs["to"] else 1
        elif op == "ConvTranspose":
            count += 1 + (len(ins) > 2)
        elif op == "Gemm":
            alpha, beta = attrs.get("alpha", 1.0), attrs.get("beta", 1.0)
            c = len(ins) > 2 and beta != 0
            count += 1 + (alpha != 1) + c + (c and beta != 1)
        elif op == "MatMul":
            a, b = shapes[ins[0]], shapes[ins[1]]
            if len(b) == 2:
                count += 1 + (len(a) != 2) * 2
            else:
                count += 1 + (len(a) != 3) * 3
        elif op == "MaxPool":
            k, s = attrs["kernel_shape"], attrs.get("strides", [1, 1])
            p = attrs.get("pads", [0, 0, 0, 0])
            x = shapes[ins[0]]
            extra = False
            if attrs.get("ceil_mode", 0):
                for d in range(2):
                    floor = (x[2 + d] + 2 * p[d] - k[d]) // s[d] + 1
                    ceil = (x[2 + d] + 2 * p[d] - k[d] + s[d] - 1) // s[d] + 1
                    if (ceil - 1) * s[d] >= x[2 + d] + p[d]:
                        ceil -= 1
                    extra = extra or ceil != floor
            count += 1 + extra
        elif op in ("ReduceMean", "ReduceSum", "ReduceMax"):
            axes = attrs.get("axes") or (list(numpy_helper.to_array(inits[ins[1]])) if len(ins) > 1 else [])
            rank = len(shapes[ins[0]])
            count += (len(set(a % rank for a in axes)) if axes else rank) + (attrs.get("keepdims", 1) == 0)
        elif op == "Slice":
            count += 1
        elif op == "RoiAlign" and all(i in const for i in ins[1:]):
            count += 2  # Padding (one replicated pixel) and ROIAlign; the rois table is a constant
        elif op == "LayerNormalization":
            count += 1 + (len(ins) < 3)  # without B: LayerNorm without affine, then MUL by Scale
        else:
            no_rule[op] = no_rule.get(op, 0) + 1
    return (None if no_rule else count), dict(sorted(no_rule.items()))


def expectations(model):
    import onnx
    from onnx import helper, shape_inference

    g = model.graph
    inits = {t.name: t for t in g.initializer}
    consumers = {}
    for n in g.node:
        for i in n.input:
            if i:
                consumers.setdefault(i, []).append(n)
    graph_outputs = {o.name for o in g.output}
    producer = {o: n for n in g.node for o in n.output}

    def resolve(name):
        # torch writes shared initializers as Identity nodes; the importer treats an
        # alias as the initializer itself.
        while name in producer and producer[name].op_type == "Identity":
            name = producer[name].input[0]
        return name

    def nbytes(name):
        return tensor_nbytes(inits[name])

    folded_bns, folded_convs = set(), set()
    folded_bytes = 0
    for n in g.node:
        if n.op_type != "BatchNormalization":
            continue
        conv = producer.get(n.input[0])
        if conv is None or conv.op_type != "Conv":
            continue
        if len(consumers.get(n.input[0], [])) != 1 or n.input[0] in graph_outputs:
            continue
        if not all(resolve(i) in inits for i in n.input[1:]) or resolve(conv.input[1]) not in inits:
            continue
        folded_bns.add(id(n))
        folded_convs.add(id(conv))
        # A new weight (same size) and a new bias (one float per output channel).
        weight = resolve(conv.input[1])
        folded_bytes += nbytes(weight) + inits[weight].dims[0] * 4

    # A BatchNormalization left on its own becomes x * scale + bias: two new tensors
    # of one float per channel instead of its four statistics.
    lone_bns = 0
    for n in g.node:
        if n.op_type == "BatchNormalization" and id(n) not in folded_bns:
            lone_bns += 1
            folded_bytes += 2 * nbytes(resolve(n.input[1]))

    # Initializers still read as data once the folded operands are gone.
    kept = set()
    for n in g.node:
        if n.op_type == "Identity":
            continue
        for pos, i in enumerate(n.input):
            r = resolve(i) if i else ""
            if r not in inits:
                continue
            if n.op_type == "BatchNormalization" and pos >= 1:
                continue
            if id(n) in folded_convs and pos in (1, 2):
                continue
            if pos in SHAPE_OPERANDS.get(n.op_type, ()):
                continue
            if n.op_type == "Gather" and (pos == 1 or resolve(n.input[1]) in inits):
                continue  # constant indices (and constant data) are folded
            kept.add(r)

    def stored_bytes(name):
        return nbytes(name) // 2 if inits[name].data_type == onnx.TensorProto.INT64 else nbytes(name)

    compute, no_rule = compute_operator_count(model, folded_bns, inits)
    # torch writes equal initializers once (convnext_tiny's zero biases): a param read
    # both as a Conv bias, viewed as (1, OC, 1, 1), and in its own shape is one param,
    # and its second view a Reshape operator.
    views = {}
    for n in g.node:
        for pos, i in enumerate(n.input):
            r = resolve(i) if i else ""
            if r not in kept or n.op_type == "Identity" or pos in SHAPE_OPERANDS.get(n.op_type, ()):
                continue
            if (n.op_type == "BatchNormalization" and pos >= 1) or (id(n) in folded_convs and pos in (1, 2)):
                continue  # folded away, as for `kept`
            views.setdefault(r, set()).add(n.op_type == "Conv" and pos == 2)
    if compute is not None:
        compute += sum(len(v) - 1 for v in views.values())

    # A recurrent operator is unrolled: per direction and gate one MatrixMul of the
    # input over all steps, and one of the hidden state per step
    # (formats/onnx/ONNX_IMPORT.md, "Recurrent networks"); an Einsum is products.
    # Every value's dims, from shape inference and the graph's inputs.
    dims_of = {vi.name: vi.type.tensor_type.shape.dim
               for vi in list(shape_inference.infer_shapes(model).graph.value_info) + list(g.input)}
    unrolled_matmuls = 0
    for n in g.node:
        gates = {"RNN": 1, "GRU": 3, "LSTM": 4}.get(n.op_type)
        if gates:
            attrs = {a.name: helper.get_attribute_value(a) for a in n.attribute}
            seq = dims_of[n.input[0]][1 if attrs.get("layout", 0) else 0].dim_value
            directions = 2 if attrs.get("direction", b"forward") == b"bidirectional" else 1
            unrolled_matmuls += directions * gates * (1 + seq)
        elif n.op_type == "Einsum":
            # One product per operand after the first, a BatchedMatrixMul (MatrixMul
            # without batch labels) each (ONNX_IMPORT.md, "Recurrent networks, Einsum"):
            # maxvit_t's attention.
            unrolled_matmuls += len([i for i in n.input if i]) - 1

    # A 3-D MaxPool or AveragePool is two Poolings, over (H, W) and then over D
    # (ONNX_IMPORT.md, MaxPool / AveragePool): s3d's.
    second_poolings = sum(1 for n in g.node
                          if n.op_type in ("MaxPool", "AveragePool") and len(dims_of.get(n.input[0], [])) == 5)

    histogram = {}
    for n in g.node:
        histogram[n.op_type] = histogram.get(n.op_type, 0) + 1
    extra = {"matmul": unrolled_matmuls, "pooling": second_poolings}
    return {
        "onnx_nodes": len(g.node),
        "onnx_op_histogram": dict(sorted(histogram.items())),
        "onnx_initializers": len(inits),
        "onnx_initializer_bytes": int(sum(tensor_nbytes(t) for t in g.initializer)),
        "folded_batch_norms": len(folded_bns),
        "families": {k: sum(histogram.get(op, 0) for op in ops) + extra.get(k, 0) for k, ops in FAMILIES.items()},
        "compute_operators": compute,
        "compute_operators_no_rule": no_rule,
        "params": len(kept) + 2 * len(folded_bns) + 2 * lone_bns,
        "param_bytes": int(sum(stored_bytes(p) for p in kept) + folded_bytes),
        "inputs": [i.name for i in g.input if i.name not in inits],
        "outputs": [o.name for o in g.output],
    }


def tensor_nbytes(t):
    """An initializer's size from its dims and type alone: the expectations never read
    float data, so they work on a model loaded without it (strip_float_data)."""
    from onnx import mapping

    return int(np.prod(t.dims, dtype=np.int64)) * np.dtype(mapping.TENSOR_TYPE_TO_NP_TYPE[t.data_type]).itemsize


def strip_float_data(model):
    """Drops the data of large float initializers from `model` in place (keeping dims
    and type): onnx's shape inference serializes the model on every call, and a model
    over 2 GB cannot be serialized at all. The integer operands the expectations fold
    (shapes, axes, indices: at most 4096 elements, see onnx_static_types) stay."""
    from onnx import TensorProto

    for t in model.graph.initializer:
        if t.data_type in (TensorProto.FLOAT, TensorProto.DOUBLE, TensorProto.FLOAT16) and np.prod(t.dims) > 4096:
            t.ClearField("raw_data")
            t.ClearField("float_data")
            t.ClearField("double_data")
            t.ClearField("int32_data")
            if t.data_location == TensorProto.EXTERNAL:
                del t.external_data[:]
                t.data_location = TensorProto.DEFAULT


def static_tensor_types(infos):
    """name -> {"dims", "elem_type"} for ValueInfoProtos whose every dim is a number."""
    out = {}
    for vi in infos:
        if not vi.type.HasField("tensor_type"):
            continue
        tt = vi.type.tensor_type
        if not tt.HasField("shape"):
            continue
        dims = tt.shape.dim
        if not all(d.HasField("dim_value") for d in dims):
            continue
        out[vi.name] = {"dims": [int(d.dim_value) for d in dims], "elem_type": int(tt.elem_type)}
    return dict(sorted(out.items()))


def _int_div(a, b):
    q = np.abs(a) // np.abs(b)  # ONNX integer Div truncates toward zero
    return (np.sign(a) * np.sign(b) * q).astype(np.result_type(a, b))


def _fold_node(n, value, types):
    """The value of node n's single output when every input is a known constant (or,
    for Shape, has a static type); None otherwise. Covers the integer shape
    computations torch writes (Shape -> Gather -> arithmetic -> Concat/Unsqueeze ->
    Slice, Reshape operands)."""
    from onnx import helper, numpy_helper

    attrs = {a.name: helper.get_attribute_value(a) for a in n.attribute}
    op = n.op_type
    if op == "Shape" and n.input[0] in types:
        return np.array(types[n.input[0]]["dims"], dtype=np.int64)
    if op == "Constant" and "value" in attrs:
        return numpy_helper.to_array(attrs["value"])
    ins = [value.get(i) if i else None for i in n.input]
    if not ins or any(x is None for i, x in zip(n.input, ins) if i):
        return None
    if ins[0].dtype.kind not in "iub":
        return None  # integer shape arithmetic only
    binary = {"Add": np.add, "Sub": np.subtract, "Mul": np.multiply, "Div": _int_div,
              "Equal": np.equal, "Less": np.less, "Greater": np.greater, "Max": np.maximum, "Min": np.minimum,
              # Mod: the divisor's sign (numpy.mod), or C's fmod with fmod=1
              "Mod": np.fmod if attrs.get("fmod", 0) else np.mod}
    if op in binary:
        return binary[op](ins[0], ins[1])
    if op == "Neg":
        return -ins[0]
    if op == "Transpose":  # swin_t's pads: a (k, 2) matrix transposed, then flattened
        return np.transpose(ins[0], attrs.get("perm"))
    if op == "Reshape" and not attrs.get("allowzero", 0):
        target = [int(d) if d != 0 else ins[0].shape[k] for k, d in enumerate(ins[1])]
        return ins[0].reshape(target)
    if op == "Gather":
        return np.take(ins[0], ins[1], axis=attrs.get("axis", 0))
    if op == "Unsqueeze":
        axes = attrs.get("axes", list(ins[1]) if len(ins) > 1 else [])
        out = ins[0]
        rank = out.ndim + len(axes)
        for a in sorted(a % rank for a in axes):
            out = np.expand_dims(out, a)
        return out
    if op == "Squeeze":
        axes = attrs.get("axes", list(ins[1]) if len(ins) > 1 else None)
        return np.squeeze(ins[0], axis=None if axes is None else tuple(a % ins[0].ndim for a in axes))
    if op == "Concat":
        return np.concatenate(ins, axis=attrs["axis"])
    if op == "Cast":
        from onnx import mapping

        return ins[0].astype(mapping.TENSOR_TYPE_TO_NP_TYPE[attrs["to"]])
    if op == "Identity":
        return ins[0]
    if op == "Where":
        return np.where(ins[0], ins[1], ins[2])
    if op == "ConstantOfShape":  # vit_b_16's class token Expand
        fill = numpy_helper.to_array(attrs["value"]).reshape(-1) if "value" in attrs else np.zeros(1, np.float32)
        return np.full(tuple(int(d) for d in ins[0]), fill[0], dtype=fill.dtype)
    if op == "Slice" and len(ins) >= 3 and "starts" not in attrs:  # Resize sizes of deeplabv3
        axes = ins[3] if len(ins) > 3 and ins[3] is not None else range(len(ins[1]))
        steps = ins[4] if len(ins) > 4 and ins[4] is not None else [1] * len(ins[1])
        index = [slice(None)] * ins[0].ndim
        for a, b, e, st in zip(axes, ins[1], ins[2], steps):
            a, b, e, st = int(a) % ins[0].ndim, int(b), int(e), int(st)
            if st > 0:
                index[a] = slice(b, e, st)  # Python clamps positive steps as ONNX does
                continue
            # ONNX's negative-step clamping (swin_t reverses its pads): start into
            # [0, dim - 1], end into [-1, dim - 1], -1 meaning "before index 0".
            dim = ins[0].shape[a]
            b = min(max(b + dim if b < 0 else b, 0), dim - 1)
            e = min(max(e + dim if e < 0 else e, -1), dim - 1)
            index[a] = slice(b, e if e >= 0 else None, st)
        return ins[0][tuple(index)]
    return None


def _einsum_type(n, types):
    """The static type of Einsum node n's output from its equation and its inputs'
    types (explicit "->" output, no "..."); None otherwise."""
    from onnx import helper

    attrs = {a.name: helper.get_attribute_value(a) for a in n.attribute}
    equation = attrs["equation"].decode().replace(" ", "")
    if "->" not in equation or "." in equation or any(i not in types for i in n.input):
        return None
    operands, out = equation.split("->")
    terms = operands.split(",")
    if len(terms) != len(n.input):
        return None
    size = {}
    for term, i in zip(terms, n.input):
        dims = types[i]["dims"]
        if len(term) != len(dims):
            return None
        for label, d in zip(term, dims):
            size[label] = max(size.get(label, 1), d)  # a 1 broadcasts
    return {"dims": [size[label] for label in out], "elem_type": types[n.input[0]]["elem_type"]}


def onnx_static_types(model):
    """Static tensor types (static_tensor_types) of every node output of `model`, by
    onnx's shape inference. onnx 1.12's data propagation stops at the integer shape
    arithmetic torch exports (Shape -> Gather -> Add -> Div -> Slice starts, so e.g. every
    chunk's Slice and all after it stay unknown); those are evaluated here with numpy
    and turned into initializers, and inference re-run, until nothing more folds. The
    folded tensors get their value's shape. onnx 1.12 gives an Einsum's output no dims
    (maxvit_t's attention, and all after it): those are computed from the equation
    (_einsum_type) and added as value_info for the next round. Modifies `model`."""
    from onnx import helper, numpy_helper, shape_inference

    g = model.graph
    value = {t.name: numpy_helper.to_array(t) for t in g.initializer
             if t.data_type in (6, 7, 9) and int(np.prod(t.dims)) <= 4096}  # INT32, INT64, BOOL
    folded = {}
    while True:
        inferred = shape_inference.infer_shapes(model, strict_mode=True, data_prop=True)
        types = static_tensor_types(list(inferred.graph.value_info) + list(g.input) + list(g.output))
        new = []
        shaped = []
        for n in g.node:
            if n.op_type == "Einsum" and n.output[0] not in types:
                t = _einsum_type(n, types)
                if t is not None:
                    shaped.append(helper.make_tensor_value_info(n.output[0], t["elem_type"], t["dims"]))
            if len(n.output) != 1 or n.output[0] in value:
                continue
            v = _fold_node(n, value, types)
            if v is not None:
                value[n.output[0]] = v
                if n.op_type != "Constant":  # onnx infers those already
                    new.append((n, v))
        if not new and not shaped:
            break
        g.value_info.extend(shaped)
        for n, v in new:
            folded[n.output[0]] = {"dims": [int(d) for d in v.shape],
                                   "elem_type": int(helper_np_to_elem(v.dtype))}
            g.node.remove(n)
            g.initializer.append(numpy_helper.from_array(v, n.output[0]))
    types.update(folded)
    produced = {o for n in inferred.graph.node for o in n.output} | set(folded)
    return {k: v for k, v in sorted(types.items()) if k in produced}


def helper_np_to_elem(dtype):
    from onnx import mapping  # onnx 1.12 has no helper.np_dtype_to_tensor_dtype

    return mapping.NP_TYPE_TO_TENSOR_TYPE[np.dtype(dtype)]


def flat_tensors(result):
    """The tensors of a forward result (a tensor or a nest of them), in output order."""
    import torch

    flat = []

    def walk(r):
        if isinstance(r, torch.Tensor):
            flat.append(r)
        elif isinstance(r, (list, tuple)):
            for x in r:
                walk(x)
        elif isinstance(r, dict):
            for v in r.values():  # insertion order, as torch.onnx.export flattens a dict
                walk(v)
        else:
            raise SystemExit(f"unexpected forward result {type(r).__name__}")

    walk(result)
    return flat


def torch_outputs(result):
    """[{"shape", "dtype"}] for a forward result (a tensor or a nest of them)."""
    return [{"shape": [int(d) for d in r.shape], "dtype": str(r.dtype).replace("torch.", "")}
            for r in flat_tensors(result)]


# Every model and the opsets it is exported at; tools/corpus_test.sh takes its list
# from --list. At opset 13 a model's files are NAME.*, at another NAME_opset<N>.*
# (test names allow no "@"); on the command line NAME@N names the latter too. 17 is
# torch 1.13's newest opset, where LayerNorm exports as one LayerNormalization node
# instead of its ReduceMean/Sub/Pow/Sqrt/Div decomposition.
BOTH = (13, 17)
# Every classifier of torchvision 0.14 (torchvision.models.list_models(module=
# torchvision.models); models() checks the two agree), at both opsets, by family.
CLASSIFIERS = (
    "alexnet", "squeezenet1_0", "squeezenet1_1", "googlenet", "inception_v3",
    "resnet18", "resnet34", "resnet50", "resnet101", "resnet152",
    "resnext50_32x4d", "resnext101_32x8d", "resnext101_64x4d", "wide_resnet50_2", "wide_resnet101_2",
    "densenet121", "densenet161", "densenet169", "densenet201",
    "mobilenet_v2", "mobilenet_v3_small", "mobilenet_v3_large",
    "shufflenet_v2_x0_5", "shufflenet_v2_x1_0", "shufflenet_v2_x1_5", "shufflenet_v2_x2_0",
    "mnasnet0_5", "mnasnet0_75", "mnasnet1_0", "mnasnet1_3",
    "efficientnet_b0", "efficientnet_b1", "efficientnet_b2", "efficientnet_b3",
    "efficientnet_b4", "efficientnet_b5", "efficientnet_b6", "efficientnet_b7",
    "efficientnet_v2_s", "efficientnet_v2_m", "efficientnet_v2_l",
    "regnet_x_400mf", "regnet_x_800mf", "regnet_x_1_6gf", "regnet_x_3_2gf", "regnet_x_8gf",
    "regnet_x_16gf", "regnet_x_32gf",
    "regnet_y_400mf", "regnet_y_800mf", "regnet_y_1_6gf", "regnet_y_3_2gf", "regnet_y_8gf",
    "regnet_y_16gf", "regnet_y_32gf", "regnet_y_128gf",
    "convnext_tiny", "convnext_small", "convnext_base", "convnext_large",
    "vgg11", "vgg11_bn", "vgg13", "vgg13_bn", "vgg16", "vgg16_bn", "vgg19", "vgg19_bn",
    "vit_b_16", "vit_b_32", "vit_l_16", "vit_l_32", "vit_h_14",
    "swin_t", "swin_s", "swin_b", "swin_v2_t", "swin_v2_s", "swin_v2_b",
    "maxvit_t",
)
CORPUS = {
    **{name: BOTH for name in CLASSIFIERS},
    "resnet18_unfused_bn": (13,),
    "transformer_encoder": (13,),
    "audio_conv1d": BOTH,
    "lstm_text": BOTH,
    "gru_text": BOTH,
    "deeplabv3_mobilenet_v3_large": BOTH,
    "fcn_resnet50": BOTH,
    # LR-ASPP: a sigmoid-gated branch over a strided average pool, added to a
    # low-level classifier, then Resize.
    "lraspp_mobilenet_v3_large": BOTH,
    # Its post-processing (score threshold, top-k, batched NMS) has data-dependent
    # shapes; exported to see how far the importer gets.
    "ssdlite320_mobilenet_v3_large": (13,),
    # The same detector with a score threshold no candidate passes (without
    # weights every class scores 1/91), so every class's top-k ranks an empty
    # selection by k = 0, NMS gets no box and the outputs are empty: what a trained
    # detector gives on an image with nothing in it.
    "ssdlite320_mobilenet_v3_large_no_detections": (13,),
    # FCOS, anchor-free: a ResNet-50 FPN at 320x320, per level the locations whose
    # score (the class probability times centerness, square-rooted) passes the
    # threshold, the best 1,000 of them, box decoding, batched NMS, the best 100.
    "fcos_resnet50_fpn": (13,),
    # The same with a score threshold no location passes (no score exceeds 1), so
    # every level selects nothing and the outputs are empty.
    "fcos_resnet50_fpn_no_detections": (13,),
    # Faster R-CNN (two-stage): an RPN's proposals by NMS over the anchors a score
    # mask selects, MultiScaleRoIAlign of them, a box head, per-class NMS.
    "fasterrcnn_mobilenet_v3_large_320_fpn": (13,),
    # The same whose RPN keeps no proposal (an objectness probability of at least
    # 1.0): the RoI pooling writes into zeros of no rows, and the outputs are empty.
    "fasterrcnn_mobilenet_v3_large_320_fpn_no_proposals": (13,),
    # RetinaNet: per level the best 1,000 anchors above the score threshold over
    # 9 anchors and 91 classes a location, box decoding, batched NMS, the best 300.
    "retinanet_resnet50_fpn": (13,),
    # The part of it MegEngine can express: backbone and head on the normalized
    # image, box regressions and class logits per anchor (decoding and NMS left to
    # the caller).
    "ssdlite320_mobilenet_v3_large_head": BOTH,
    # RoIAlign pooling of fixed boxes over a small backbone's features, as a
    # two-stage detector's box head does. Opset 13 only: torchvision 0.14 exports
    # roi_align without coordinate_transformation_mode, which from opset 16 on
    # defaults to half_pixel (aligned=True), so a later-opset export of an
    # aligned=False model does not compute what PyTorch does.
    "roi_align_head": (13,),
    # torchvision's video classifiers (Kinetics-400 heads): 3-D convolutions
    # (Convolution3D), r2plus1d's (1,3,3) and (3,1,1) factorised ones, a 3-D
    # global average pool.
    "r3d_18": BOTH,
    "mc3_18": BOTH,
    "r2plus1d_18": BOTH,
    # S3D: separable 3-D convolutions ((1,k,k) then (k,1,1)), 3-D max pools,
    # inception branches; its final average pool needs 16 x 224 x 224.
    "s3d": BOTH,
    # RAFT (optical flow, two frames: the corpus's model of two inputs): feature
    # and context encoders, an all-pairs correlation volume and its pyramid, looked
    # up around the current flow by GridSample, which needs opset 16.
    "raft_small": (16,),
}
# Models over 500 MB of weights (13.8 GB of the 22.4 GB the 80 classifiers hold, per
# opset; at both opsets the whole corpus would be 45 GB). Their .onnx files are not
# kept: tools/corpus_test.sh exports them one at a time, checks each, and deletes its
# .onnx (and .onnx.data) once its checks pass, so the next run exports them again;
# the rest (17 GB) stays. See the module docstring.
STREAMED = {
    "vgg11", "vgg11_bn", "vgg13", "vgg13_bn", "vgg16", "vgg16_bn", "vgg19", "vgg19_bn",
    "wide_resnet101_2", "regnet_y_32gf", "convnext_large", "vit_l_16", "vit_l_32", "vit_h_14", "regnet_y_128gf",
}
DEFAULT_OPSET = 13
# Models MegEngine cannot express whole, with the refusal the check expects (a
# substring of the importer's error).
EXPECTED_REFUSALS = {}
# Models whose outputs' lengths depend on the data (a detector's detections): the
# importer gives them no static shape, and the evaluator's check compares each
# output's rows as a set, because kernels that round differently from PyTorch's may
# order two near-tied scores the other way.
DATA_DEPENDENT_OUTPUTS = {
    # Post-processing selects boxes by score (NonZero of computed scores), keeps them
    # with NonMaxSuppression (MegEngine's NMSKeep, sized by the anchors the mask
    # selects from) inside an If whose other branch is empty, and takes the best 300.
    "ssdlite320_mobilenet_v3_large",
    "ssdlite320_mobilenet_v3_large_no_detections",
    # The same kind of post-processing: per level (FCOS, RetinaNet) or per class
    # (Faster R-CNN).
    "fcos_resnet50_fpn",
    "fcos_resnet50_fpn_no_detections",
    "fasterrcnn_mobilenet_v3_large_320_fpn",
    "fasterrcnn_mobilenet_v3_large_320_fpn_no_proposals",
    "retinanet_resnet50_fpn",
}
# Detectors with a score threshold no candidate passes: PyTorch's outputs must be
# empty, or the empty case they are in the corpus for goes unchecked.
EMPTY_OUTPUTS = {
    "ssdlite320_mobilenet_v3_large_no_detections",
    "fcos_resnet50_fpn_no_detections",
    "fasterrcnn_mobilenet_v3_large_320_fpn_no_proposals",
}


def stem(name, opset):
    return name if opset == DEFAULT_OPSET else f"{name}_opset{opset}"


def corpus_entries():
    """(stem, name, opset) of every corpus model, in table order."""
    return [(stem(n, o), n, o) for n, opsets in CORPUS.items() for o in opsets]


def parse_entry(arg):
    """A command-line model: NAME (opset 13), NAME@OPSET or a stem from --list."""
    for s, n, o in corpus_entries():
        if arg == s:
            return s, n, o
    name, _, opset = arg.partition("@")
    if name not in CORPUS or (opset and not opset.isdigit()):
        sys.exit(f"unknown model {arg!r}; known: {', '.join(CORPUS)} (NAME@OPSET for another opset)")
    o = int(opset) if opset else DEFAULT_OPSET
    return stem(name, o), name, o


def models():
    """name -> factory; a factory gives (model, example input, torch.onnx.export
    keywords, classifier: whether output 0 is logits whose argmax must be PyTorch's).
    The example is one tensor, or a tuple of them for a model of several inputs
    (the forward's positional arguments, in order)."""
    import torch
    import torchvision.models as tv
    import torchvision.models.detection as det
    import torchvision.models.optical_flow as flow
    import torchvision.models.segmentation as seg
    import torchvision.models.video as tvv
    from torch import nn

    def vision(factory, **export):
        return lambda: (factory(weights=None), torch.randn(1, 3, 224, 224), export, True)

    def vit(factory):
        def make():
            m = factory(weights=None)
            # Without weights torchvision zeroes the head: every logit would be 0, and the
            # evaluator's check against PyTorch vacuous.
            nn.init.normal_(m.heads.head.weight, std=0.02)
            return m, torch.randn(1, 3, 224, 224), {}, True

        return make

    def video(factory):
        # One clip of 8 frames of 56 x 56: an eighth of the 16 x 112 x 112 clips
        # they were trained on, the same operators, and the evaluator's check of
        # three 3-D ResNets takes seconds rather than minutes.
        return lambda: (factory(weights=None), torch.randn(1, 3, 8, 56, 56), {}, True)

    def s3d():
        # Its (2, 7, 7) average pool over the last features wants the clip size it
        # was trained on.
        return tvv.s3d(weights=None), torch.randn(1, 3, 16, 224, 224), {}, True

    def transformer():
        layer = nn.TransformerEncoderLayer(d_model=64, nhead=4, dim_feedforward=128, dropout=0.1)
        return nn.TransformerEncoder(layer, num_layers=2), torch.randn(16, 2, 64), {}, False

    def audio():
        # A small keyword-spotting style net on one second of 16 kHz audio.
        def block(cin, cout, k, stride=1):
            return [nn.Conv1d(cin, cout, k, stride), nn.BatchNorm1d(cout), nn.ReLU(), nn.MaxPool1d(4)]

        net = nn.Sequential(*block(1, 32, 80, 4), *block(32, 32, 3), *block(32, 64, 3), *block(64, 64, 3),
                            nn.AdaptiveAvgPool1d(1), nn.Flatten(), nn.Linear(64, 35))
        return net, torch.randn(1, 1, 16000), {}, True

    class Text(nn.Module):
        """Embedding + one recurrent layer + a linear head on the last step."""

        def __init__(self, rnn):
            super().__init__()
            self.embed = nn.Embedding(1000, 64)
            self.rnn = rnn(64, 128, num_layers=1, batch_first=True)
            self.head = nn.Linear(128, 10)

        def forward(self, ids):
            out, _ = self.rnn(self.embed(ids))
            return self.head(out[:, -1])

    def text(rnn):
        return lambda: (Text(rnn), torch.randint(0, 1000, (1, 20)), {}, True)

    def segmentation(factory):
        # Eval mode returns {"out": N x 21 x H x W} (no aux head without weights).
        return lambda: (factory(weights=None, weights_backbone=None), torch.randn(1, 3, 224, 224), {}, False)

    class Detector(nn.Module):
        """A detection model (list of images -> list of {boxes, scores, labels}) on one
        batched tensor, so the export has one tensor input."""

        def __init__(self, model):
            super().__init__()
            self.model = model

        def forward(self, x):
            return self.model(list(x))

    def detector(model):
        # The model is built before the image is drawn, so the seeded draws stay
        # in the order the corpus's files were written with.
        return Detector(model), torch.rand(1, 3, 320, 320), {}, False

    def ssdlite():
        return detector(det.ssdlite320_mobilenet_v3_large(weights=None, weights_backbone=None))

    def ssdlite_no_detections():
        m = det.ssdlite320_mobilenet_v3_large(weights=None, weights_backbone=None)
        # A class's score is a softmax probability, at most 1, and must exceed the
        # threshold. (With 0.0125, just above 1/91, the scores of this model reach
        # 0.028 and 300 detections were kept.)
        m.score_thresh = 1.0
        return detector(m)

    def fcos(score_thresh):
        def make():
            return detector(det.fcos_resnet50_fpn(weights=None, weights_backbone=None, min_size=320, max_size=320,
                                                  score_thresh=score_thresh))

        return make

    def faster_rcnn(rpn_score_thresh):
        # box_score_thresh 0.01: untrained, the box scores lie just above 1/91
        # (the default 0.05 would keep no detection).
        def make():
            return detector(det.fasterrcnn_mobilenet_v3_large_320_fpn(
                weights=None, weights_backbone=None, box_score_thresh=0.01, rpn_score_thresh=rpn_score_thresh))

        return make

    class DetectorHead(nn.Module):
        """An SSD's backbone and head: (bbox_regression, cls_logits) per anchor."""

        def __init__(self, model):
            super().__init__()
            self.model = model

        def forward(self, x):
            out = self.model.head(list(self.model.backbone(x).values()))
            return out["bbox_regression"], out["cls_logits"]

    def ssdlite_head():
        m = det.ssdlite320_mobilenet_v3_large(weights=None, weights_backbone=None)
        return DetectorHead(m), torch.randn(1, 3, 320, 320), {}, False

    class RoiAlignHead(nn.Module):
        """Two RoIAlign poolings of fixed boxes over stride-4 features: a linear head
        on 7x7 bins with 2x2 samples per bin, and bins with adaptive sampling
        (sampling_ratio -1; the boxes are the same size, so one sample count)."""

        def __init__(self):
            super().__init__()
            self.backbone = nn.Sequential(nn.Conv2d(3, 16, 3, 2, 1), nn.BatchNorm2d(16), nn.ReLU(),
                                          nn.Conv2d(16, 32, 3, 2, 1), nn.BatchNorm2d(32), nn.ReLU())
            # (batch index, x0, y0, x1, y1) in input pixels; all within the 64x64 image.
            self.register_buffer("boxes", torch.tensor([[0, 4, 4, 40, 40], [0, 0, 0, 63, 63],
                                                        [0, 20.5, 10.25, 52, 30], [0, 30, 30, 31, 31]],
                                                       dtype=torch.float32))
            self.register_buffer("same_size", torch.tensor([[0, 0, 0, 32, 32], [0, 17, 9, 49, 41]],
                                                           dtype=torch.float32))
            self.head = nn.Linear(32 * 7 * 7, 10)

        def forward(self, x):
            from torchvision.ops import roi_align

            f = self.backbone(x)
            bins = roi_align(f, self.boxes, 7, spatial_scale=0.25, sampling_ratio=2, aligned=False)
            adaptive = roi_align(f, self.same_size, (5, 3), spatial_scale=0.25, sampling_ratio=-1, aligned=False)
            return self.head(bins.flatten(1)), adaptive

    class LastFlow(nn.Module):
        """RAFT's last flow estimate for two frames (its forward returns every
        update's)."""

        def __init__(self, model, updates):
            super().__init__()
            self.model = model
            self.updates = updates

        def forward(self, frame1, frame2):
            return self.model(frame1, frame2, num_flow_updates=self.updates)[-1]

    def raft_small():
        # torchvision builds RAFT's pixel-coordinate grid in float32 (.float())
        # whatever the model's dtype, so the float64 reference run mixed float32 flow
        # into float64 convolutions and failed. The grid in the default dtype is the
        # same tensor in every float32 run (the export's and the reference's) and a
        # float64 one in the float64 run (float64_reference sets the default).
        import torchvision.models.optical_flow.raft as raft_impl

        float32_grid = raft_impl.make_coords_grid

        def grid_in_default_dtype(*args, **kwargs):
            grid = float32_grid(*args, **kwargs)
            return grid if grid.dtype == torch.get_default_dtype() else grid.to(torch.get_default_dtype())

        raft_impl.make_coords_grid = grid_in_default_dtype
        # Two of the default twelve updates: each update is the same operators
        # (a correlation lookup by GridSample, a ConvGRU, the flow head), and the
        # evaluator's check takes seconds rather than a minute.
        return (LastFlow(flow.raft_small(weights=None), 2), (torch.rand(1, 3, 128, 128), torch.rand(1, 3, 128, 128)),
                {}, False)

    table = {
        "resnet18": vision(tv.resnet18),
        # Eval-mode export folds BatchNorm into Conv itself; PRESERVE keeps the
        # BatchNormalization nodes, so the importer's own folding is exercised.
        "resnet18_unfused_bn": vision(tv.resnet18, training=torch.onnx.TrainingMode.PRESERVE),
        "transformer_encoder": transformer,
        "audio_conv1d": audio,
        "lstm_text": text(nn.LSTM),
        "gru_text": text(nn.GRU),
        "deeplabv3_mobilenet_v3_large": segmentation(seg.deeplabv3_mobilenet_v3_large),
        "fcn_resnet50": segmentation(seg.fcn_resnet50),
        "lraspp_mobilenet_v3_large": segmentation(seg.lraspp_mobilenet_v3_large),
        "ssdlite320_mobilenet_v3_large": ssdlite,
        "ssdlite320_mobilenet_v3_large_no_detections": ssdlite_no_detections,
        "ssdlite320_mobilenet_v3_large_head": ssdlite_head,
        "fcos_resnet50_fpn": fcos(0.05),
        "fcos_resnet50_fpn_no_detections": fcos(1.0),
        "fasterrcnn_mobilenet_v3_large_320_fpn": faster_rcnn(rpn_score_thresh=0.0),
        "fasterrcnn_mobilenet_v3_large_320_fpn_no_proposals": faster_rcnn(rpn_score_thresh=1.0),
        # Untrained, the classifier's prior puts the scores in 0.0096-0.0104; 0.0102995
        # lies in a gap of 9e-7 between two of them, far from the rounding of either.
        "retinanet_resnet50_fpn": lambda: detector(
            det.retinanet_resnet50_fpn(weights=None, weights_backbone=None, min_size=320, max_size=320,
                                       score_thresh=0.0102995)),
        "roi_align_head": lambda: (RoiAlignHead(), torch.randn(1, 3, 64, 64), {}, False),
        "r3d_18": video(tvv.r3d_18),
        "mc3_18": video(tvv.mc3_18),
        "r2plus1d_18": video(tvv.r2plus1d_18),
        "s3d": s3d,
        "raft_small": raft_small,
    }
    listed = set(tv.list_models(module=tv))
    if listed != set(CLASSIFIERS):
        raise SystemExit(f"CLASSIFIERS is not torchvision's list: missing {sorted(listed - set(CLASSIFIERS))}, "
                         f"extra {sorted(set(CLASSIFIERS) - listed)}")
    for name in CLASSIFIERS:
        table[name] = vit(getattr(tv, name)) if name.startswith("vit_") else vision(getattr(tv, name))
    return table


def register_export_workarounds():
    """Symbolics torch 1.13's exporter lacks for operators torchvision's classifiers
    use. swin_v2_*'s attention zeroes the key third of its qkv bias in place
    (qkv_bias[length:2 * length].zero_()); torch 1.13 has no symbolic for aten::zero
    and refuses the whole export. Its value is zeros_like(self) (later torch versions
    export it so); the bias is a parameter, so constant folding then removes it."""
    import torch
    from torch.onnx import symbolic_opset9

    torch.onnx.register_custom_op_symbolic("aten::zero", lambda g, self: symbolic_opset9.zeros_like(g, self), 9)


def megengine_array(t):
    """t as a numpy array of the dtype MegEngine holds it in: INT64 (token ids, detection
    labels) is Int32 there (formats/onnx/ONNX_IMPORT.md), and the evaluator reads a
    .npy only in the graph's dtypes."""
    a = t.detach().numpy()
    if a.dtype == np.int64:
        if a.size and (a.min() < np.iinfo(np.int32).min or a.max() > np.iinfo(np.int32).max):
            raise ValueError(f"int64 values beyond Int32: [{a.min()}, {a.max()}]")
        a = a.astype(np.int32)
    return a


def examples_of(example):
    """A factory's example as the list of the forward's arguments."""
    return list(example) if isinstance(example, tuple) else [example]


def input_names(example):
    """The ONNX graph's input names: "input" for a model of one input (what the
    corpus has always used), input0, input1, ... for several."""
    n = len(examples_of(example))
    return ["input"] if n == 1 else [f"input{k}" for k in range(n)]


def input_files(example, name_at):
    """The .npy file of each input, in the graph's order: <stem>.input.npy for the
    first (tools/corpus_test.sh looks for it), <stem>.input.<k>.npy for input k > 0."""
    return [f"{name_at}.input.npy" if k == 0 else f"{name_at}.input.{k}.npy"
            for k in range(len(examples_of(example)))]


def calibrate_batch_norms(model, example):
    """Sets every BatchNorm's running statistics to those of its input on a batch of
    the example and one more random draw. With weights=None they are mean 0, variance
    1, and under torchvision's small initial weights the activations shrink layer by
    layer: googlenet's logits were its fc bias exactly (features ~1e-20) and
    efficientnet_b0's ~1e-14, so the evaluator's check tested almost nothing."""
    import torch

    norms = [m for m in model.modules() if isinstance(m, torch.nn.modules.batchnorm._BatchNorm)]
    if not norms or not all(e.is_floating_point() for e in examples_of(example)):
        return
    model.eval()  # only the norms in training mode: no dropout, no detection losses
    for m in norms:
        m.reset_running_stats()
        m.momentum = None  # a cumulative average: after one batch, its statistics
        m.train()
    with torch.no_grad():
        model(*[torch.cat([e, torch.randn_like(e)]) for e in examples_of(example)])
    for m in norms:
        m.momentum = 0.1
    model.eval()


def write_onnx(model, example, out_dir, name_at, opset, export_args):
    """torch.onnx.export to out_dir/<stem>.onnx; the name of its external data file,
    None when the weights are inline. Over protobuf's 2 GB torch writes every
    initializer to a file of its own next to the model; those are gathered into one,
    <stem>.onnx.data (tensors under 64 KB stay inline), as onnx.save does."""
    import shutil

    import onnx
    import torch

    staging = os.path.join(out_dir, f"{name_at}.export")
    shutil.rmtree(staging, ignore_errors=True)
    os.makedirs(staging)
    try:
        staged = os.path.join(staging, "model.onnx")
        torch.onnx.export(model, tuple(examples_of(example)), staged, opset_version=opset,
                          input_names=input_names(example),
                          output_names=["output"], do_constant_folding=True, **export_args)
        path = os.path.join(out_dir, f"{name_at}.onnx")
        data_file = f"{name_at}.onnx.data"
        for old in (path, os.path.join(out_dir, data_file)):
            if os.path.exists(old):
                os.remove(old)
        if os.listdir(staging) == ["model.onnx"]:
            os.replace(staged, path)
            return None
        exported = onnx.load(staged)  # reads the per-tensor files
        onnx.save_model(exported, path, save_as_external_data=True, all_tensors_to_one_file=True,
                        location=data_file, size_threshold=65536)
        return data_file
    finally:
        shutil.rmtree(staging, ignore_errors=True)


def float64_reference(model, example, out_dir, name_at):
    """Runs `model` (converted to float64 in place) on the example and writes each float
    output k as out_dir/<stem>.torch64.<k>.npy; returns the file names, None for an
    integer output (its float32-run file is its reference). Stored cast to float32:
    the evaluator reads .npy in the graph's dtypes only, and the cast's error, half a
    float32 ulp of each value (6e-8 relative), is 1/1600 of the check's 1e-4 bound.
    Default dtype float64 for tensors the forward creates itself (masks, positions)."""
    import torch

    model.double()
    previous = torch.get_default_dtype()
    torch.set_default_dtype(torch.float64)
    try:
        # Grad enabled, as for the float32 run: the same (unfused) attention path.
        result = model(*[e.double() if e.is_floating_point() else e for e in examples_of(example)])
    finally:
        torch.set_default_dtype(previous)
    files = []
    for k, t in enumerate(flat_tensors(result)):
        if not t.is_floating_point():
            files.append(None)
            continue
        if t.dtype != torch.float64:
            raise RuntimeError(f"output {k} of the float64 run is {t.dtype}: part of the forward stayed in float32")
        files.append(f"{name_at}.torch64.{k}.npy")
        np.save(os.path.join(out_dir, files[-1]), t.detach().numpy().astype(np.float32))
    return files


# The scale of the last BatchNorm of a ResNet residual branch (damp_residual_branches).
RESIDUAL_BRANCH_GAMMA = 0.5


def damp_residual_branches(model):
    """Sets the scale (gamma) of the last BatchNorm of every torchvision ResNet
    residual branch (BasicBlock.bn2, Bottleneck.bn3: what torchvision's own
    zero_init_residual zeroes; trained ResNets have small scales there) to
    RESIDUAL_BRANCH_GAMMA. With gamma 1, random weights and calibrated statistics,
    every branch adds a unit-variance signal and the deep ResNets are chaotic:
    rounding errors grow block by block, and PyTorch's own float32 forward is off its
    float64 one by 3.9e-4 of the largest logit on resnet152 (9.7e-5 on resnet101,
    1.1e-4 on resnext101_64x4d, 8.3e-5 on wide_resnet101_2), so no float32
    implementation can meet the 1e-4 bound and the check would measure the network's
    conditioning, not the conversion. At 0.5 that error is 2.8e-7 on resnet152 and
    wide_resnet101_2, and every branch still carries half its signal (zero would leave
    the branches untested). Applied to every model that has such blocks (the ResNet,
    ResNeXt and wide ResNet classifiers, fcn_resnet50's backbone, the video ResNets,
    whose blocks keep each convolution and its BatchNorm in a Sequential), not per
    model."""
    import torch
    from torchvision.models import video
    from torchvision.models.resnet import BasicBlock, Bottleneck

    with torch.no_grad():
        for m in model.modules():
            if isinstance(m, Bottleneck):
                m.bn3.weight.fill_(RESIDUAL_BRANCH_GAMMA)
            elif isinstance(m, BasicBlock):
                m.bn2.weight.fill_(RESIDUAL_BRANCH_GAMMA)
            elif isinstance(m, video.resnet.Bottleneck):
                m.conv3[1].weight.fill_(RESIDUAL_BRANCH_GAMMA)
            elif isinstance(m, video.resnet.BasicBlock):
                m.conv2[1].weight.fill_(RESIDUAL_BRANCH_GAMMA)


def export(out_dir, name, opset, factory):
    """Exports one model at `opset` to out_dir/<stem>.* (see the module docstring)."""
    import onnx
    import torch

    started = time.time()
    name_at = stem(name, opset)
    torch.manual_seed(0)
    model, example, export_args, classifier = factory()
    calibrate_batch_norms(model, example)
    damp_residual_branches(model)
    model.eval()
    path = os.path.join(out_dir, f"{name_at}.onnx")
    # With grad enabled (not under torch.no_grad()): in eval mode without grad,
    # nn.MultiheadAttention (batch_first, as in vit_b_16) takes its fused fast path,
    # aten::_native_multi_head_attention, which torch 1.13 cannot export. The reference
    # forward takes the same path as the traced one.
    # The forward PyTorch computes, on the very input the export traces.
    result = model(*examples_of(example))
    # Checked before anything is written, so that a refused model leaves no file.
    if name in EMPTY_OUTPUTS and any(t.numel() for t in flat_tensors(result)):
        raise RuntimeError(f"PyTorch's outputs are not empty ({[tuple(t.shape) for t in flat_tensors(result)]}): "
                           "the check of the empty case would be vacuous")
    reference = torch_outputs(result)
    files = input_files(example, name_at)
    for e, f in zip(examples_of(example), files):
        np.save(os.path.join(out_dir, f), megengine_array(e))
    output_files = []
    for k, t in enumerate(flat_tensors(result)):
        output_files.append(f"{name_at}.torch.{k}.npy")
        np.save(os.path.join(out_dir, output_files[-1]), megengine_array(t))
    if classifier:
        logits = flat_tensors(result)[0]
        if float(logits.max() - logits.min()) <= 1e-6 * float(logits.abs().max()):
            raise RuntimeError(f"constant logits {float(logits.max())}: the check against PyTorch would be vacuous")
    del result
    data_file = write_onnx(model, example, out_dir, name_at, opset, export_args)
    # After the export: the float64 run converts the model in place.
    output64_files = float64_reference(model, example, out_dir, name_at)
    del model
    # Without the weights' data (shape inference serializes the model, and cannot at
    # over 2 GB); the expectations need only their dims and types.
    exported = onnx.load(path, load_external_data=False)
    strip_float_data(exported)
    expect = expectations(exported)
    expect["expect_version"] = EXPECT_VERSION
    expect["opset"] = opset
    expect["torch_outputs"] = reference
    expect["input_file"] = files[0]
    expect["input_files"] = files
    expect["torch_output_files"] = output_files
    expect["torch64_output_files"] = output64_files
    expect["classifier"] = classifier
    expect["value_info"] = static_tensor_types(exported.graph.value_info)
    expect["value_info_total"] = len(exported.graph.value_info)
    expect["declared_outputs"] = static_tensor_types(exported.graph.output)
    expect["node_outputs"] = sum(1 for n in exported.graph.node for o in n.output if o)
    expect["node_output_ops"] = dict(sorted((o, n.op_type) for n in exported.graph.node for o in n.output if o))
    expect["onnx_value_info"] = onnx_static_types(exported)  # last: modifies `exported`
    for vname, t in expect["value_info"].items():
        if expect["onnx_value_info"].get(vname, t) != t:
            raise RuntimeError(f"{vname}: exporter records {t}, onnx infers {expect['onnx_value_info'][vname]}")
    # In graph order (declared_outputs is sorted by name); outputs with dynamic dims
    # (a detector's) have no declared entry.
    for got, out in zip(reference, exported.graph.output):
        declared = expect["declared_outputs"].get(out.name)
        if declared and got["shape"] != declared["dims"]:
            raise RuntimeError(f"output {out.name}: PyTorch computes {got['shape']}, ONNX declares {declared['dims']}")
        # An output the exporter declares with a symbolic dim (swin_t's batch) and onnx
        # does not resolve: PyTorch's own shape is its reference.
        if out.name not in expect["onnx_value_info"]:
            expect["onnx_value_info"][out.name] = {"dims": got["shape"],
                                                   "elem_type": int(out.type.tensor_type.elem_type)}
    expect["model"] = name_at
    if name in EXPECTED_REFUSALS:
        expect["expected_refusal"] = EXPECTED_REFUSALS[name]
    if name in DATA_DEPENDENT_OUTPUTS:
        expect["data_dependent_outputs"] = True
    expect["onnx_file_bytes"] = os.path.getsize(path)
    expect["onnx_external_data_bytes"] = os.path.getsize(os.path.join(out_dir, data_file)) if data_file else 0
    with open(os.path.join(out_dir, f"{name_at}.expect.json"), "w") as f:
        json.dump(expect, f, indent=1, sort_keys=True)
    no_rule = "".join(f" {op}x{n}" for op, n in expect["compute_operators_no_rule"].items())
    print(f"{name_at}: {expect['onnx_nodes']} nodes, {expect['params']} params, "
          f"{len(expect['value_info'])}/{expect['value_info_total']} static value_info "
          f"({len(expect['onnx_value_info'])}/{expect['node_outputs']} by onnx), "
          f"{expect['onnx_file_bytes']} bytes, {time.time() - started:.1f}s"
          + (f"; operator count unchecked, no rule for:{no_rule}" if no_rule else ""), flush=True)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("out_dir", nargs="?")
    ap.add_argument("--only", nargs="*", help="models: NAME, NAME@OPSET or a stem (default: all)")
    ap.add_argument("--list", action="store_true", help="print every corpus model's stem and exit")
    ap.add_argument("--list-streamed", action="store_true",
                    help="print the stems of the models whose .onnx is not kept (STREAMED) and exit")
    ap.add_argument("--list-refusals", action="store_true",
                    help="print STEM<tab>REFUSAL for each model expected to be refused (EXPECTED_REFUSALS) and exit")
    ap.add_argument("--list-data-dependent", action="store_true",
                    help="print the stems of the models whose outputs' lengths depend on the data and exit")
    args = ap.parse_args()
    if args.list_data_dependent:
        print("\n".join(s for s, n, _ in corpus_entries() if n in DATA_DEPENDENT_OUTPUTS))
        return
    if args.list_refusals:
        for s, n, _ in corpus_entries():
            if n in EXPECTED_REFUSALS:
                print(f"{s}\t{EXPECTED_REFUSALS[n]}")
        return
    if args.list or args.list_streamed:
        print("\n".join(s for s, n, _ in corpus_entries() if args.list or n in STREAMED))
        return
    if not args.out_dir:
        ap.error("OUT_DIR is required")

    os.makedirs(args.out_dir, exist_ok=True)
    # What the corpus should hold, for the C++ check's presence test (a model whose
    # export failed is reported there as missing, not silently left out).
    with open(os.path.join(args.out_dir, "corpus_models.txt"), "w") as f:
        f.write("".join(f"{s}\n" for s, _, _ in corpus_entries()))
    # The models tools/corpus_test.sh checks one at a time and then deletes: the
    # presence test wants their expectation files only.
    with open(os.path.join(args.out_dir, "corpus_streamed.txt"), "w") as f:
        f.write("".join(f"{s}\n" for s, n, _ in corpus_entries() if n in STREAMED))
    entries = [parse_entry(a) for a in args.only] if args.only else corpus_entries()
    table = models()
    register_export_workarounds()
    failed = []
    for s, name, opset in entries:
        try:
            export(args.out_dir, name, opset, table[name])
        except Exception as e:  # one model's failure must not hide the others'
            failed.append(s)
            where = traceback.extract_tb(e.__traceback__)[-1]
            print(f"{s}: export failed: {type(e).__name__}: {e} (at {where.filename}:{where.lineno})",
                  file=sys.stderr, flush=True)
    if failed:
        sys.exit(f"{len(failed)} of {len(entries)} exports failed: {' '.join(failed)}")


if __name__ == "__main__":
    main()
