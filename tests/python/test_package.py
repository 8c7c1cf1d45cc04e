"""The package as users get it, from pip or from build/python: its names and version,
MegEngine's signatures for every public function (inspect.signature), help() text,
and type stubs that say what runs. tools/package_test.sh runs this suite against the
installed wheel with MGEDUMP_EXPECT_INSTALLED set to the environment it is in."""
import ast
import importlib.metadata
import inspect
import os
import pathlib
import pydoc
import re
import sys
from typing import Dict, List, Union

import pytest

import mgedump
from testdata import DOCSTRING_PATH, SOURCE_DIR

PACKAGE_DIR = pathlib.Path(mgedump.__file__).parent
STUB = PACKAGE_DIR / "__init__.pyi"
FUNCTIONS = sorted(n for n in mgedump.__all__ if inspect.isfunction(getattr(mgedump, n)))
CLASSES = sorted(n for n in mgedump.__all__ if inspect.isclass(getattr(mgedump, n)))


def plain(signature):
    """A signature without annotations: names, kinds and defaults only."""
    return signature.replace(
        parameters=[p.replace(annotation=inspect.Parameter.empty) for p in signature.parameters.values()],
        return_annotation=inspect.Signature.empty)


def signature_of_def(node):
    """inspect.Signature of an ast function definition (defaults must be literals)."""
    P, a = inspect.Parameter, node.args
    params, positional = [], a.posonlyargs + a.args
    first_default = len(positional) - len(a.defaults)
    for i, arg in enumerate(positional):
        kind = P.POSITIONAL_ONLY if i < len(a.posonlyargs) else P.POSITIONAL_OR_KEYWORD
        default = ast.literal_eval(a.defaults[i - first_default]) if i >= first_default else P.empty
        params.append(P(arg.arg, kind, default=default))
    if a.vararg:
        params.append(P(a.vararg.arg, P.VAR_POSITIONAL))
    params += [P(arg.arg, P.KEYWORD_ONLY, default=P.empty if d is None else ast.literal_eval(d))
               for arg, d in zip(a.kwonlyargs, a.kw_defaults)]
    if a.kwarg:
        params.append(P(a.kwarg.arg, P.VAR_KEYWORD))
    return inspect.Signature(params)


def seed_signature():
    """The `(...)` block at the top of MegEngine's dump_graph docstring file."""
    text = DOCSTRING_PATH.read_text()
    block = text[text.index("\n(\n") + 1:text.index("\n)\n") + 2]
    return signature_of_def(ast.parse(f"def dump_graph{block}: pass").body[0])


def test_dump_graph_signature_is_exactly_megengines():
    ours = inspect.signature(mgedump.dump_graph)
    assert plain(ours) == seed_signature()
    assert str(plain(ours)).startswith("(output_vars, *, keep_var_name=1, keep_opr_name=False")
    assert ours.parameters["output_vars"].annotation == Union[Dict[str, mgedump.VarNode], List[mgedump.VarNode]]
    assert ours.parameters["compat_older_version"].annotation is str
    assert ours.return_annotation.__args__ == (bytes, mgedump.CompGraphDumpResult)


def test_dump_with_testcases_takes_dump_graphs_options_after_its_own():
    ours = inspect.signature(mgedump.dump_with_testcases).parameters
    seed = seed_signature().parameters
    assert list(ours)[:2] == ["output_vars", "input_data"]
    assert ours["input_data"].kind is inspect.Parameter.KEYWORD_ONLY
    assert ours["input_data"].default is inspect.Parameter.empty
    assert [ours[name].replace(annotation=inspect.Parameter.empty) for name in list(seed)[1:]] == list(seed.values())[1:]


# What the README and the docstrings document; load_graph's is MegEngine's load_graph(fpath).
DOCUMENTED = {
    "dump_many": "(jobs, threads=None)",
    "load_graph": "(fpath)",
    "load_graphs": "(fpath)",
    "import_onnx": "(path, *, params_as_shared=False, fold_batch_norm=True, input_shapes=None)",
    "run": "(model, inputs=None, *, random_seed=None, threads=0)",
    "load_testcases": "(path_or_bytes)",
}


@pytest.mark.parametrize("name", FUNCTIONS)
def test_every_public_function_has_a_signature_and_a_docstring(name):
    function = getattr(mgedump, name)
    signature = inspect.signature(function)  # pybind11's functions raise ValueError here
    assert signature.parameters
    assert function.__module__ == "mgedump"
    assert function.__doc__ and not function.__doc__.startswith(name + "(")
    if name in DOCUMENTED:
        assert str(plain(signature)) == DOCUMENTED[name]


