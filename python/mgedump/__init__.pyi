# Types of the package mgedump (its functions and classes come from the compiled
# core, mgedump._core). tests/python/test_package.py checks that every signature
# here is the one inspect.signature gives at run time.
import os
from typing import IO, Any, Dict, Iterable, List, Mapping, NamedTuple, Optional, Sequence, Tuple, Union

import numpy as np

__version__: str
__all__: List[str]

_Path = Union[str, os.PathLike]
_Source = Union[str, os.PathLike, bytes, bytearray, memoryview, IO[bytes]]
# A numpy dtype or anything np.dtype() takes, a MegEngine dtype name ("Float32"), or for
# quantized dtypes {"dtype": "QuantizedS8", "scale": 0.1[, "zero_point": z]}.
_DType = Union[np.dtype, type, str, Dict[str, Any]]

class SerializationError(RuntimeError): ...
class EvaluationError(RuntimeError): ...

class Metadata:
    is_valid: bool
    graph_modified: bool
    user_info: bytes
    optimize_options: int
    def __init__(
        self,
        *,
        is_valid: bool = False,
        graph_modified: bool = False,
        user_info: Union[bytes, str] = b"",
        optimize_options: int = 0,
    ) -> None: ...
    @property
    def optimized_for_inference(self) -> bool: ...

class Operator:
    @property
    def type(self) -> str: ...
    @property
    def typeinfo(self) -> str: ...
    @property
    def name(self) -> str: ...
    @property
    def priority(self) -> int: ...
    @property
    def inputs(self) -> List[Var]: ...
    @property
    def outputs(self) -> List[Var]: ...
    @property
    def params(self) -> Dict[str, Any]: ...
    @property
    def tensor_names(self) -> List[Optional[str]]: ...

class Var:
    name: str
    @property
    def shape(self) -> Optional[Tuple[int, ...]]: ...
    @property
    def dtype(self) -> Union[np.dtype, Dict[str, Any], None]: ...
    @property
    def owner(self) -> Operator: ...
    @property
    def graph(self) -> Graph: ...
    @property
    def value(self) -> Optional[np.ndarray]: ...

VarNode = Var

class Graph:
    def __init__(self, comp_node: str = "xpux:0") -> None: ...
    def input(self, name: str, shape: Union[int, Sequence[int]], dtype: _DType = "float32") -> Var: ...
    def const(self, value: Any, name: Optional[str] = None, dtype: Optional[_DType] = None) -> Var: ...
    def param(self, value: Any, name: str, dtype: Optional[_DType] = None) -> Var: ...
    def op(
        self,
        type: str,
        *inputs: Any,
        name: Optional[str] = None,
        priority: int = 0,
        comp_node: Optional[str] = None,
        output_dtype: Optional[_DType] = None,
        outputs: Optional[int] = None,
        **params: Any,
    ) -> Union[Var, Tuple[Var, ...]]: ...
    @property
    def operators(self) -> List[Operator]: ...
    @property
    def format(self) -> Optional[str]: ...
    @property
    def mgb_version(self) -> Optional[int]: ...
    @property
    def content_hash(self) -> Optional[int]: ...
    @property
    def model_version(self) -> Optional[int]: ...

class CompGraphDumpResult(NamedTuple):
    nr_opr: int
    tot_bytes: int
    tensor_value_bytes: int
    content_hash: int
    inputs: List[str]
    outputs: List[str]
    params: List[str]

class CompGraphLoadResult(NamedTuple):
    graph: Graph
    output_vars_dict: Dict[str, Var]
    output_vars_list: List[Var]
    metadata: Metadata

_StripInfoFile = Union[str, os.PathLike, IO[str], IO[bytes], None]
_MetadataArg = Union[Metadata, Mapping[str, Any], None]

def dump_graph(
    output_vars: Union[Dict[str, VarNode], List[VarNode]],
    *,
    keep_var_name: int = 1,
    keep_opr_name: bool = False,
    keep_param_name: bool = False,
    keep_opr_priority: bool = False,
    no_change_graph: bool = False,
    strip_info_file: _StripInfoFile = None,
    append_json: bool = False,
    metadata: _MetadataArg = None,
    dump_format: Optional[str] = None,
    model_version: int = 2,
    compat_older_version: Optional[str] = None,
) -> Tuple[bytes, CompGraphDumpResult]: ...
def dump_many(
    jobs: Iterable[Mapping[str, Any]], threads: Optional[int] = None
) -> List[Tuple[bytes, CompGraphDumpResult]]: ...
def dump_with_testcases(
    output_vars: Union[Dict[str, VarNode], List[VarNode]],
    *,
    input_data: Union[str, Sequence[str]],
    repeat: int = 1,
    silent: bool = False,
    no_assert: bool = False,
    maxerr: float = 0.0001,
    seed: int = 0,
    keep_var_name: int = 1,
    keep_opr_name: bool = False,
    keep_param_name: bool = False,
    keep_opr_priority: bool = False,
    no_change_graph: bool = False,
    strip_info_file: Union[str, os.PathLike, None] = None,
    append_json: bool = False,
    metadata: _MetadataArg = None,
    dump_format: Optional[str] = None,
    model_version: int = 2,
    compat_older_version: Optional[str] = None,
) -> Tuple[bytes, CompGraphDumpResult]: ...
def load_graph(fpath: _Source) -> CompGraphLoadResult: ...
def load_graphs(fpath: _Source) -> List[CompGraphLoadResult]: ...
def load_testcases(path_or_bytes: _Source) -> List[Dict[str, np.ndarray]]: ...
def import_onnx(
    path: _Path,
    *,
    params_as_shared: bool = False,
    fold_batch_norm: bool = True,
    input_shapes: Optional[Mapping[str, Sequence[int]]] = None,
) -> CompGraphLoadResult: ...
def run(
    model: Union[_Source, CompGraphLoadResult, Var, Sequence[Var]],
    inputs: Optional[Mapping[str, Any]] = None,
    *,
    random_seed: Optional[int] = None,
    threads: int = 0,
) -> Dict[str, np.ndarray]: ...
