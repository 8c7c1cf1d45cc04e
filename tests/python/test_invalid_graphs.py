"""Graphs MegEngine would refuse are refused by mgedump.dump_graph (and dump_many) with an
exception naming the operator and the broken rule, and nothing is written. The same cases
as tests/invalid_graphs_test.cpp (CLI and batch), built with the Graph API from graph-JSON-
shaped dicts."""
import numpy as np
import pytest

import mgedump

F32 = "Float32"
Q8 = {"dtype": "QuantizedS8", "scale": 0.5}
NUMPY = {"Float32": np.float32, "Int32": np.int32}


def inp(name, shape, dtype=F32):
    return {"name": name, "shape": shape, "dtype": dtype}


def const(name, shape, dtype=F32, values=None):
    return {"name": name, "shape": shape, "dtype": dtype, "values": values}


def op(type_, name, inputs, outputs=None, output_dtype=None, **params):
    return {"op": type_, "name": name, "inputs": inputs, "params": params, "outputs": outputs,
            "output_dtype": output_dtype}


def graph(inputs, constants, operators, outputs=None):
    return {"inputs": inputs, "constants": constants, "operators": operators,
            "outputs": outputs or [operators[-1]["name"]]}


MHA = dict(num_heads=1, embeding_size=8, k_size=8, v_size=8)
MHA_INPUTS = [inp("q", [2, 4, 8]), inp("k", [2, 4, 8]), inp("v", [2, 4, 8])]
MHA_OUTPUTS = ["mha:0", "mha:1", "mha:2", "mha:3"]

