"""Serialize computing graphs into MegEngine's model formats, FBS (v1) and FBS_V2 (the
.mge files MegEngine and MegEngine Lite load), and read them back.

    import numpy as np, mgedump

    g = mgedump.Graph()
    x = g.input("data", (1, 3, 224, 224), "float32")
    w = g.param(np.zeros((8, 3, 3, 3), np.float32), "conv1.w")
    y = g.op("Elemwise", g.op("Convolution", x, w, pad_h=1, pad_w=1), mode="RELU")
    data, info = mgedump.dump_graph({"out": y}, keep_param_name=True)

dump_graph and load_graph have MegEngine's signatures, defaults and results;
dump_many runs many dumps on every core; run executes a model with mgedump's
reference evaluator; import_onnx reads ONNX models. Bad options raise ValueError,
graphs and files mgedump cannot serialize or read mgedump.SerializationError.
"""
import inspect as _inspect
from typing import Dict, List, Tuple, Union

from . import _core
from ._core import (
    CompGraphDumpResult,
    CompGraphLoadResult,
    EvaluationError,
    Graph,
    Metadata,
    Operator,
    SerializationError,
    Var,
)
from ._signatures import public_function as _public_function
from ._signatures import public_methods as _public_methods

__version__: str = _core.__version__

# MegEngine's name for a graph variable, as dump_graph's signature spells it.
VarNode = Var


def dump_graph(
    output_vars: Union[Dict[str, VarNode], List[VarNode]],
    *,
    keep_var_name: int = 1,
    keep_opr_name: bool = False,
    keep_param_name: bool = False,
    keep_opr_priority: bool = False,
    no_change_graph: bool = False,
    strip_info_file=None,
    append_json=False,
    metadata=None,
    dump_format=None,
    model_version: int = 2,
    compat_older_version: str = None,
) -> Tuple[bytes, CompGraphDumpResult]:
    r"""Serialize the computing graph of `output_vars` and get the byte result.

    Args:
        output_vars: the graph's end points: a list of Vars, or a dict name -> Var
            (each var is renamed to its key, as MegEngine does).
        keep_var_name: 0 keeps no var names, 1 (default) the output vars', 2 every var's.
        keep_opr_name: keep operator names.
        keep_param_name: keep param (SharedDeviceTensor) names, so their values can be
            found after loading.
        keep_opr_priority: keep operator priorities.
        no_change_graph: False (default) applies the compatibility rewrites of the chosen
            format; True writes every operator as it is.
        strip_info_file: a path or a writable file object for the code-strip JSON.
        append_json: merge into what `strip_info_file` holds instead of replacing it
            (needs `strip_info_file`).
        metadata: a mgedump.Metadata, or a dict of its fields.
        dump_format: None or "FBS_V2" (the open-source MegEngine's default), or "FBS".
        model_version: FBS_V2's model version, 1 or 2 (FBS_V2 only).
        compat_older_version: "8.14" for MegEngine 8.14 runtimes (FBS only).

    Returns:
        (bytes of the .mge file, CompGraphDumpResult(nr_opr, tot_bytes,
        tensor_value_bytes, content_hash, inputs, outputs, params)).

    Bad options raise ValueError; graphs and formats mgedump cannot write raise
    mgedump.SerializationError, naming the operator and field.
    """
    return _core.dump_graph(
        output_vars,
        keep_var_name=keep_var_name,
        keep_opr_name=keep_opr_name,
        keep_param_name=keep_param_name,
        keep_opr_priority=keep_opr_priority,
        no_change_graph=no_change_graph,
        strip_info_file=strip_info_file,
        append_json=append_json,
        metadata=metadata,
        dump_format=dump_format,
        model_version=model_version,
        compat_older_version=compat_older_version,
    )


# The other functions: their signatures are the C++ definitions' (mgedump/_signatures.py).
dump_many = _public_function(_core.dump_many)
load_graph = _public_function(_core.load_graph)
load_graphs = _public_function(_core.load_graphs)
import_onnx = _public_function(_core.import_onnx)
run = _public_function(_core.run)
dump_with_testcases = _public_function(_core.dump_with_testcases)
load_testcases = _public_function(_core.load_testcases)


def _op(self, type, *inputs, name=None, priority=0, comp_node=None, output_dtype=None, outputs=None, **params):
    """What Graph.op takes; its docstring says what each is."""


_public_methods(Graph, op=_inspect.signature(_op))
_public_methods(Var)
_public_methods(Operator)
_public_methods(Metadata)
del Dict, List, Tuple, Union  # only dump_graph's annotations needed them

__all__ = [
    "CompGraphDumpResult",
    "CompGraphLoadResult",
    "EvaluationError",
    "Graph",
    "Metadata",
    "Operator",
    "SerializationError",
    "Var",
    "VarNode",
    "dump_graph",
    "dump_many",
    "dump_with_testcases",
    "import_onnx",
    "load_graph",
    "load_graphs",
    "load_testcases",
    "run",
]
