"""dump_graph's signature, defaults and result type are MegEngine's (the docstring and spec §7)."""
import ast
import inspect
import re

import mgedump
from testdata import DOCSTRING_PATH, spec_text


def megengine_signature():
    """(name, default) pairs from the `def dump_graph(` block of the MegEngine docstring file."""
    text = DOCSTRING_PATH.read_text()
    block = text[text.index("def dump_graph("):text.index(") -> Tuple[bytes, CompGraphDumpResult]")]
    params = []
    for line in block.splitlines():
        m = re.match(r"^\| \d+ \|\s+(\w+)(?::[^=|]*)?(?:=\s*([^,|]+))?,", line)
        if m:
            default = m.group(2)
            params.append((m.group(1), ast.literal_eval(default.strip()) if default else "<required>"))
    return params


def our_signature(function=mgedump.dump_graph):
    params = []
    for p in inspect.signature(function).parameters.values():
        params.append((p.name, "<required>" if p.default is inspect.Parameter.empty else p.default))
    return params


def test_dump_graph_has_megengines_parameters_in_order_with_its_defaults():
    expected = megengine_signature()
    assert [name for name, _ in expected][:2] == ["output_vars", "keep_var_name"]
    assert len(expected) == 12
    assert our_signature() == expected


def test_the_cores_dump_graph_has_the_same_defaults_which_dump_many_jobs_get():
    core = mgedump._signatures.public_function(mgedump._core.dump_graph)  # the signature pybind11 writes
    assert our_signature(core) == megengine_signature()


def test_every_parameter_after_output_vars_is_keyword_only():
    kinds = [p.kind for p in inspect.signature(mgedump.dump_graph).parameters.values()]
    assert kinds == [inspect.Parameter.POSITIONAL_OR_KEYWORD] + [inspect.Parameter.KEYWORD_ONLY] * 11


def test_dump_result_is_a_namedtuple_with_the_spec_fields_in_order():
    m = re.search(r"Python `CompGraphDumpResult\(([^)]*)\)`", spec_text())
    fields = tuple(f.strip() for f in m.group(1).replace("\n", " ").split(","))
    assert mgedump.CompGraphDumpResult._fields == fields
    assert issubclass(mgedump.CompGraphDumpResult, tuple)


def test_load_result_unpacks_as_megengines_load_graph_four_values():
    assert mgedump.CompGraphLoadResult._fields == ("graph", "output_vars_dict", "output_vars_list", "metadata")


def test_serialization_error_is_a_runtime_error():
    assert issubclass(mgedump.SerializationError, RuntimeError)
