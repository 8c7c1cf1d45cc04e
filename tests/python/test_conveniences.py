"""What a MegEngine user expects of a Python API beyond the contract: reprs that say
what a thing is, errors that list what would have been valid, and no value changed
on the way in without a word."""
import numpy as np
import pytest

import mgedump


def test_a_var_shows_its_name_dtype_shape_and_operator(small_graph):
    g, out = small_graph
    assert repr(out) == "<mgedump.Var var 3 'out': float32 (1, 3), from operator #3 'square_op' (Elemwise)>"
    assert repr(g) == "<mgedump.Graph with 4 operators>"
    assert repr(out.owner) == "<mgedump.Operator operator #3 'square_op' (Elemwise)>"


def test_results_show_their_fields(small_graph):
    _, out = small_graph
    data, info = mgedump.dump_graph([out], keep_param_name=True)
    assert repr(info).startswith(f"CompGraphDumpResult(nr_opr={info.nr_opr}, tot_bytes={info.tot_bytes}, ")
    assert repr(info).endswith("inputs=['data'], outputs=['out'], params=['w'])")
    loaded = mgedump.load_graph(data)
    assert repr(loaded).startswith(f"CompGraphLoadResult(graph=<mgedump.Graph with {info.nr_opr} operators, loaded from FBS_V2>")
    assert repr(loaded.metadata) == "Metadata(is_valid=False, graph_modified=False, user_info=b'', optimize_options=0)"


def test_an_unknown_param_field_lists_the_operators_fields():
    g = mgedump.Graph()
    x = g.input("x", (1, 3))
    with pytest.raises(ValueError, match=r"has no param field 'mod' \(its fields: Elemwise: mode\)"):
        g.op("Elemwise", x, mod="RELU")
    with pytest.raises(ValueError, match=r"its fields: Convolution: mode, pad_h, pad_w, .*; ExecutionPolicy: strategy"):
        g.op("Convolution", x, x, padh=1)


def test_an_unknown_enum_member_lists_the_members():
    g = mgedump.Graph()
    x = g.input("x", (1, 3))
    with pytest.raises(ValueError, match=r"'RELUU' is not a ElemwiseMode member \(members: RELU, ABS, ACOS, .*\bMAX\b"):
        g.op("Elemwise", x, mode="RELUU")


def test_a_64_bit_integer_that_int32_cannot_hold_is_refused_not_wrapped():
    g = mgedump.Graph()
    with pytest.raises(ValueError, match=r"value 1099511627776 \(element 1\) does not fit int32: it would become 0"):
        g.const(np.array([1, 2**40], np.int64), "c")
    with pytest.raises(ValueError, match="does not fit int32"):
        g.op("Elemwise", g.input("x", (1,), "int32"), 2**40, mode="ADD")
    assert g.const(np.array([1, -5], np.int64)).value.tolist() == [1, -5]  # what fits is narrowed as MegEngine does


def test_a_float64_that_float32_cannot_hold_is_refused_not_made_inf():
    g = mgedump.Graph()
    with pytest.raises(ValueError, match=r"value 1e\+300 \(element 0\) does not fit float32: it would become inf"):
        g.param(np.array([1e300, 1.0]), "w")
    assert g.const(np.array([0.1, np.inf, -np.inf])).value.tolist()[1:] == [np.inf, -np.inf]  # inf stays inf
    assert np.isnan(g.const(np.array([np.nan])).value[0])


def test_a_value_converted_to_an_explicit_dtype_must_keep_its_value():
    g = mgedump.Graph()
    with pytest.raises(ValueError, match="value 300 .* does not fit int8: it would become 44"):
        g.const([1, 300], dtype="int8")
    with pytest.raises(ValueError, match="value 1.5 .* does not fit int32"):
        g.const(np.array([1.5]), dtype="int32")
    assert g.const([1, 2], dtype="int8").value.dtype == np.int8


def test_a_float_param_beyond_float32_is_refused_not_made_inf():
    g = mgedump.Graph()
    x = g.input("x", (1, 3))
    with pytest.raises(ValueError, match=r"param PowC.exp: 1e\+300 is out of Float32's range"):
        g.op("PowC", x, exp=1e300)
    assert g.op("PowC", x, exp=2.5).owner.params["exp"] == 2.5
