"""Building graphs from Python: values viewed in place, operators by registry name
with keyword params checked against the param tables."""
import sys

import numpy as np
import pytest

import mgedump


def test_param_views_the_numpy_array_without_copying():
    w = np.arange(6, dtype=np.float32).reshape(2, 3)
    before = sys.getrefcount(w)
    g = mgedump.Graph()
    v = g.param(w, "w")
    assert sys.getrefcount(w) == before + 1  # the graph holds the array itself
    assert np.shares_memory(v.value, w)
    w[0, 0] = 42.0  # seen by the dump: the bytes were never copied
    data, _ = mgedump.dump_graph([v], dump_format="FBS", no_change_graph=True)
    assert np.float32(42.0).tobytes() + np.float32(1.0).tobytes() in data
    del g, v
    assert sys.getrefcount(w) == before


def test_the_array_outlives_the_callers_reference():
    g = mgedump.Graph()
    v = g.const(np.full(4, 7, dtype=np.int32))  # no other reference to the array
    data, result = mgedump.dump_graph([v], dump_format="FBS")
    assert result.tensor_value_bytes == 16
    assert mgedump.load_graph(data).output_vars_list[0].value.tolist() == [7, 7, 7, 7]


@pytest.mark.parametrize("dtype", ["float32", "float16", "int8", "int16", "int32", "uint8", "uint16", "bool"])
def test_megengine_dtypes_round_trip_with_their_values(dtype):
    value = (np.arange(6) % 2 == 0) if dtype == "bool" else np.arange(6).astype(dtype)
    g = mgedump.Graph()
    v = g.param(value.reshape(2, 3), "p")
    assert v.dtype == np.dtype(dtype) and v.shape == (2, 3)
    for fmt in ["FBS", "FBS_V2"]:
        data, _ = mgedump.dump_graph([v], dump_format=fmt)
        back = mgedump.load_graph(data).output_vars_list[0].value
        assert back.dtype == np.dtype(dtype) and back.shape == (2, 3)
        assert np.array_equal(back, value.reshape(2, 3))


def test_64_bit_values_are_narrowed_as_megengine_does():
    g = mgedump.Graph()
    f = g.const(np.array([0.5, 1.5]))  # float64
    i = g.const([1, 2, 3])  # Python ints → int64 → int32
    s = g.const(2.5)
    assert f.dtype == np.float32 and f.value.tolist() == [0.5, 1.5]
    assert i.dtype == np.int32 and i.value.tolist() == [1, 2, 3]
    assert s.dtype == np.float32 and s.shape == ()


def test_non_contiguous_arrays_are_made_contiguous():
    base = np.arange(12, dtype=np.float32).reshape(3, 4)
    g = mgedump.Graph()
    v = g.const(base.T)
    assert v.shape == (4, 3)
    assert np.array_equal(v.value, base.T)


def test_unsupported_dtype_is_a_value_error():
    g = mgedump.Graph()
    with pytest.raises(ValueError, match="numpy dtype <U1 has no MegEngine equivalent"):
        g.const(np.array(["a"]))
    with pytest.raises(ValueError, match="input 'x'.*has no MegEngine equivalent"):
        g.input("x", (1,), np.float64)


def test_input_takes_numpy_or_megengine_dtype_names():
    g = mgedump.Graph()
    assert g.input("a", (1,), "Int32").dtype == np.int32
    assert g.input("b", [2, 2], np.uint8).dtype == np.uint8
    assert g.input("c", 5).shape == (5,)
    assert g.input("d", (1,)).value is None


def test_op_params_by_keyword_with_enum_names():
    g = mgedump.Graph()
    x = g.input("x", (1, 3, 8, 8))
    w = g.param(np.zeros((4, 3, 3, 3), np.float32), "w")
    y = g.op("Convolution", x, w, stride_h=2, stride_w=2, pad_h=1, pad_w=1, mode="CONVOLUTION", name="conv")
    p = y.owner.params
    assert (p["stride_h"], p["stride_w"], p["pad_h"], p["pad_w"], p["mode"]) == (2, 2, 1, 1, "CONVOLUTION")
    assert y.owner.name == "conv" and y.owner.type == "Convolution" and y.owner.typeinfo == "ConvolutionForward"
    assert y.owner.inputs == [x, w]


def test_operator_params_feed_back_into_op():
    g = mgedump.Graph()
    x = g.input("x", (1, 3, 8, 8))
    y = g.op("Pooling", x, mode="AVERAGE", window_h=3, window_w=3, stride_h=2, stride_w=2)
    again = g.op(y.owner.type, *y.owner.inputs, **y.owner.params)
    assert again.owner.params == y.owner.params
    assert y.owner.params["mode"] == "AVERAGE"


def test_unknown_param_field_names_the_operator_and_field():
    g = mgedump.Graph()
    x = g.input("x", (1,))
    with pytest.raises(ValueError, match=r"operator #1 \(Elemwise 'e'\).*no param field 'modee'"):
        g.op("Elemwise", x, modee="RELU", name="e")


def test_bad_enum_member_names_the_field_and_value():
    g = mgedump.Graph()
    x = g.input("x", (1,))
    with pytest.raises(ValueError, match=r"Elemwise.*param Elemwise.mode: 'RELUU' is not a .* member"):
        g.op("Elemwise", x, mode="RELUU")


