"""load_graph on files MegEngine wrote (checked against flatc's decoding of them),
on our own files, from every kind of source; malformed files raise SerializationError."""
import io
import json

import numpy as np
import pytest

import mgedump
from testdata import MALFORMED_DIR, REALDATA_DIR

REAL_FILES = sorted(p.stem for p in REALDATA_DIR.glob("*.mge"))


def numbered_owner_index(graph):
    """Operator index of the producer of each numbered var (its id in the file)."""
    owners = []
    for i, op in enumerate(graph.operators):
        owners += [i] * len(op.outputs)
    return owners


@pytest.mark.parametrize("stem", REAL_FILES)
def test_real_megengine_file_loads_as_flatc_decodes_it(stem):
    flatc = json.loads((REALDATA_DIR / f"{stem}.flatc.json").read_text())
    graph, by_name, outputs, metadata = mgedump.load_graph(str(REALDATA_DIR / f"{stem}.mge"))
    assert graph.format == "FBS (MGBS)"
    assert graph.mgb_version == flatc["mgb_version"]
    assert graph.content_hash == flatc["hash"]
    assert len(graph.operators) == len(flatc["oprs"])
    owner = numbered_owner_index(graph)
    for op, ref in zip(graph.operators, flatc["oprs"]):
        assert [owner[graph.operators.index(v.owner)] for v in op.inputs] == [owner[i] for i in ref.get("inputs", [])]
        sizes = [t.get("data_size") for t in ref.get("tensors", [])]
        values = [v.value for v in op.outputs[:len(sizes)]]
        assert [None if v is None else v.nbytes for v in values] == sizes
        for field, value in ref.get("param", {}).items():
            mine = op.params[field]
            assert mine == (value.rstrip("_") if isinstance(value, str) else value)
    assert len(outputs) == len(flatc["output_vars_idx"])
    assert list(by_name) == [v.name for v in outputs]
    assert metadata == mgedump.Metadata()  # files before MegEngine 1.5 carry none


def test_real_file_output_names_come_from_the_file():
    _, by_name, _, _ = mgedump.load_graph(str(REALDATA_DIR / "chenls_xornet_deploy.mge"))
    assert list(by_name) == ["TRUE_DIV(EXP,Reduce)[152]"]


@pytest.mark.parametrize("fmt", ["FBS", "FBS_V2"])
def test_real_file_dumps_and_loads_back_with_the_same_operators(fmt):
    graph, _, outputs, _ = mgedump.load_graph(str(REALDATA_DIR / "chenls_xornet_deploy.mge"))
    data, result = mgedump.dump_graph(outputs, dump_format=fmt, keep_var_name=2)
    again = mgedump.load_graph(data)
    assert [o.type for o in again.graph.operators] == [o.type for o in graph.operators]
    assert [o.params for o in again.graph.operators] == [o.params for o in graph.operators]
    assert result.nr_opr == 18


def test_every_source_kind_loads_the_same_graph(tmp_path):
    path = REALDATA_DIR / "mgeconvert_convolution-backward-filter.mge"
    raw = path.read_bytes()
    sources = [str(path), path, raw, bytearray(raw), memoryview(raw), io.BytesIO(raw)]
    loaded = [mgedump.load_graph(s) for s in sources]
    types = [[o.type for o in r.graph.operators] for r in loaded]
    assert all(t == types[0] for t in types) and len(types[0]) == 11
    assert all(r.graph.content_hash == loaded[0].graph.content_hash for r in loaded)


def test_loaded_values_view_the_callers_bytes():
    g = mgedump.Graph()
    v = g.param(np.arange(4, dtype=np.float32), "p")
    data, _ = mgedump.dump_graph([v], dump_format="FBS_V2")
    buf = bytearray(data)
    value = mgedump.load_graph(buf).output_vars_list[0].value
    assert not value.flags.writeable
    with pytest.raises(BufferError):
        buf.extend(b"x")  # the loaded graph pins the buffer: no copy was taken
    assert value.tolist() == [0, 1, 2, 3]


@pytest.mark.parametrize("name", sorted(p.name for p in MALFORMED_DIR.glob("*.mge")))
def test_malformed_file_raises_serialization_error(name):
    with pytest.raises(mgedump.SerializationError) as e:
        mgedump.load_graph(str(MALFORMED_DIR / name))
    assert str(e.value)


def test_truncated_bytes_raise_serialization_error_with_the_reason():
    raw = (REALDATA_DIR / "chenls_xornet_deploy.mge").read_bytes()
    with pytest.raises(mgedump.SerializationError, match=r"\S"):
        mgedump.load_graph(raw[:len(raw) // 2])


def test_missing_file_raises_serialization_error_naming_it(tmp_path):
    missing = tmp_path / "missing.mge"
    with pytest.raises(mgedump.SerializationError, match="missing.mge"):
        mgedump.load_graph(str(missing))


def test_wrong_source_type_is_a_type_error():
    with pytest.raises(TypeError, match="path, a bytes-like object or a binary file"):
        mgedump.load_graph(42)


def test_load_graphs_reads_every_graph_appended_to_a_file(tmp_path):
    g = mgedump.Graph()
    x = g.input("x", (2,))
    first, _ = mgedump.dump_graph({"relu": g.op("Elemwise", x, mode="RELU")}, dump_format="FBS")
    second, _ = mgedump.dump_graph({"neg": g.op("Elemwise", x, mode="NEGATE")})
    path = tmp_path / "two.mge"
    path.write_bytes(first + second)
    loaded = mgedump.load_graphs(str(path))
    assert [list(r.output_vars_dict) for r in loaded] == [["relu"], ["neg"]]
    assert [r.graph.format for r in loaded] == ["FBS (MGBC)", "FBS_V2"]
    assert [list(r.output_vars_dict) for r in mgedump.load_graphs(first + second)] == [["relu"], ["neg"]]
    assert list(mgedump.load_graph(str(path)).output_vars_dict) == ["relu"]


def test_values_outlive_the_graph_and_the_callers_bytes():
    g = mgedump.Graph()
    v = g.param(np.arange(3, dtype=np.int32), "p")
    data, _ = mgedump.dump_graph([v])
    value = mgedump.load_graph(bytes(data)).output_vars_list[0].value  # graph, result and bytes all dropped
    built = v.value
    del g, v
    assert value.tolist() == [0, 1, 2] and built.tolist() == [0, 1, 2]
