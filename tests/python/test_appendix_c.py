"""The spec's worked example (Appendix C), built with the Python API, comes out byte for byte."""
import numpy as np
import pytest

import mgedump
from testdata import spec_hex_dump, xxh64

V1_HASH_SEED = 0x4B4E74B36B5D11
V1_HASH_OFFSET = 0x54  # Graph.hash in the C.1 dump
ORIGINAL_ID_OFFSET = 0x6C  # the output's original_id in C.1 and C.2
C3_ORIGINAL_ID_OFFSET = 0x64  # ... and in C.3 (its MiddleTensor shapes move it)
C1, C2, C3 = "### C.1 FBS v1", "### C.2 FBS_V2", "### C.3 FBS_V2"


def appendix_c_graph():
    g = mgedump.Graph("xpux:0")
    data = g.input("data", [1, 3], np.float32)
    c = g.const(np.array([1, 2, 3], dtype=np.float32), name="const")
    out = g.op("Elemwise", data, c, mode="ADD")
    return g, out


def with_original_id(expected, original_id, offset=ORIGINAL_ID_OFFSET):
    # The example's output original_id is 7 ("arbitrary"); a graph built here numbers
    # the output var by its index, 2. Everything else must match as is.
    assert int.from_bytes(expected[offset:offset + 4], "little") == 7
    patched = bytearray(expected)
    patched[offset:offset + 4] = original_id.to_bytes(4, "little")
    return patched


def test_xxh64_written_from_the_spec_reproduces_its_check_values():
    assert xxh64(b"", 0) == 0xEF46DB3751D8E999
    assert xxh64(b"abc", 0) == 0x44BC2CF5AD770999
    assert xxh64(b"Host2DeviceCopy\0", 20160701) == 2436615116837392937
    expected = spec_hex_dump("### C.1 FBS v1")
    assert xxh64(expected[100:], V1_HASH_SEED) == 774888699483002881


def test_fbs_v1_dump_matches_appendix_c1():
    g, out = appendix_c_graph()
    data, result = mgedump.dump_graph({"out": out}, dump_format="FBS")
    expected = with_original_id(spec_hex_dump("### C.1 FBS v1"), 2)
    content_hash = xxh64(bytes(expected[100:]), V1_HASH_SEED)
    expected[V1_HASH_OFFSET:V1_HASH_OFFSET + 8] = content_hash.to_bytes(8, "little")
    assert len(data) == 492
    assert data == bytes(expected)
    assert result == mgedump.CompGraphDumpResult(3, 492, 12, content_hash, ["data"], ["out"], [])


def test_fbs_v2_dump_matches_appendix_c3():
    # Every var's shape is static, so the MiddleTensors carry their shapes: C.3 (760
    # bytes), as MegEngine writes this graph; C.2 (712) is the shape-less form.
    g, out = appendix_c_graph()
    out.name = "out"
    data, result = mgedump.dump_graph([out])
    expected = spec_hex_dump(C3)
    assert len(expected) == 760
    assert data == bytes(with_original_id(expected, 2, C3_ORIGINAL_ID_OFFSET))
    assert result == mgedump.CompGraphDumpResult(3, 760, 12, 0, ["data"], ["out"], [])


# (read, format, expected): C.1 dumps back to itself; C.2 has no MiddleTensor shapes,
# and dumping it again infers them and gives C.3, as MegEngine's own load-and-dump
# does; C.3 dumps back to itself; C.2 and C.3 to FBS v1 (no middle tensors) give C.1.
@pytest.mark.parametrize("heading,fmt,want", [(C1, "FBS", C1), (C2, "FBS_V2", C3), (C3, "FBS_V2", C3),
                                              (C2, "FBS", C1), (C3, "FBS", C1)])
def test_appendix_c_bytes_load_and_dump_back(heading, fmt, want):
    graph, by_name, outputs, metadata = mgedump.load_graph(spec_hex_dump(heading))
    assert list(by_name) == ["out"]
    assert [o.type for o in graph.operators] == ["Host2DeviceCopy", "ImmutableTensor", "Elemwise"]
    assert outputs[0].owner.params["mode"] == "ADD"
    assert outputs[0].owner.inputs[1].value.tolist() == [1.0, 2.0, 3.0]
    assert metadata == mgedump.Metadata()
    data, _ = mgedump.dump_graph(outputs, dump_format=fmt)
    assert data == spec_hex_dump(want)
