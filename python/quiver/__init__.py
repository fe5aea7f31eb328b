"""quiver: tensors on Apache Arrow.

Fixed- and variable-shape tensor columns (``arrow.fixed_shape_tensor``,
``arrow.variable_shape_tensor``), dense and sparse tensors (COO, CSR, CSC,
CSF) and the Arrow PyCapsule protocol, with zero-copy NumPy views.
"""

from ._quiver import (
    __version__,  # noqa: F401 (the package version, not in __all__)
    Array,
    DataType,
    FixedShapeTensorArray,
    FixedShapeTensorType,
    Tensor,
    SparseTensor,
    SparseCOOTensor,
    SparseCSRMatrix,
    SparseCSCMatrix,
    SparseCSFTensor,
    array,
    build_info,
    fixed_shape_tensor,
    VariableShapeTensorArray,
    VariableShapeTensorType,
    ChunkedArray,
    Field,
    RecordBatch,
    Schema,
    Table,
    chunked_array,
    concat,
    concat_tables,
    dataset,
    Dataset,
    record_batch,
    release_unused_memory,
    table,
    from_dlpack,
    type_for,
    type_from_arrow,
    variable_shape_tensor,
)
from ._quiver import Bindings, ShapePattern, enforce_shape
from ._quiver import _set_curl_module
from ._shapes import check_shapes
from ._curl import curl_module as _curl_module

from . import ipc
from . import parquet
from . import safetensors

__all__ = [
    "Dataset",
    "dataset",
    "Array",
    "DataType",
    "FixedShapeTensorArray",
    "FixedShapeTensorType",
    "Tensor",
    "SparseTensor",
    "SparseCOOTensor",
    "SparseCSRMatrix",
    "SparseCSCMatrix",
    "SparseCSFTensor",
    "array",
    "build_info",
    "fixed_shape_tensor",
    "VariableShapeTensorArray",
    "VariableShapeTensorType",
    "ChunkedArray",
    "Field",
    "RecordBatch",
    "Schema",
    "Table",
    "chunked_array",
    "concat",
    "concat_tables",
    "ipc",
    "parquet",
    "safetensors",
    "record_batch",
    "release_unused_memory",
    "table",
    "from_dlpack",
    "type_for",
    "type_from_arrow",
    "variable_shape_tensor",
    "Bindings",
    "ShapePattern",
    "check_shapes",
    "enforce_shape",
    "from_huggingface",
    "to_huggingface",
]

# pyarrow cannot unpickle the canonical ragged tensor type by itself; from
# here on it can (registered when pyarrow is imported, if it needs it).
from . import _pickle, _pyarrow_pickle

_pyarrow_pickle.install()
_pickle.register_function_pickling()
# libcurl is opened on the first remote read, from the module beside this
# file that links it (the binary wheel's own copy); see docs/remote.md.
if _curl_module() is not None:
    _set_curl_module(_curl_module())
# Inside a Ray Data worker: quiver.ray's message for a quiver Table returned
# from map_batches (Ray Data is already imported there; importing quiver
# alone never imports Ray).
if "ray.data" in __import__("sys").modules:
    from . import ray as _ray  # noqa: F401


# Bridges whose module imports NumPy and, on use, their peer: loaded on the
# first access, so that `import quiver` stays cheap.
_LAZY = {"from_huggingface": "huggingface", "to_huggingface": "huggingface"}


def __getattr__(name):
    if name in _LAZY:
        import importlib

        return getattr(importlib.import_module(f".{_LAZY[name]}", __name__), name)
    raise AttributeError(f"module 'quiver' has no attribute '{name}'")


def __dir__():
    return sorted(set(globals()) | set(_LAZY))
