"""mgedump.dump_with_testcases and load_testcases: MegEngine's self-checking test-case
file (mgbtest0) from Python. dump_graph keeps MegEngine's exact signature."""
import inspect

import numpy as np
import pytest

import mgedump


def two_input_graph():
    g = mgedump.Graph()
    zeta = g.input("zeta", (2, 3), "float32")
    alpha = g.input("alpha", (3,), "float32")
    prod = g.op("Elemwise", zeta, alpha, mode="MUL")
    out = g.op("Elemwise", prod, g.const(np.array([1, 2, 3], np.float32)), mode="ADD")
    act = g.op("Elemwise", zeta, mode="RELU")
    return {"out": out, "act": act}


def test_dump_graph_keeps_megengines_signature():
    params = list(inspect.signature(mgedump.dump_graph).parameters)
    assert "input_data" not in params and "maxerr" not in params
    assert params[-1] == "compat_older_version"


def test_file_layout_and_the_stored_values(tmp_path):
    z = np.array([[1, -2, 3], [-4, 5, -6]], np.float32)
    a = np.array([2, 0.5, -1], np.float32)
    np.save(tmp_path / "z.npy", z)
    np.save(tmp_path / "a.npy", a)
    spec = f"zeta:{tmp_path / 'z.npy'};alpha:{tmp_path / 'a.npy'}"
    data, info = mgedump.dump_with_testcases(two_input_graph(), input_data=[spec, "#rand(0,1)"])
    assert data[:8] == b"mgbtest0"
    assert int.from_bytes(data[8:12], "little") == 2
    assert info.inputs == ["act:expect", "alpha", "out:expect", "zeta"]
    assert info.outputs == ["assert_eq(out:expect,out)", "assert_eq(act:expect,act)"]

    cases = mgedump.load_testcases(data)
    assert len(cases) == 2
    assert list(cases[0]) == ["act:expect", "alpha", "out:expect", "zeta"]  # sorted, as load_and_run matches them
    np.testing.assert_array_equal(cases[0]["zeta"], z)
    np.testing.assert_array_equal(cases[0]["alpha"], a)
    # The expected values, from the definitions (numpy computes the same float32 arithmetic).
    np.testing.assert_array_equal(cases[0]["out:expect"], z * a + np.array([1, 2, 3], np.float32))
    np.testing.assert_array_equal(cases[0]["act:expect"], np.maximum(z, 0))
    r = cases[1]
    assert r["zeta"].min() >= 0 and r["zeta"].max() < 1
    np.testing.assert_array_equal(r["out:expect"], r["zeta"] * r["alpha"] + np.array([1, 2, 3], np.float32))


def test_load_graph_returns_the_model_with_its_asserts(tmp_path):
    data, _ = mgedump.dump_with_testcases(two_input_graph(), input_data="#rand(-1,1)")
    path = tmp_path / "t.mge"
    path.write_bytes(data)
    graph, by_name, in_order, metadata = mgedump.load_graph(str(path))
    assert list(by_name) == ["assert_eq(out:expect,out)", "assert_eq(act:expect,act)"]
    assert len(mgedump.load_graphs(str(path))) == 2  # the model and one test case
    # The model runs on its own test case: the AssertEqual kernel passes and forwards the expected values.
    (case,) = mgedump.load_testcases(str(path))
    outputs = mgedump.run(str(path), case)
    np.testing.assert_array_equal(outputs["assert_eq(out:expect,out)"], case["out:expect"])


def test_options_reach_the_file():
    data, info = mgedump.dump_with_testcases(two_input_graph(), input_data="#rand(0,1)", no_assert=True,
                                             dump_format="FBS")
    assert info.inputs == ["alpha", "zeta"]
    assert data[12:16] == b"MGBC"
    assert list(mgedump.load_testcases(data)[0]) == ["alpha", "zeta"]
    a, _ = mgedump.dump_with_testcases(two_input_graph(), input_data="#rand(0,1)", seed=1)
    b, _ = mgedump.dump_with_testcases(two_input_graph(), input_data="#rand(0,1)", seed=1)
    c, _ = mgedump.dump_with_testcases(two_input_graph(), input_data="#rand(0,1)", seed=2)
    assert a == b and a != c


def test_bad_input_data_raises_value_error(tmp_path):
    np.save(tmp_path / "small.npy", np.zeros((1, 3), np.float32))
    with pytest.raises(ValueError, match="no data for input 'alpha'"):
        mgedump.dump_with_testcases(two_input_graph(), input_data="zeta:#rand(0,1)")
    with pytest.raises(ValueError, match=r"input 'zeta' is Float32 \[2,3\]"):
        mgedump.dump_with_testcases(two_input_graph(), input_data=f"zeta:{tmp_path / 'small.npy'};alpha:#rand(0,1)")
    with pytest.raises(ValueError, match="cannot open"):
        mgedump.dump_with_testcases(two_input_graph(), input_data="zeta:nope.npy;alpha:#rand(0,1)")
    with pytest.raises(ValueError, match="input_data is empty"):
        mgedump.dump_with_testcases(two_input_graph(), input_data=[])
    with pytest.raises(mgedump.SerializationError, match="not a test-case file"):
        mgedump.load_testcases(mgedump.dump_graph(two_input_graph())[0])
