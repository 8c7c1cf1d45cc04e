"""strip_info_file as a path or a file object, fresh or with append_json (spec §8)."""
import io
import json

import numpy as np
import pytest

import mgedump


def add_graph():
    g = mgedump.Graph()
    x = g.input("x", (2,), "float32")
    return g.op("Elemwise", x, g.const(np.ones(2, np.float32)), mode="ADD", name="y")


def relu_graph():
    g = mgedump.Graph()
    x = g.input("x", (2,), "int32")
    return g.op("Elemwise", x, mode="RELU", name="y")


# Spec §8: typeinfo names of the reachable operators, dtypes of their outputs, Elemwise modes.
ADD_INFO = {"opr_types": ["Elemwise", "Host2DeviceCopy", "ImmutableTensor"], "dtypes": ["Float32"],
            "elemwise_modes": ["ADD"]}


def as_python_json_dump(obj):
    return json.dumps(obj)  # json.dump's defaults: ", " and ": ", no indentation


@pytest.mark.parametrize("fmt", ["FBS", "FBS_V2"])
def test_path_gets_the_strip_info_and_the_content_hash(tmp_path, fmt):
    path = tmp_path / "strip.json"
    _, result = mgedump.dump_graph([add_graph()], strip_info_file=str(path), dump_format=fmt)
    text = path.read_text()
    assert json.loads(text) == dict(ADD_INFO, hash=result.content_hash)
    assert text == as_python_json_dump(json.loads(text))
    assert (result.content_hash != 0) == (fmt == "FBS")


def test_pathlike_is_a_path(tmp_path):
    path = tmp_path / "strip.json"
    _, result = mgedump.dump_graph([add_graph()], strip_info_file=path)
    assert json.loads(path.read_text())["hash"] == result.content_hash


def test_text_file_object_is_rewritten_from_its_start(tmp_path):
    path = tmp_path / "strip.json"
    path.write_text("x" * 1000)
    with open(path, "r+") as f:
        mgedump.dump_graph([add_graph()], strip_info_file=f)
    assert json.loads(path.read_text()) == dict(ADD_INFO, hash=0)


def test_string_and_bytes_buffers_work_as_file_objects():
    text, binary = io.StringIO(), io.BytesIO()
    mgedump.dump_graph([add_graph()], strip_info_file=text)
    mgedump.dump_graph([add_graph()], strip_info_file=binary)
    assert json.loads(text.getvalue()) == json.loads(binary.getvalue().decode()) == dict(ADD_INFO, hash=0)


def expected_after_append(first, second_hash):
    # Existing keys, existing order; new values appended at the end; hash replaced.
    merged = {k: list(v) if isinstance(v, list) else v for k, v in first.items()}
    merged["dtypes"].append("Int32")
    merged["elemwise_modes"].append("RELU")
    merged["hash"] = second_hash
    return merged


def test_append_json_merges_into_an_existing_path(tmp_path):
    path = tmp_path / "strip.json"
    mgedump.dump_graph([add_graph()], strip_info_file=str(path))
    first = json.loads(path.read_text())
    _, result = mgedump.dump_graph([relu_graph()], strip_info_file=str(path), append_json=True, dump_format="FBS")
    assert json.loads(path.read_text()) == expected_after_append(first, result.content_hash)


def test_append_json_merges_into_a_file_object():
    f = io.StringIO()
    mgedump.dump_graph([add_graph()], strip_info_file=f)
    first = json.loads(f.getvalue())
    f.seek(0)
    _, result = mgedump.dump_graph([relu_graph()], strip_info_file=f, append_json=True, dump_format="FBS")
    assert json.loads(f.getvalue()) == expected_after_append(first, result.content_hash)


def test_append_json_keeps_only_the_keys_already_there(tmp_path):
    path = tmp_path / "strip.json"
    path.write_text('{"elemwise_modes": ["MUL"], "hash": 1}')
    mgedump.dump_graph([add_graph()], strip_info_file=str(path), append_json=True)
    assert path.read_text() == '{"elemwise_modes": ["MUL", "ADD"], "hash": 0}'


def test_append_json_on_an_empty_file_writes_a_fresh_one(tmp_path):
    path = tmp_path / "strip.json"
    path.write_text("")
    mgedump.dump_graph([add_graph()], strip_info_file=str(path), append_json=True)
    assert json.loads(path.read_text()) == dict(ADD_INFO, hash=0)


def test_without_append_json_an_existing_file_is_replaced(tmp_path):
    path = tmp_path / "strip.json"
    mgedump.dump_graph([relu_graph()], strip_info_file=str(path))
    mgedump.dump_graph([add_graph()], strip_info_file=str(path))
    assert json.loads(path.read_text()) == dict(ADD_INFO, hash=0)


def test_append_json_without_strip_info_file_is_refused_as_by_the_command_line():
    # MegEngine ignores it; a flag that cannot do anything is a mistake worth saying (mgedump dump --append-json).
    with pytest.raises(ValueError, match="append_json needs strip_info_file"):
        mgedump.dump_graph([add_graph()], append_json=True)


def test_existing_file_that_is_not_json_is_a_serialization_error(tmp_path):
    path = tmp_path / "strip.json"
    path.write_text("[1, 2]")
    with pytest.raises(mgedump.SerializationError, match="not a JSON object|object"):
        mgedump.dump_graph([add_graph()], strip_info_file=str(path), append_json=True)


def test_append_json_to_a_missing_path_creates_it(tmp_path):
    path = tmp_path / "new.json"  # MegEngine creates it (os.mknod) and writes it fresh
    mgedump.dump_graph([add_graph()], strip_info_file=str(path), append_json=True)
    assert json.loads(path.read_text()) == dict(ADD_INFO, hash=0)
