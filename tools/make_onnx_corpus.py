#!/usr/bin/python3
"""Generate the ONNX corpus: real torchvision architectures (random weights) and a
small nn.TransformerEncoder, exported with torch.onnx.export, plus for each model an
expectation file computed from the ONNX graph with the `onnx` package alone.

Run with Debian's interpreter (python3-torch, python3-torchvision, python3-onnx):

    /usr/bin/python3 tools/make_onnx_corpus.py OUT_DIR [--only NAME ...]

Writes OUT_DIR/<name>.onnx and OUT_DIR/<name>.expect.json, and the numeric reference
for the evaluator's check (tests/corpus/onnx_corpus_eval_check.cpp): OUT_DIR/<name>.input.npy,
the very input the export traces (torch.manual_seed(0), then the model, then
torch.randn: deterministic), and OUT_DIR/<name>.torch.<k>.npy, PyTorch's eval-mode
forward of it (output k of the flattened result, float32 as PyTorch computes it).
Offline: weights=None, fixed seeds. The corpus lives in the build tree and is never
committed.

The expectations restate the importer's documented mapping (formats/onnx/ONNX_IMPORT.md)
as counts over the ONNX graph, so the C++ check (tests/corpus/onnx_corpus_check.cpp)
compares mgedump's output with something mgedump did not produce:
  * compute families: Conv -> ConvBias/Convolution, ConvTranspose ->
    ConvolutionBackwardData, Gemm/MatMul -> MatrixMul/BatchedMatrixMul, pools ->
    Pooling, Softmax -> Softmax;
  * params (initializers imported as SharedDeviceTensor): every initializer read as
    data (Identity aliases count once), minus those only read as shape/axes/bounds
    operands (folded or re-created as small constants); a BatchNormalization whose
    input is a Conv output read by nothing else is folded: the Conv gets a new weight
    and a new bias, and the statistics and old weight/bias count only where still
    read elsewhere; INT64 data initializers are stored as Int32 (half the bytes).

It also records what the shapes should be, for the check of mgedump's static shape
inference (ir/infer.h):
  * "torch_outputs": each graph output's shape and dtype as PyTorch computes it (the
    model run in eval mode, without grad, on the very input the export traced);
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

import numpy as np

# Bump whenever the expectation files gain or change a field (tools/corpus_test.sh
# regenerates files with another version; the C++ check refuses them).
EXPECT_VERSION = 4

# Operand positions that are shape-like: constant operands the importer folds or
# turns into fresh constants, never params.
SHAPE_OPERANDS = {
    "Reshape": {1}, "Unsqueeze": {1}, "Squeeze": {1}, "Split": {1}, "Slice": {1, 2, 3, 4},
    "ReduceSum": {1}, "ReduceMean": {1}, "ReduceMax": {1}, "Pad": {1, 2, 3}, "Resize": {1, 2, 3},
    "Clip": {1, 2}, "Expand": {1}, "Tile": {1}, "ConstantOfShape": {0}, "Dropout": {1, 2},
}
FAMILIES = {
    "conv": ["Conv"],
    "deconv": ["ConvTranspose"],
    "matmul": ["Gemm", "MatMul"],
    "pooling": ["MaxPool", "AveragePool", "GlobalAveragePool", "GlobalMaxPool"],
    "softmax": ["Softmax"],
}


FOLDABLE = {"Shape", "Constant", "Gather", "Unsqueeze", "Squeeze", "Concat", "Slice", "Cast", "Identity",
            "Reshape", "Flatten", "Add", "Sub", "Mul", "Div"}
ELEMENTWISE = {"Add", "Sub", "Mul", "Div", "Pow", "Relu", "Sigmoid", "Tanh", "Exp", "Log", "Sqrt", "Abs", "Neg",
               "Erf", "HardSwish", "LeakyRelu"}
ONE_TO_ONE = {"Conv", "Softmax", "AveragePool", "GlobalAveragePool", "GlobalMaxPool", "Transpose", "Concat",
              "Split", "Gather", "Pad", "Resize", "Flatten", "Reshape", "Squeeze", "Unsqueeze"}


def compute_operator_count(model, folded_bns, inits):
    """MegEngine compute operators (everything but inputs, constants and params) the
    documented mapping gives, from the ONNX graph and onnx's own shape inference."""
    import onnx
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
        if op in ("Identity", "Dropout"):
            if ins[0] in const:
                const.update(n.output[:1])
            continue
        if op == "BatchNormalization":
            count += 0 if id(n) in folded_bns else 1
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
        else:
            raise SystemExit(f"{op}: no rule for the operator count (the importer would reject it too)")
    return count