# (name, graph, substrings the error must contain: the operator, then the rule)
CASES = [
    ("conv_in_channels",
     graph([inp("data", [1, 3, 32, 32])], [const("w", [16, 4, 3, 3])],
           [op("Convolution", "conv1", ["data", "w"])]),
     ["'conv1' (Convolution)", "weight [16,4,3,3] needs 4 input channels", "input 0 has 3"]),
    ("matmul_k_mismatch",
     graph([inp("a", [2, 32])], [const("b", [31, 10])], [op("MatrixMul", "mm", ["a", "b"])]),
     ["'mm' (MatrixMul)", "K=32", "K=31", "K must match"]),
    ("reshape_element_count",
     graph([inp("x", [2, 3])], [const("tshape", [2], "Int32", [4, 2])], [op("Reshape", "rs", ["x", "tshape"])]),
     ["'rs' (Reshape)", "[2,3] (6 elements)", "[4,2] (8 elements)"]),
    ("pooling_stride_0",
     graph([inp("x", [1, 3, 8, 8])], [], [op("Pooling", "pool", ["x"], stride_h=0)]),
     ["'pool' (Pooling)", "stride_h 0", "a stride of 0 is refused"]),
    ("convolution_stride_0",
     graph([inp("x", [1, 3, 8, 8])], [const("w", [4, 3, 3, 3])], [op("Convolution", "conv", ["x", "w"], stride_h=0)]),
     ["'conv' (Convolution)", "stride_h 0", "a stride of 0 is refused"]),
    ("elemwise_relu_2_inputs",
     graph([inp("x", [2, 3]), inp("y", [2, 3])], [], [op("Elemwise", "relu", ["x", "y"], mode="RELU")]),
     ["'relu' (Elemwise)", "mode RELU takes 1 input, has 2"]),
    ("elemwise_add_3_inputs",
     graph([inp("x", [2, 3]), inp("y", [2, 3]), inp("z", [2, 3])], [],
           [op("Elemwise", "add", ["x", "y", "z"], mode="ADD")]),
     ["'add' (Elemwise)", "mode ADD takes 2 inputs, has 3"]),
    ("softmax_axis_5_on_4d",
     graph([inp("x", [1, 2, 3, 4])], [], [op("Softmax", "sm", ["x"], axis=5)]),
     ["'sm' (Softmax)", "axis 5 is out of range for a 4-dim input"]),
    ("mha_4_inputs_only_biaskv",
     graph(MHA_INPUTS, [const("wb", [1])],
           [op("MultiHeadAttn", "mha", ["q", "k", "v", "wb"], MHA_OUTPUTS,
               tensor_combination_type="ONLY_BIASKV", **MHA)], ["mha:0"]),
     ["'mha' (MultiHeadAttn)", "with 4 inputs tensor_combination_type must be NONE, got ONLY_BIASKV"]),
    ("mha_4_inputs_all",
     graph(MHA_INPUTS, [const("wb", [1])],
           [op("MultiHeadAttn", "mha", ["q", "k", "v", "wb"], MHA_OUTPUTS,
               tensor_combination_type="ALL", **MHA)], ["mha:0"]),
     ["'mha' (MultiHeadAttn)", "with 4 inputs tensor_combination_type must be NONE, got ALL"]),
    ("group_norm_backward_3_inputs",
     graph([inp("dy", [2, 4, 3, 3]), inp("x", [2, 4, 3, 3])], [const("w", [4])],
           [op("GroupNormBackward", "gnb", ["dy", "x", "w"], ["gnb:0", "gnb:1", "gnb:2"], group=2)], ["gnb:0"]),
     ["'gnb' (GroupNormBackward)", "takes 5 inputs", "has 3"]),
    ("instance_norm_backward_3_inputs",
     graph([inp("dy", [2, 4, 3, 3]), inp("x", [2, 4, 3, 3])], [const("w", [4])],
           [op("InstanceNormBackward", "inb", ["dy", "x", "w"], ["inb:0", "inb:1", "inb:2"])], ["inb:0"]),
     ["'inb' (InstanceNormBackward)", "takes 5 inputs", "has 3"]),
    ("convolution3d_io16xc32_on_float32",
     graph([inp("x", [1, 2, 4, 4, 4])], [const("w", [4, 2, 3, 3, 3])],
           [op("Convolution3D", "c3d", ["x", "w"], data_type="FLOAT_IO16xC32")]),
     ["'c3d' (Convolution3D)", "data_type FLOAT_IO16xC32 needs Float16 inputs", "input 0 is Float32"]),
    ("elemwise_multi_type_qadd_1_input",
     graph([inp("x", [2, 3], Q8)], [], [op("ElemwiseMultiType", "qadd", ["x"], output_dtype=Q8, mode="QADD")]),
     ["'qadd' (ElemwiseMultiType)", "mode QADD takes 2 inputs, has 1"]),
    ("elemwise_multi_type_eq_without_output_dtype",
     graph([inp("x", [2, 3]), inp("y", [2, 3])], [], [op("ElemwiseMultiType", "eq", ["x", "y"], mode="EQ")]),
     ["'eq' (ElemwiseMultiType)", "mode EQ needs an output dtype"]),
    ("batch_norm_4_inputs",
     graph([inp("x", [1, 4, 3, 3])], [const("s", [1, 4, 1, 1]), const("b", [1, 4, 1, 1]), const("m", [1, 4, 1, 1])],
           [op("BatchNorm", "bn", ["x", "s", "b", "m"], [f"bn:{i}" for i in range(6)])], ["bn:5"]),
     ["'bn' (BatchNorm)", "takes 3 inputs", "or 5", "has 4"]),
    ("layer_norm_2_inputs",
     graph([inp("x", [2, 3, 4])], [const("w", [4])],
           [op("LayerNorm", "ln", ["x", "w"], ["ln:0", "ln:1", "ln:2"], normalized_dim=1, normalized_size=4)],
           ["ln:0"]),
     ["'ln' (LayerNorm)", "takes 1 input", "or 3", "has 2"]),
    ("group_norm_2_inputs",
     graph([inp("x", [2, 4, 3, 3])], [const("w", [4])],
           [op("GroupNorm", "gn", ["x", "w"], ["gn:0", "gn:1", "gn:2"], group=2)], ["gn:0"]),
     ["'gn' (GroupNorm)", "takes 1 input", "or 3", "has 2"]),
    ("elemwise_mul_on_quantized_s8",
     graph([inp("x", [2, 3], Q8), inp("y", [2, 3], Q8)], [], [op("Elemwise", "mul", ["x", "y"], mode="MUL")]),
     ["'mul' (Elemwise)", "mode MUL does not take quantized inputs"]),
    ("reduce_one_input_default_axis",
     graph([inp("x", [2, 3])], [], [op("Reduce", "red", ["x"], mode="SUM")]),
     ["'red' (Reduce)", "needs an axis", "axis is 2147483647"]),
    ("dimshuffle_axis_out_of_range",
     graph([inp("x", [2, 3])], [], [op("Dimshuffle", "ds", ["x"], pattern=[0, 2])]),
     ["'ds' (Dimshuffle)", "pattern entry 2 is out of range for ndim 2"]),
    ("dimshuffle_wrong_ndim",
     graph([inp("x", [2, 3])], [], [op("Dimshuffle", "ds", ["x"], pattern=[1, 0], ndim=3)]),
     ["'ds' (Dimshuffle)", "ndim is 3, the input has 2 dims"]),
    ("group_convolution_4d_filter",
     graph([inp("x", [1, 4, 8, 8])], [const("w", [4, 2, 3, 3])],
           [op("Convolution", "gconv", ["x", "w"], sparse="GROUP")]),
     ["'gconv' (Convolution)", "GROUP convolution needs a 5-dim filter", "[4,2,3,3]"]),
    ("elemwise_neq",
     graph([inp("x", [2, 3]), inp("y", [2, 3])], [], [op("Elemwise", "neq", ["x", "y"], mode="NEQ")]),
     ["'neq' (Elemwise)", "mode NEQ is not an Elemwise mode MegEngine can run", "ElemwiseMultiType NEQ"]),
    ("elemwise_isnan",
     graph([inp("x", [2, 3])], [], [op("Elemwise", "isnan", ["x"], mode="ISNAN")]),
     ["'isnan' (Elemwise)", "mode ISNAN is not an Elemwise mode MegEngine can run", "ElemwiseMultiType ISNAN"]),
    ("elemwise_isinf",
     graph([inp("x", [2, 3])], [], [op("Elemwise", "isinf", ["x"], mode="ISINF")]),
     ["'isinf' (Elemwise)", "mode ISINF is not an Elemwise mode MegEngine can run", "ElemwiseMultiType ISINF"]),
    # Valid as built (dumps with no_change_graph=True, below), but the SQUARE -> POW rewrite
    # would change the output's dtype, which MegEngine's replace_var refuses.
    ("elemwise_square_int32_rewrite",
     graph([inp("x", [2, 3], "Int32")], [], [op("Elemwise", "sq", ["x"], mode="SQUARE")]),
     ["'sq' (Elemwise)", "compatibility rewrite", "Int32", "no_change_graph"]),
    ("reduce_max_of_empty_input",
     graph([inp("x", [2, 0])], [], [op("Reduce", "mx", ["x"], mode="MAX", axis=1)]),
     ["'mx' (Reduce)", "MAX of an empty input [2,0] into a non-empty output [2,1]"]),
    ("maxpool_uint8",
     graph([inp("x", [1, 3, 8, 8], "Uint8")], [], [op("Pooling", "mp", ["x"], mode="MAX")]),
     ["'mp' (Pooling)", "input 0 is Uint8"]),
]
CASE_IDS = [c[0] for c in CASES]
# Refused when the operator is added (Graph.op) or at the dump; both name the operator.
REFUSED = (ValueError, mgedump.SerializationError)