def test_every_public_function_is_documented_or_megengines():
    assert set(FUNCTIONS) == set(DOCUMENTED) | {"dump_graph", "dump_with_testcases"}


def test_methods_and_constructors_have_their_signatures():
    assert str(inspect.signature(mgedump.Graph)) == "(comp_node='xpux:0')"
    assert str(inspect.signature(mgedump.Graph.input)) == "(self, name, shape, dtype='float32')"
    assert str(inspect.signature(mgedump.Graph().const)) == "(value, name=None, dtype=None)"
    assert str(inspect.signature(mgedump.Graph.param)) == "(self, value, name, dtype=None)"
    assert str(inspect.signature(mgedump.Graph.op)) == (
        "(self, type, *inputs, name=None, priority=0, comp_node=None, output_dtype=None, outputs=None, **params)")
    assert str(inspect.signature(mgedump.Metadata)) == (
        "(*, is_valid=False, graph_modified=False, user_info=b'', optimize_options=0)")


def test_all_names_every_public_name_of_the_core_and_nothing_missing():
    core = {n for n in dir(mgedump._core) if not n.startswith("_")}
    assert core <= set(mgedump.__all__), core - set(mgedump.__all__)
    assert all(hasattr(mgedump, n) for n in mgedump.__all__)
    assert {n for n in dir(mgedump) if not n.startswith("_")} == set(mgedump.__all__)


def test_classes_and_functions_say_they_are_mgedumps():
    for name in CLASSES:
        assert getattr(mgedump, name).__module__ == "mgedump"
    assert repr(mgedump.Graph) == "<class 'mgedump.Graph'>"


def test_version_is_the_projects():
    m = re.search(r"project\(mgedump VERSION ([0-9.]+)", (SOURCE_DIR / "CMakeLists.txt").read_text())
    assert mgedump.__version__ == m.group(1)


def test_help_shows_signatures_and_docstrings_not_pybind11_internals():
    text = pydoc.render_doc(mgedump, renderer=pydoc.plaintext)
    assert "dump_graph(output_vars: Union[Dict[str, mgedump.Var], List[mgedump.Var]], *, keep_var_name: int = 1" in text
    assert "run(model, inputs=None, *, random_seed=None, threads=0)" in text
    assert "input(self, name, shape, dtype='float32')" in text
    assert "PyCapsule" not in text and "mgedump._core." not in text


def test_the_package_is_typed_and_its_stubs_match_what_runs():
    assert (PACKAGE_DIR / "py.typed").exists()
    tree = ast.parse(STUB.read_text())
    stubbed = {}
    for node in tree.body:
        if isinstance(node, ast.FunctionDef):
            stubbed[node.name] = (getattr(mgedump, node.name), signature_of_def(node))
        elif isinstance(node, ast.ClassDef) and hasattr(mgedump, node.name):
            cls = getattr(mgedump, node.name)
            for item in node.body:
                decorators = [d.id for d in getattr(item, "decorator_list", []) if isinstance(d, ast.Name)]
                if isinstance(item, ast.FunctionDef) and "property" not in decorators:
                    stubbed[f"{node.name}.{item.name}"] = (getattr(cls, item.name), signature_of_def(item))
    for name in FUNCTIONS:
        assert name in stubbed, f"{name} has no stub"
    for name, (runtime, stub) in stubbed.items():
        if isinstance(runtime, type):  # NamedTuple classes
            continue
        assert plain(inspect.signature(runtime)) == stub, name
    names = {n.name for n in tree.body if isinstance(n, (ast.FunctionDef, ast.ClassDef))}
    names |= {t.id for n in tree.body if isinstance(n, ast.Assign) for t in n.targets if isinstance(t, ast.Name)}
    assert set(mgedump.__all__) <= names, set(mgedump.__all__) - names


@pytest.mark.skipif(not os.environ.get("MGEDUMP_EXPECT_INSTALLED"), reason="not run against an installed package")
def test_the_installed_package_is_what_is_imported():
    prefix = pathlib.Path(os.environ["MGEDUMP_EXPECT_INSTALLED"]).resolve()
    assert pathlib.Path(sys.prefix).resolve() == prefix
    assert prefix in PACKAGE_DIR.resolve().parents
    dist = importlib.metadata.distribution("mgedump")
    assert dist.version == mgedump.__version__
    files = {str(f) for f in dist.files}
    assert {"mgedump/__init__.py", "mgedump/__init__.pyi", "mgedump/py.typed"} <= files
    assert any(re.fullmatch(r"mgedump/_core\..*\.so", f) for f in files)
