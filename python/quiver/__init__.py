"""quiver: tensors on Apache Arrow.

Fixed- and variable-shape tensor columns (``arrow.fixed_shape_tensor``,
``arrow.variable_shape_tensor``), dense tensors and the Arrow PyCapsule
protocol, with zero-copy NumPy views.
"""

from ._quiver import (
    __version__,
    Array,
    DataType,
    FixedShapeTensorArray,
    FixedShapeTensorType,
    Tensor,
    array,
    fixed_shape_tensor,
    VariableShapeTensorArray,
    VariableShapeTensorType,
    concat,
    from_dlpack,
    type_for,
    type_from_arrow,
    variable_shape_tensor,
)

__all__ = [
    "Array",
    "DataType",
    "FixedShapeTensorArray",
    "FixedShapeTensorType",
    "Tensor",
    "array",
    "fixed_shape_tensor",
    "VariableShapeTensorArray",
    "VariableShapeTensorType",
    "concat",
    "from_dlpack",
    "type_for",
    "type_from_arrow",
    "variable_shape_tensor",
]
