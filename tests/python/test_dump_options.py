"""Every dump_graph parameter, observed in what load_graph reads back (spec §6.8, §6.9, §9)."""
import pickle

import numpy as np
import pytest

import mgedump

FORMATS = ["FBS", "FBS_V2"]


def dump_and_load(out, **options):
    data, result = mgedump.dump_graph(out, **options)
    return mgedump.load_graph(data), result, data


def op_by_type(graph, type_name):
    return [o for o in graph.operators if o.type == type_name]


@pytest.mark.parametrize("fmt", FORMATS)
def test_keep_var_name_0_keeps_no_names_and_reports_unnamed_outputs(small_graph, fmt):
    _, out = small_graph
    loaded, result, _ = dump_and_load([out], keep_var_name=0, dump_format=fmt)
    assert result.outputs == ["unnamed0"]
    names = [v.name for o in loaded.graph.operators for v in o.outputs if o.type == "Elemwise"]
    assert "out" not in names and "hidden" not in names


@pytest.mark.parametrize("fmt", FORMATS)
def test_keep_var_name_1_keeps_the_output_name(small_graph, fmt):
    _, out = small_graph
    loaded, result, _ = dump_and_load([out], keep_var_name=1, dump_format=fmt)
    assert result.outputs == ["out"]
    assert list(loaded.output_vars_dict) == ["out"]
    hidden = loaded.output_vars_list[0].owner.inputs[0]
    # v1 names only outputs of operators that produce a requested output; FBS_V2 treats 1 like 2.
    assert (hidden.name == "hidden") == (fmt == "FBS_V2")


@pytest.mark.parametrize("fmt", FORMATS)
def test_keep_var_name_2_keeps_internal_names(small_graph, fmt):
    _, out = small_graph
    loaded, _, _ = dump_and_load([out], keep_var_name=2, dump_format=fmt)
    assert loaded.output_vars_list[0].owner.inputs[0].name == "hidden"


@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.parametrize("keep", [False, True])
def test_keep_opr_name_writes_operator_names(small_graph, fmt, keep):
    _, out = small_graph
    loaded, _, _ = dump_and_load([out], keep_opr_name=keep, dump_format=fmt, no_change_graph=True)
    names = [o.name for o in loaded.graph.operators]
    assert ("square_op" in names) == keep
    assert ("hidden" in names) == keep


@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.parametrize("keep", [False, True])
def test_keep_param_name_keeps_param_names_and_lists_them(small_graph, fmt, keep):
    _, out = small_graph
    loaded, result, _ = dump_and_load([out], keep_param_name=keep, dump_format=fmt)
    assert result.params == (["w"] if keep else [])
    (holder,) = op_by_type(loaded.graph, "SharedDeviceTensor")
    assert holder.tensor_names == (["w"] if keep else [None])
    assert holder.outputs[0].value.tolist() == [1.0, 2.0, 3.0]


@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.parametrize("keep", [False, True])
def test_keep_opr_priority_writes_priorities(small_graph, fmt, keep):
    _, out = small_graph
    loaded, _, _ = dump_and_load([out], keep_opr_priority=keep, dump_format=fmt, no_change_graph=True)
    assert loaded.output_vars_list[0].owner.priority == (5 if keep else 0)


@pytest.mark.parametrize("fmt", FORMATS)
def test_no_change_graph_false_rewrites_square_as_pow_of_two(small_graph, fmt):
    # Spec §9.1: Elemwise SQUARE → POW(x, 2.0) in both formats.
    _, out = small_graph
    loaded, _, _ = dump_and_load([out], dump_format=fmt)
    last = loaded.output_vars_list[0].owner
    assert last.params["mode"] == "POW"
    assert last.inputs[1].owner.type == "ImmutableTensor"
    assert last.inputs[1].value.tolist() == [2.0]


