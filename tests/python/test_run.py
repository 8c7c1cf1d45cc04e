"""mgedump.run: the reference evaluator from Python. Values are checked against
the operators' definitions (numpy computes the same arithmetic)."""
import numpy as np
import pytest

import mgedump


def appendix_c_graph():
    g = mgedump.Graph()
    data = g.input("data", (1, 3), "float32")
    const = g.const(np.array([1, 2, 3], np.float32))
    return data, g.op("Elemwise", data, const, mode="ADD")


def test_run_a_graph_built_in_python():
    _, out = appendix_c_graph()
    x = np.array([[0.5, -1.0, 2.0]], np.float32)
    result = mgedump.run(out, {"data": x})
    assert len(result) == 1
    (value,) = result.values()
    np.testing.assert_array_equal(value, x + np.array([1, 2, 3], np.float32))


def test_run_a_dumped_file_and_its_bytes(tmp_path):
    _, out = appendix_c_graph()
    path = tmp_path / "m.mge"
    data, _ = mgedump.dump_graph([out])
    path.write_bytes(data)
    x = np.array([[3.0, 4.0, 5.0]], np.float32)
    from_path = mgedump.run(str(path), {"data": x})
    from_bytes = mgedump.run(path.read_bytes(), {"data": x})
    loaded = mgedump.run(mgedump.load_graph(str(path)), {"data": x})
    for r in (from_path, from_bytes, loaded):
        (value,) = r.values()
        np.testing.assert_array_equal(value, np.array([[4.0, 6.0, 8.0]], np.float32))


def test_random_inputs_are_deterministic():
    _, out = appendix_c_graph()
    a = mgedump.run(out, random_seed=3)
    b = mgedump.run(out, random_seed=3)
    np.testing.assert_array_equal(list(a.values())[0], list(b.values())[0])


def test_bad_inputs_are_clear_errors():
    _, out = appendix_c_graph()
    with pytest.raises(ValueError, match=r"input 'data' is Float32 \[1,3\], the array is \[1,4\]"):
        mgedump.run(out, {"data": np.zeros((1, 4), np.float32)})
    with pytest.raises(ValueError, match=r"no input 'x' \(its inputs: data\)"):
        mgedump.run(out, {"x": np.zeros((1, 3), np.float32)})
    with pytest.raises(mgedump.EvaluationError, match="no value given for input 'data'"):
        mgedump.run(out, {})
    with pytest.raises(TypeError, match="run takes a path"):
        mgedump.run(42)
