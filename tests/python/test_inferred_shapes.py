"""Var.shape and Var.dtype of operator outputs: set as soon as the operator is
added (MegEngine's static inference, ir/infer.h), for built and loaded graphs.
Expectations come from MegEngine's formulas and from files MegEngine wrote and ran."""
import json

import numpy as np
import pytest

import mgedump
from testdata import SHARED_DIR

DUMPS_DIR = SHARED_DIR / "realdata" / "megengine-dumps"


def window_out(size, pad, window, stride):
    """megdnn's output size of a convolution/pooling window: (i + 2p - f) // s + 1."""
    return (size + 2 * pad - window) // stride + 1


@pytest.mark.parametrize("size,pad,stride", [(32, 1, 1), (32, 0, 1), (33, 1, 2), (7, 3, 3)])
def test_convolution_output_shape_is_set_when_the_op_is_added(size, pad, stride):
    g = mgedump.Graph()
    x = g.input("data", (1, 3, size, size), "float32")
    w = g.param(np.zeros((16, 3, 3, 3), np.float32), "w")
    y = g.op("Convolution", x, w, pad_h=pad, pad_w=pad, stride_h=stride, stride_w=stride)
    out = window_out(size, pad, 3, stride)
    assert y.shape == (1, 16, out, out)
    assert y.dtype == "float32"


def test_shapes_follow_through_a_chain():
    g = mgedump.Graph()
    x = g.input("data", (2, 8, 10, 10), "float32")
    p = g.op("Pooling", x, mode="MAX", window_h=2, window_w=2, stride_h=2, stride_w=2)
    assert p.shape == (2, 8, window_out(10, 0, 2, 2), window_out(10, 0, 2, 2))
    flat = g.op("Reshape", p, np.array([2, 8 * 5 * 5], np.int32))
    assert flat.shape == (2, 200)
    m = g.op("MatrixMul", flat, g.param(np.zeros((200, 10), np.float32), "fc"))
    assert m.shape == (2, 10) and m.dtype == np.float32


def test_typecvt_output_has_the_target_dtype():
    g = mgedump.Graph()
    x = g.input("x", (2, 5), "float32")
    h = g.op("TypeCvt", x, dtype="Float16")
    assert h.dtype == "float16" and h.shape == (2, 5)
    q = g.op("TypeCvt", x, dtype={"dtype": "QuantizedS8", "scale": 0.5})
    assert q.dtype == {"dtype": "QuantizedS8", "scale": 0.5} and q.shape == (2, 5)


def test_a_shape_only_known_at_run_time_is_none():
    # CondTake's length depends on the values; its dtypes are still known.
    g = mgedump.Graph()
    x = g.input("x", (4,), "float32")
    val, idx = g.op("CondTake", x, x, mode="EQ")
    assert val.shape is None and idx.shape is None
    assert val.dtype == "float32" and idx.dtype == "int32"
    r = g.op("Elemwise", val, mode="RELU")
    assert r.shape is None and r.dtype == "float32"


def test_an_operator_megengine_would_refuse_raises_when_added():
    g = mgedump.Graph()
    x = g.input("x", (1, 3, 8, 8), "float32")
    w = g.param(np.zeros((4, 5, 3, 3), np.float32), "w")  # 5 input channels, x has 3
    with pytest.raises(mgedump.SerializationError, match=r"'bad' \(Convolution\)"):
        g.op("Convolution", x, w, name="bad")
    # The graph stays usable.
    assert g.op("Elemwise", x, mode="RELU").shape == (1, 3, 8, 8)


def real_graphs(variant):
    return [d for d in sorted(DUMPS_DIR.iterdir()) if (d / f"{variant}.mge").exists()] if DUMPS_DIR.exists() else []


@pytest.mark.skipif(not DUMPS_DIR.exists(), reason="no ../shared/realdata/megengine-dumps")
@pytest.mark.parametrize("variant", ["fbs", "v2"])
def test_loaded_outputs_are_typed_like_megengines_results(variant):
    """Each graph output's dtype and shape against the array MegEngine computed for it."""
    checked, wrong = 0, []
    for d in real_graphs(variant):
        results = sorted((d / "outputs" / variant).glob("*.npy"), key=lambda p: int(p.name.split("_")[0]))
        _, _, outputs, _ = mgedump.load_graph(str(d / f"{variant}.mge"))
        assert len(outputs) == len(results), d
        for var, path in zip(outputs, results):
            got = np.load(path)
            # Quantized dtypes have no numpy equivalent (a dict here; the .npy holds storage).
            if isinstance(var.dtype, np.dtype) and var.dtype != got.dtype:
                wrong.append(f"{d.name}/{path.name}: dtype {var.dtype}, MegEngine's {got.dtype}")
            if var.shape is not None and var.shape != got.shape:
                wrong.append(f"{d.name}/{path.name}: shape {var.shape}, MegEngine's {got.shape}")
            checked += var.shape is not None
    assert not wrong, "\n".join(wrong)
    assert checked > 250


@pytest.mark.skipif(not DUMPS_DIR.exists(), reason="no ../shared/realdata/megengine-dumps")
def test_fbs_v1_shapes_are_inferred_like_megengine_recorded_them():
    """FBS v1 files record no var shapes; FBS_V2 files record MegEngine's (MiddleTensor)."""
    compared, wrong = 0, []
    for d in real_graphs("fbs_names"):
        flatc = d / "v2_names.flatc.json"
        if not flatc.exists():
            continue
        recorded = {}
        for t in json.loads(flatc.read_text())["middle_tensors"]:
            recorded.setdefault(t.get("name"), []).append(t.get("shape"))
        graph, _, _, _ = mgedump.load_graph(str(d / "fbs_names.mge"))
        for op in graph.operators:
            for var in op.outputs:
                shapes = recorded.get(var.name, [])
                if len(shapes) != 1 or shapes[0] is None:
                    continue  # not recorded, or the name is not unique
                compared += 1
                if var.shape != tuple(shapes[0]):
                    wrong.append(f"{d.name}: {var.name} {var.shape}, MegEngine recorded {shapes[0]}")
    assert not wrong, "\n".join(wrong)
    assert compared > 1000