def test_out_of_range_param_is_a_value_error():
    g = mgedump.Graph()
    x = g.input("x", (1, 3, 8, 8))
    with pytest.raises(ValueError, match=r"Pooling.*pad_h.*out of range"):
        g.op("Pooling", x, pad_h=-1)


def test_unknown_operator_and_wrong_input_count_are_value_errors():
    g = mgedump.Graph()
    x = g.input("x", (1,))
    with pytest.raises(ValueError, match="unknown operator 'NoSuchOp'"):
        g.op("NoSuchOp", x)
    with pytest.raises(ValueError, match=r"MatrixMul.*takes 2 inputs, got 1"):
        g.op("MatrixMul", x)


def test_vars_of_another_graph_are_rejected():
    a, b = mgedump.Graph(), mgedump.Graph()
    x = a.input("x", (1,))
    y = b.input("y", (1,))
    with pytest.raises(ValueError, match="belongs to another graph"):
        b.op("Elemwise", x, y, mode="ADD")
    with pytest.raises(ValueError, match=r"output_vars\[1\].*belongs to another graph"):
        mgedump.dump_graph([y, x])


def test_non_var_inputs_become_constants():
    g = mgedump.Graph()
    x = g.input("x", (3,))
    y = g.op("Elemwise", x, np.float32(2.0), mode="MUL")
    c = y.owner.inputs[1]
    assert c.owner.type == "ImmutableTensor" and c.value.tolist() == 2.0


def test_multi_output_operators_return_a_tuple():
    g = mgedump.Graph()
    x = g.input("x", (4, 6))
    parts = g.op("Split", x, g.const(np.int32([2])), g.const(np.int32([4])), axis=1)
    assert isinstance(parts, tuple) and len(parts) == 2
    assert [v.name for v in parts] == [parts[0].owner.name + ":0", parts[0].owner.name + ":1"]
    out = g.op("TopK", x, g.const(np.int32([2])), mode="VALUE_IDX_SORTED")
    assert len(out) == 2  # values and indices (ir/op_outputs.h)


def test_operator_options_reach_the_file():
    g = mgedump.Graph()
    x = g.input("x", (3,))
    y = g.op("TypeCvt", x, dtype="Int32", output_dtype="int32", comp_node="cpu0", priority=3)
    data, _ = mgedump.dump_graph([y], keep_opr_priority=True, dump_format="FBS")
    back = mgedump.load_graph(data).output_vars_list[0]
    assert back.owner.priority == 3
    assert back.dtype == np.int32


def test_var_name_can_be_set_and_vars_compare_by_identity():
    g = mgedump.Graph()
    x = g.input("x", (1,))
    y = g.op("Elemwise", x, mode="RELU")
    assert y.name.startswith("Elemwise")
    y.name = "relu"
    assert y.name == "relu"
    assert y.owner.outputs[0] == y and hash(y.owner.outputs[0]) == hash(y)
    assert y != x
    assert y.graph.operators[-1] == y.owner


@pytest.mark.parametrize("fmt", ["FBS", "FBS_V2"])
def test_quantized_dtypes_round_trip_with_scale_and_zero_point(fmt):
    g = mgedump.Graph()
    asymm = {"dtype": "Quantized8Asymm", "scale": 0.5, "zero_point": 128}
    s8 = {"dtype": "QuantizedS8", "scale": 0.25}
    x = g.input("x", (1, 4), asymm)
    stored = np.array([1, -2, 3, 4], np.int8)
    w = g.param(stored, "w", dtype=s8)
    assert np.shares_memory(w.value, stored)  # the stored integers, viewed in place
    y = g.op("TypeCvt", w, dtype={"dtype": "QuantizedS8", "scale": 0.5}, output_dtype={"dtype": "QuantizedS8", "scale": 0.5})
    data, _ = mgedump.dump_graph({"y": y, "x": x}, dump_format=fmt)
    loaded = mgedump.load_graph(data)
    back_y, back_x = loaded.output_vars_list
    assert back_x.dtype == asymm
    assert back_y.dtype == {"dtype": "QuantizedS8", "scale": 0.5}
    assert back_y.owner.params == {"dtype": {"dtype": "QuantizedS8", "scale": 0.5}}
    assert back_y.owner.inputs[0].dtype == s8
    assert back_y.owner.inputs[0].value.tolist() == [1, -2, 3, 4]


def test_quantized_values_must_be_their_storage_integers():
    g = mgedump.Graph()
    with pytest.raises(ValueError, match="QuantizedS8 values must be a numpy int8 array, got float64"):
        g.param(np.array([1.0]), "q", dtype={"dtype": "QuantizedS8", "scale": 0.25})
    with pytest.raises(ValueError, match="quantized dtype QuantizedS8 needs a scale"):
        g.input("q", (1,), "QuantizedS8")
    with pytest.raises(ValueError, match="needs a \"scale\""):
        g.input("q", (1,), {"dtype": "QuantizedS8"})


def test_plain_dtype_argument_converts_the_values():
    g = mgedump.Graph()
    v = g.const([1.5, 2.5], dtype="float16")
    assert v.dtype == np.float16 and v.value.tolist() == [1.5, 2.5]