@pytest.mark.parametrize("fmt", FORMATS)
def test_no_change_graph_true_dumps_the_graph_as_built(small_graph, fmt):
    _, out = small_graph
    loaded, result, _ = dump_and_load([out], no_change_graph=True, dump_format=fmt)
    assert [o.type for o in loaded.graph.operators] == ["Host2DeviceCopy", "SharedDeviceTensor", "Elemwise", "Elemwise"]
    assert loaded.output_vars_list[0].owner.params["mode"] == "SQUARE"
    assert result.nr_opr == 4


def test_dump_format_none_is_fbs_v2_and_fbs_is_v1(small_graph):
    _, out = small_graph
    default, _ = mgedump.dump_graph([out])
    v2, _ = mgedump.dump_graph([out], dump_format="FBS_V2")
    v1, _ = mgedump.dump_graph([out], dump_format="FBS")
    assert default == v2
    assert v2[8:12] == b"mgv2"  # spec §2.2: size prefix, root offset, identifier
    assert v1[:4] == b"MGBC"  # spec §2.1
    assert mgedump.load_graph(v1).graph.format == "FBS (MGBC)"
    assert mgedump.load_graph(v2).graph.format == "FBS_V2"


def test_model_version_selects_the_fbs_v2_model_version(small_graph):
    _, out = small_graph
    v1_model, _ = mgedump.dump_graph([out], model_version=1)
    v2_model, _ = mgedump.dump_graph([out], model_version=2)
    assert mgedump.load_graph(v1_model).graph.model_version == 1
    assert mgedump.load_graph(v2_model).graph.model_version == 2


def test_model_version_is_ignored_for_fbs(small_graph):
    _, out = small_graph
    a, _ = mgedump.dump_graph([out], dump_format="FBS", model_version=1)
    b, _ = mgedump.dump_graph([out], dump_format="FBS", model_version=2)
    assert a == b


@pytest.mark.parametrize("version", ["8.14", " 8.14 "])
def test_compat_older_version_8_14_writes_an_mgbs_file(small_graph, version):
    # Spec §9.3: MGBS magic, no feature bits (16-byte header), unversioned ids.
    _, out = small_graph
    plain, _ = mgedump.dump_graph([out], dump_format="FBS")
    old, result = mgedump.dump_graph([out], dump_format="FBS", compat_older_version=version)
    assert old[:4] == b"MGBS"
    assert len(old) == len(plain) - 8
    loaded = mgedump.load_graph(old)
    assert loaded.graph.format == "FBS (MGBS)"
    assert loaded.graph.content_hash == result.content_hash


@pytest.mark.parametrize("fmt", FORMATS)
def test_metadata_none_writes_megengines_default_metadata(small_graph, fmt):
    _, out = small_graph
    loaded, _, _ = dump_and_load([out], dump_format=fmt)
    assert loaded.metadata == mgedump.Metadata(is_valid=False, graph_modified=False, user_info=b"", optimize_options=0)


@pytest.mark.parametrize("fmt", FORMATS)
def test_metadata_dict_round_trips(small_graph, fmt):
    _, out = small_graph
    user_info = pickle.dumps({"arbitrary": [1, 2, 3]})
    metadata = {"is_valid": True, "graph_modified": True, "user_info": user_info, "optimize_options": 64}
    loaded, _, _ = dump_and_load([out], metadata=metadata, dump_format=fmt)
    m = loaded.metadata
    assert (m.is_valid, m.graph_modified, m.user_info, m.optimize_options) == (True, True, user_info, 64)
    assert pickle.loads(m.user_info) == {"arbitrary": [1, 2, 3]}
    assert m.optimized_for_inference


@pytest.mark.parametrize("fmt", FORMATS)
def test_metadata_object_from_a_load_dumps_back_equal(small_graph, fmt):
    _, out = small_graph
    md = mgedump.Metadata(is_valid=True, user_info="text is utf-8", optimize_options=(3 << 32) | 1)
    first, _, _ = dump_and_load([out], metadata=md, dump_format=fmt)
    second, _, _ = dump_and_load(first.output_vars_list, metadata=first.metadata, dump_format=fmt)
    assert first.metadata == md == second.metadata
    assert md.user_info == b"text is utf-8"