def expectations(model):
    import onnx
    from onnx import numpy_helper

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

    def as_array(name):
        return numpy_helper.to_array(inits[name])

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
        weight = as_array(resolve(conv.input[1]))
        folded_bytes += weight.nbytes + weight.shape[0] * 4

    # A BatchNormalization left on its own becomes x * scale + bias: two new tensors
    # of one float per channel instead of its four statistics.
    lone_bns = 0
    for n in g.node:
        if n.op_type == "BatchNormalization" and id(n) not in folded_bns:
            lone_bns += 1
            folded_bytes += 2 * as_array(resolve(n.input[1])).nbytes

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
        a = as_array(name)
        return a.nbytes // 2 if a.dtype == np.int64 else a.nbytes

    compute = compute_operator_count(model, folded_bns, inits)

    histogram = {}
    for n in g.node:
        histogram[n.op_type] = histogram.get(n.op_type, 0) + 1
    return {
        "onnx_nodes": len(g.node),
        "onnx_op_histogram": dict(sorted(histogram.items())),
        "onnx_initializers": len(inits),
        "onnx_initializer_bytes": int(sum(numpy_helper.to_array(t).nbytes for t in g.initializer)),
        "folded_batch_norms": len(folded_bns),
        "families": {k: sum(histogram.get(op, 0) for op in ops) for k, ops in FAMILIES.items()},
        "compute_operators": compute,
        "params": len(kept) + 2 * len(folded_bns) + 2 * lone_bns,
        "param_bytes": int(sum(stored_bytes(p) for p in kept) + folded_bytes),
        "inputs": [i.name for i in g.input if i.name not in inits],
        "outputs": [o.name for o in g.output],
    }


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
              "Equal": np.equal, "Less": np.less, "Greater": np.greater}
    if op in binary:
        return binary[op](ins[0], ins[1])
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
    return None


def onnx_static_types(model):
    """Static tensor types (static_tensor_types) of every node output of `model`, by
    onnx's shape inference. onnx 1.12's data propagation stops at the integer shape
    arithmetic torch exports (Shape -> Gather -> Add -> Div -> Slice starts, so e.g. every
    chunk's Slice and all after it stay unknown); those are evaluated here with numpy
    and turned into initializers, and inference re-run, until nothing more folds. The
    folded tensors get their value's shape. Modifies `model`."""
    from onnx import numpy_helper, shape_inference

    g = model.graph
    value = {t.name: numpy_helper.to_array(t) for t in g.initializer
             if t.data_type in (6, 7, 9) and int(np.prod(t.dims)) <= 4096}  # INT32, INT64, BOOL
    folded = {}
    while True:
        inferred = shape_inference.infer_shapes(model, strict_mode=True, data_prop=True)
        types = static_tensor_types(list(inferred.graph.value_info) + list(g.input) + list(g.output))
        new = []
        for n in g.node:
            if len(n.output) != 1 or n.output[0] in value:
                continue
            v = _fold_node(n, value, types)
            if v is not None:
                value[n.output[0]] = v
                if n.op_type != "Constant":  # onnx infers those already
                    new.append((n, v))
        if not new:
            break
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
            for k in sorted(r):
                walk(r[k])
        else:
            raise SystemExit(f"unexpected forward result {type(r).__name__}")

    walk(result)
    return flat


def torch_outputs(result):
    """[{"shape", "dtype"}] for a forward result (a tensor or a nest of them)."""
    return [{"shape": [int(d) for d in r.shape], "dtype": str(r.dtype).replace("torch.", "")}
            for r in flat_tensors(result)]