def build(spec):
    """The graph's output vars, built with the Graph API (may itself raise for a bad operator)."""
    g = mgedump.Graph()
    v = {}
    for i in spec["inputs"]:
        v[i["name"]] = g.input(i["name"], tuple(i["shape"]), i["dtype"])
    for c in spec["constants"]:
        dtype = NUMPY[c["dtype"]]
        value = np.ones(c["shape"], dtype) if c["values"] is None else np.array(c["values"], dtype)
        v[c["name"]] = g.const(value, c["name"])
    for o in spec["operators"]:
        kw = dict(o["params"])
        if o["output_dtype"] is not None:
            kw["output_dtype"] = o["output_dtype"]
        if o["outputs"]:
            kw["outputs"] = len(o["outputs"])
        out = g.op(o["op"], *[v[n] for n in o["inputs"]], name=o["name"], **kw)
        outs = out if isinstance(out, tuple) else (out,)
        for name, var in zip(o["outputs"] or [o["name"]], outs):
            v[name] = var
    return [v[n] for n in spec["outputs"]]


def dump_to_path(spec, path, strip_info, **options):
    """The usual way to dump to a file: the artifact is opened only once dump_graph returned."""
    data, _ = mgedump.dump_graph(build(spec), strip_info_file=str(strip_info), **options)
    with open(path, "wb") as f:
        f.write(data)


def assert_names_rule(message, expect):
    missing = [s for s in expect if s not in message]
    assert not missing, f"missing {missing} in: {message}"


@pytest.mark.parametrize("name,spec,expect", CASES, ids=CASE_IDS)
@pytest.mark.parametrize("fmt", ["FBS_V2", "FBS"])
def test_dump_graph_refuses_and_writes_nothing(tmp_path, name, spec, expect, fmt):
    out, strip = tmp_path / "out.mge", tmp_path / "strip.json"
    with pytest.raises(REFUSED) as e:
        dump_to_path(spec, out, strip, dump_format=fmt)
    assert_names_rule(str(e.value), expect)
    assert not out.exists()
    assert not strip.exists()
    assert list(tmp_path.iterdir()) == []


def test_square_on_int32_dumps_with_no_change_graph(tmp_path):
    spec = dict(CASES[CASE_IDS.index("elemwise_square_int32_rewrite")][1])
    out, strip = tmp_path / "out.mge", tmp_path / "strip.json"
    dump_to_path(spec, out, strip, no_change_graph=True)
    assert out.stat().st_size > 0
    assert mgedump.load_graph(str(out)).output_vars_list[0].owner.type == "Elemwise"


def test_dump_many_fails_the_job_whose_rewrite_is_refused():
    # The Graph API refuses the other cases when the operator is added (as MegEngine does when it
    # builds the operator), so this is the one invalid graph that reaches dump_many.
    name, spec, expect = CASES[CASE_IDS.index("elemwise_square_int32_rewrite")]
    g = mgedump.Graph()
    x = g.input("x", (2, 3), "float32")
    valid = g.op("Elemwise", x, mode="RELU", name="ok")
    invalid = build(spec)
    with pytest.raises(mgedump.SerializationError) as e:
        mgedump.dump_many([{"output_vars": [valid]}, {"output_vars": invalid}], threads=2)
    message = str(e.value)
    assert message.startswith("job 1: "), message
    assert_names_rule(message, expect)