@pytest.mark.parametrize("kwargs,message", [
    ({"keep_var_name": 3}, "keep_var_name must be 0, 1 or 2, got 3"),
    ({"model_version": 3}, "model_version must be 1 or 2 for FBS_V2, got 3"),
    ({"model_version": -1}, "model_version"),
    ({"dump_format": "FBS_V3"}, 'dump_format must be None, "FBS" or "FBS_V2", got "FBS_V3"'),
    ({"compat_older_version": "8.15", "dump_format": "FBS"}, 'only supports "8.14", got "8.15"'),
    ({"compat_older_version": "8.14"}, "needs dump_format FBS"),
    ({"compat_older_version": "8.14", "dump_format": "FBS", "no_change_graph": True}, "needs no_change_graph=false"),
    ({"metadata": {"is_vald": True}}, "unknown metadata field 'is_vald'"),
    ({"metadata": {"optimize_options": -1}}, "optimize_options must fit in 64 unsigned bits"),
    ({"metadata": 5}, "metadata must be None, a mgedump.Metadata or a dict"),
    ({"strip_info_file": 5}, "strip_info_file must be a path or a writable file object"),
])
def test_invalid_options_raise_value_error_with_the_reason(small_graph, kwargs, message):
    _, out = small_graph
    with pytest.raises(ValueError) as e:
        mgedump.dump_graph([out], **kwargs)
    assert message in str(e.value)


def test_options_are_keyword_only(small_graph):
    _, out = small_graph
    with pytest.raises(TypeError):
        mgedump.dump_graph([out], 2)


def test_dict_output_vars_rename_in_dict_order(small_graph):
    g, out = small_graph
    hidden = out.owner.inputs[0]
    loaded, result, _ = dump_and_load({"second": out, "first": hidden})
    assert result.outputs == ["second", "first"]
    assert list(loaded.output_vars_dict) == ["second", "first"]
    assert [v.name for v in loaded.output_vars_list] == ["second", "first"]
    assert (out.name, hidden.name) == ("second", "first")  # renamed in place, as MegEngine's var.name = key


def test_list_output_vars_keep_their_names_and_order(small_graph):
    _, out = small_graph
    hidden = out.owner.inputs[0]
    _, result, _ = dump_and_load([hidden, out], keep_var_name=2)
    assert result.outputs == ["hidden", "out"]
    _, single, _ = dump_and_load(out)
    assert single.outputs == ["out"]


def test_one_var_under_two_names_is_rejected(small_graph):
    _, out = small_graph
    with pytest.raises(mgedump.SerializationError, match="two output names, 'a' and 'b'"):
        mgedump.dump_graph({"a": out, "b": out})
    assert out.name == "out"  # a failed call renames nothing


def test_result_counts_match_what_was_written(small_graph):
    _, out = small_graph
    data, result = mgedump.dump_graph([out], dump_format="FBS", no_change_graph=True, keep_param_name=True)
    assert result.tot_bytes == len(data)
    assert result.tensor_value_bytes == 12  # the float32 [3] param; the input has no value
    assert result.nr_opr == 4
    assert result.inputs == ["data"]
    assert result.params == ["w"]
    assert result.content_hash == mgedump.load_graph(data).graph.content_hash != 0


def test_non_finite_param_values_warn_as_megengine_does_and_still_dump():
    g = mgedump.Graph()
    v = g.param(np.array([1.0, np.nan, np.inf], dtype=np.float32), "bad")
    with pytest.warns(RuntimeWarning, match="2 non-finite float32 value"):
        data, result = mgedump.dump_graph([v])
    assert result.tensor_value_bytes == 12 and len(data) == result.tot_bytes