def models():
    import torch
    import torchvision.models as tv

    def vision(factory, **export):
        return lambda: (factory(weights=None), torch.randn(1, 3, 224, 224), export)

    def transformer():
        layer = torch.nn.TransformerEncoderLayer(d_model=64, nhead=4, dim_feedforward=128, dropout=0.1)
        return torch.nn.TransformerEncoder(layer, num_layers=2), torch.randn(16, 2, 64), {}

    return {
        "resnet18": vision(tv.resnet18),
        # Eval-mode export folds BatchNorm into Conv itself; PRESERVE keeps the
        # BatchNormalization nodes, so the importer's own folding is exercised.
        "resnet18_unfused_bn": vision(tv.resnet18, training=torch.onnx.TrainingMode.PRESERVE),
        "resnet50": vision(tv.resnet50),
        "mobilenet_v2": vision(tv.mobilenet_v2),
        "shufflenet_v2_x0_5": vision(tv.shufflenet_v2_x0_5),
        "squeezenet1_1": vision(tv.squeezenet1_1),
        "efficientnet_b0": vision(tv.efficientnet_b0),
        "vgg11": vision(tv.vgg11),
        "transformer_encoder": transformer,
    }


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("out_dir")
    ap.add_argument("--only", nargs="*", help="model names (default: all)")
    ap.add_argument("--opset", type=int, default=13)
    args = ap.parse_args()

    import onnx
    import torch

    os.makedirs(args.out_dir, exist_ok=True)
    table = models()
    for name in args.only or table:
        if name not in table:
            sys.exit(f"unknown model {name!r}; known: {', '.join(table)}")
        started = time.time()
        torch.manual_seed(0)
        model, example, export = table[name]()
        model.eval()
        path = os.path.join(args.out_dir, f"{name}.onnx")
        with torch.no_grad():
            # The forward PyTorch computes, on the very input the export traces.
            result = model(example)
            reference = torch_outputs(result)
            np.save(os.path.join(args.out_dir, f"{name}.input.npy"), example.numpy())
            output_files = []
            for k, t in enumerate(flat_tensors(result)):
                output_files.append(f"{name}.torch.{k}.npy")
                np.save(os.path.join(args.out_dir, output_files[-1]), t.numpy())
            torch.onnx.export(model, example, path, opset_version=args.opset, input_names=["input"],
                              output_names=["output"], do_constant_folding=True, **export)
        exported = onnx.load(path)
        expect = expectations(exported)
        expect["expect_version"] = EXPECT_VERSION
        expect["torch_outputs"] = reference
        expect["input_file"] = f"{name}.input.npy"
        expect["torch_output_files"] = output_files
        # Logits of ImageNet's 1000 classes: the evaluator's argmax must be PyTorch's.
        expect["classifier"] = name != "transformer_encoder"
        expect["value_info"] = static_tensor_types(exported.graph.value_info)
        expect["value_info_total"] = len(exported.graph.value_info)
        expect["declared_outputs"] = static_tensor_types(exported.graph.output)
        expect["node_outputs"] = sum(1 for n in exported.graph.node for o in n.output if o)
        expect["node_output_ops"] = dict(sorted((o, n.op_type) for n in exported.graph.node for o in n.output if o))
        expect["onnx_value_info"] = onnx_static_types(exported)  # last: modifies `exported`
        for vname, t in expect["value_info"].items():
            if expect["onnx_value_info"].get(vname, t) != t:
                sys.exit(f"{name}: {vname}: exporter records {t}, onnx infers {expect['onnx_value_info'][vname]}")
        for got, (oname, declared) in zip(reference, expect["declared_outputs"].items()):
            if got["shape"] != declared["dims"]:
                sys.exit(f"{name}: output {oname}: PyTorch computes {got['shape']}, ONNX declares {declared['dims']}")
        expect["model"] = name
        expect["onnx_file_bytes"] = os.path.getsize(path)
        with open(os.path.join(args.out_dir, f"{name}.expect.json"), "w") as f:
            json.dump(expect, f, indent=1, sort_keys=True)
        print(f"{name}: {expect['onnx_nodes']} nodes, {expect['params']} params, "
              f"{len(expect['value_info'])}/{expect['value_info_total']} static value_info "
              f"({len(expect['onnx_value_info'])}/{expect['node_outputs']} by onnx), "
              f"{expect['onnx_file_bytes']} bytes, {time.time() - started:.1f}s", flush=True)


if __name__ == "__main__":
    main()
