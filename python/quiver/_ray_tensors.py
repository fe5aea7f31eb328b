"""Ray Data's tensor types and the canonical ones, both ways (the half of
quiver.ray that needs no running Ray): ArrowTensorType (v1, list<T>),
ArrowTensorTypeV2 (large_list<T>) and ArrowVariableShapedTensorType against
arrow.fixed_shape_tensor and arrow.variable_shape_tensor, the values
buffers shared where the layout allows. quiver.ray re-exports the public
names; docs/bridges.md says what each conversion copies.
"""

import math
import sys

import numpy as np

from ._optional import import_optional
from ._quiver import table as _table

RAY_VARIABLE = "ray.data.arrow_variable_shaped_tensor"
RAY_FIXED = ("ray.data.arrow_tensor", "ray.data.arrow_tensor_v2")
VARIABLE = "arrow.variable_shape_tensor"
FIXED = "arrow.fixed_shape_tensor"


def _pa():
    return import_optional("pyarrow")


def _extension_name(pa_type):
    return getattr(pa_type, "extension_name", None)


def _variable_to_ray(column):
    """A canonical ragged column as Ray's variable-shaped tensor type: the
    values buffer shared, offsets widened to int64, shapes as list<int64>."""
    pa = _pa()
    from ray.data._internal.tensor_extensions.arrow import ArrowVariableShapedTensorType

    quiver_type = _qv_type(column.type)
    if quiver_type.permutation is not None and list(quiver_type.permutation) != sorted(
        quiver_type.permutation
    ):
        # Ray's type has no permutation: rows are copied into logical order.
        from ._quiver import VariableShapeTensorArray

        rows = VariableShapeTensorArray.from_storage(quiver_type, column.storage).to_numpy()
        column = pa.array(
            VariableShapeTensorArray.from_numpy(
                [None if r is None else np.ascontiguousarray(r) for r in rows]
            )
        )
        quiver_type = _qv_type(column.type)
    storage = column.storage
    data = storage.field("data")  # the rows this (possibly sliced) array covers
    ndim = quiver_type.ndim
    # Every row's ndim entries, a null row's included: flatten() would skip
    # the shapes of null rows that are null themselves and shift the rest.
    shape_field = storage.field("shape")
    every = shape_field.values.slice(shape_field.offset * ndim, len(shape_field) * ndim)
    shapes = np.asarray(every.fill_null(0).to_numpy(zero_copy_only=False), np.int64)
    shape_offsets = np.arange(len(storage) + 1, dtype=np.int32) * np.int32(ndim)
    shape = pa.ListArray.from_arrays(pa.array(shape_offsets), pa.array(shapes))
    # Ray reads row i at offsets[i] counted from the start of the values
    # *buffer*, ignoring the values array's own offset: the offsets are
    # made absolute over a view of the same buffer from its first byte.
    raw = _ray_values(data.values)
    base = pa.Array.from_buffers(raw.type, raw.offset + len(raw), raw.buffers()[:2])
    offsets = data.offsets.to_numpy(zero_copy_only=False).astype(np.int64) + raw.offset
    large = pa.LargeListArray.from_arrays(pa.array(offsets), base)
    mask = storage.is_null() if storage.null_count else None
    ray_storage = pa.StructArray.from_arrays([large, shape], names=["data", "shape"], mask=mask)
    ray_type = ArrowVariableShapedTensorType(raw.type, ndim)
    return pa.ExtensionArray.from_storage(ray_type, ray_storage)


def _qv_type(pa_type):
    from ._quiver import type_from_arrow

    return type_from_arrow(pa_type)


def _ray_variable_to_canonical(column):
    """Ray's variable-shaped tensors as arrow.variable_shape_tensor (values
    shared; offsets narrowed to int32, checked; shapes as int32)."""
    pa = _pa()
    from ._quiver import variable_shape_tensor

    storage = column.storage
    ndim = int(column.type.ndim)
    rows = len(storage)
    lengths = storage.field("shape").value_lengths().fill_null(0).to_numpy(zero_copy_only=False)
    valid = (
        ~storage.is_null().to_numpy(zero_copy_only=False)
        if storage.null_count
        else np.ones(rows, bool)
    )
    if np.any(lengths[valid] != ndim):
        bad = int(np.flatnonzero(valid & (lengths != ndim))[0])
        raise ValueError(
            f"row {bad} of the Ray tensor column has a shape of {int(lengths[bad])} "
            f"entries, the column has ndim {ndim}"
        )
    shapes = np.zeros((rows, ndim), np.int64)
    flat = storage.field("shape").flatten().to_numpy(zero_copy_only=False).astype(np.int64)
    shapes[lengths == ndim] = flat.reshape(-1, ndim) if flat.size else shapes[lengths == ndim]
    if shapes.size and (shapes.max() > np.iinfo(np.int32).max or shapes.min() < 0):
        raise ValueError("a shape of the Ray tensor column does not fit int32")
    shape = pa.FixedSizeListArray.from_arrays(pa.array(shapes.reshape(-1).astype(np.int32)), ndim)
    data = storage.field("data")
    try:
        data = data.cast(pa.list_(data.type.value_type))
    except pa.ArrowInvalid as e:
        raise ValueError(
            "the Ray tensor column holds more than 2^31 - 1 values, more than "
            "arrow.variable_shape_tensor's 32-bit offsets address"
        ) from e
    mask = storage.is_null() if storage.null_count else None
    canonical_storage = pa.StructArray.from_arrays(
        [data, shape], names=["data", "shape"], mask=mask
    )
    canonical_type = variable_shape_tensor(data.type.value_type, ndim)
    pa_type = pa.DataType._import_from_c_capsule(canonical_type.__arrow_c_schema__())
    return pa.ExtensionArray.from_storage(pa_type, canonical_storage)


def _ray_fixed_to_canonical(column):
    """Ray's fixed-shape tensors (ArrowTensorType's list<T> or
    ArrowTensorTypeV2's large_list<T> storage, the shape in the metadata) as
    arrow.fixed_shape_tensor. Zero-copy when every row holds its
    product-of-shape values back to back, as Ray writes them (a slice
    included): the fixed_size_list is a view of the same values buffer. A
    null row that holds no values makes the column copied."""
    pa = _pa()
    shape = tuple(int(n) for n in column.type.shape)
    size = math.prod(shape)
    storage = column.storage
    rows = len(storage)
    offsets = storage.offsets.to_numpy(zero_copy_only=False).astype(np.int64)
    lengths = np.diff(offsets)
    nulls = storage.is_null().to_numpy(zero_copy_only=False) if storage.null_count else None
    wrong = lengths != size
    if nulls is not None:
        wrong &= ~nulls
    if np.any(wrong):
        bad = int(np.flatnonzero(wrong)[0])
        raise ValueError(
            f"row {bad} of the Ray tensor column holds {int(lengths[bad])} values, "
            f"its shape {list(shape)} needs {size}"
        )
    if not np.any(lengths != size):
        start = int(offsets[0]) if rows else 0
        values = storage.values.slice(start, rows * size)
    else:
        # Null rows without values: the valid rows are gathered around them.
        # The filler is zeros of the value type (a bare 0 is no bool).
        zeros = pa.array(np.zeros(size, np.int8)).cast(storage.type.value_type)
        values = storage.fill_null(pa.scalar(zeros.to_pylist(), storage.type)).flatten()
    if values.type == pa.bool_() and hasattr(pa, "bool8"):  # pyarrow >= 18
        # Bit-packed bools cannot be viewed as a tensor: one byte each
        # (arrow.bool8, as quiver holds bool tensors), a copy.
        values = pa.ExtensionArray.from_storage(pa.bool8(), values.cast(pa.int8()))
    # From buffers with the row count: from_arrays refuses a list size of 0
    # (a zero-size axis), where the values cannot tell how many rows there are.
    validity = None if nulls is None else pa.array(~nulls).buffers()[1]
    fixed = pa.Array.from_buffers(pa.list_(values.type, size), rows, [validity], children=[values])
    return pa.ExtensionArray.from_storage(pa.fixed_shape_tensor(values.type, shape), fixed)


def _ray_values(values):
    """Values as Ray's tensor types can hold them: arrow.bool8 (quiver's
    bool tensors) becomes Arrow's bit-packed bool, a copy, since Ray reads
    only plain value types; everything else as it is."""
    pa = _pa()
    if _extension_name(values.type) == "arrow.bool8":
        return values.storage.cast(pa.bool_())
    return values


def _from_buffer_start(values):
    """`values` as an array whose data buffer starts at its first value:
    Ray's fixed-shape arrays read row i at the values buffer's start plus i
    rows, ignoring list offsets and the values array's own offset. A view of
    the same memory for byte-wide values without nulls; copied for bool
    values that start inside a byte and for values with nulls."""
    pa = _pa()
    if values.offset == 0:
        return values
    width = values.type.bit_width
    if values.null_count or width % 8:
        return pa.concat_arrays([values])  # a fresh array starting at offset 0
    data = values.buffers()[1].slice(values.offset * width // 8, len(values) * width // 8)
    return pa.Array.from_buffers(values.type, len(values), [None, data])


def _fixed_to_ray(column, version):
    """A canonical fixed-shape column as Ray's ArrowTensorType (``"v1"``,
    list<T>, int32 offsets) or ArrowTensorTypeV2 (``"v2"``, large_list<T>):
    the values buffer shared, only the row offsets made. Ray's types have
    no permutation and no dim_names: a column with a permutation is copied
    into its logical order, and dim_names are dropped."""
    pa = _pa()
    from ray.data._internal.tensor_extensions.arrow import ArrowTensorType, ArrowTensorTypeV2

    quiver_type = _qv_type(column.type)
    shape = tuple(int(n) for n in quiver_type.shape)
    storage = column.storage
    rows, size = len(storage), math.prod(shape)
    values = storage.values.slice(storage.offset * size, rows * size)
    values = _from_buffer_start(_ray_values(values))
    permutation = quiver_type.permutation
    if permutation is not None and list(permutation) != sorted(permutation):
        physical = values.to_numpy(zero_copy_only=False).reshape((rows,) + shape)
        logical = np.ascontiguousarray(physical.transpose([0] + [p + 1 for p in permutation]))
        shape = logical.shape[1:]
        values = pa.array(logical.reshape(-1), type=values.type)
    mask = storage.is_null() if storage.null_count else None
    if version == "v1":
        if rows * size > np.iinfo(np.int32).max:
            raise ValueError(
                f"the column holds {rows * size} values, more than Ray's ArrowTensorType "
                "(fixed='v1') addresses with 32-bit offsets; use fixed='v2'"
            )
        offsets = pa.array(np.arange(rows + 1, dtype=np.int32) * np.int32(size))
        ray_storage = pa.ListArray.from_arrays(offsets, values, mask=mask)
        ray_type = ArrowTensorType(shape, values.type)
    else:
        offsets = pa.array(np.arange(rows + 1, dtype=np.int64) * size)
        ray_storage = pa.LargeListArray.from_arrays(offsets, values, mask=mask)
        ray_type = ArrowTensorTypeV2(shape, values.type)
    return pa.ExtensionArray.from_storage(ray_type, ray_storage)


def _register_ray_types():
    """Imports Ray's tensor types so pyarrow knows them: a Table read from a
    file (or through the C Data Interface) then carries them as Ray's
    classes rather than as bare storage. Nothing without Ray."""
    try:
        import ray.data._internal.tensor_extensions.arrow  # noqa: F401
    except ImportError:
        pass


def _fixed_to_variable(column):
    """A canonical fixed-shape column as arrow.variable_shape_tensor with the
    same dim_names and permutation: the values buffer shared, row offsets
    and shapes made (small)."""
    pa = _pa()
    from ._quiver import variable_shape_tensor

    quiver_type = _qv_type(column.type)
    shape = [int(n) for n in quiver_type.shape]
    storage = column.storage
    rows, size = len(storage), math.prod(shape)
    if rows * size > np.iinfo(np.int32).max:
        raise ValueError(
            f"the column holds {rows * size} values, more than "
            "arrow.variable_shape_tensor's 32-bit offsets address"
        )
    values = storage.values.slice(storage.offset * size, rows * size)
    data = pa.ListArray.from_arrays(pa.array(np.arange(rows + 1, dtype=np.int32) * size), values)
    shapes = pa.FixedSizeListArray.from_arrays(
        pa.array(np.tile(np.array(shape, np.int32), rows), pa.int32()), len(shape)
    )
    mask = storage.is_null() if storage.null_count else None
    ragged = pa.StructArray.from_arrays([data, shapes], names=["data", "shape"], mask=mask)
    quiver_ragged = variable_shape_tensor(
        values.type, len(shape), quiver_type.dim_names, quiver_type.permutation
    )
    pa_type = pa.DataType._import_from_c_capsule(quiver_ragged.__arrow_c_schema__())
    return pa.ExtensionArray.from_storage(pa_type, ragged)


def _as_ragged(pa_table, names):
    """`pa_table` with the columns `names` as arrow.variable_shape_tensor:
    Ray types a block whose ragged rows happen to share one shape as a
    fixed-shape tensor, and a file per block must still have one schema."""
    missing = [n for n in names if n not in pa_table.column_names]
    if missing:
        raise KeyError(f"ragged names {missing[0]!r}, which the dataset has no column of")

    def convert(name, chunk):
        kind = _extension_name(chunk.type)
        if kind == FIXED:
            return _fixed_to_variable(chunk)
        if kind == VARIABLE:
            return chunk
        raise TypeError(f"ragged column {name!r} holds {chunk.type}, not a tensor type")

    pa = _pa()
    for name in names:
        index = pa_table.column_names.index(name)
        chunks = [convert(name, c) for c in pa_table.column(index).chunks]
        if chunks:
            pa_table = pa_table.set_column(index, name, pa.chunked_array(chunks))
    return pa_table


def _ragged_in_schema(dataset):
    """The columns Ray already knows as ragged, from the schema it holds
    (never computed: that would run the dataset)."""
    try:
        schema = dataset.schema(fetch_if_missing=False)
    except TypeError:
        return []
    base = getattr(schema, "base_schema", None)
    if base is None:
        return []
    return [f.name for f in base if _extension_name(f.type) in (RAY_VARIABLE, VARIABLE)]


def _map_columns(pa_table, convert):
    """`pa_table` with each column `convert` turns (chunk by chunk) into
    another type; the schema's and every field's metadata kept."""
    pa = _pa()
    columns, fields, changed = [], [], False
    for field, column in zip(pa_table.schema, pa_table.columns):
        chunks = [convert(chunk) for chunk in column.chunks]
        new = [c for c in chunks if c is not None]
        if len(new) == len(chunks) and chunks:
            changed = True
            column = pa.chunked_array(new)
            field = pa.field(field.name, column.type, field.nullable, field.metadata)
        columns.append(column)
        fields.append(field)
    if not changed:
        return pa_table
    return pa.table(columns, schema=pa.schema(fields, metadata=pa_table.schema.metadata))


FIXED_CHOICES = ("canonical", "v1", "v2")


def to_ray_types(data, *, fixed="canonical"):
    """A pyarrow Table (or anything qv.table takes) with its tensor columns
    as Ray Data reads them in ``batch_format="numpy"``: ragged columns as
    Ray's variable-shaped tensor type (one NumPy array per row), the values
    buffer shared. ``fixed`` picks the fixed-shape columns' type:
    ``"canonical"`` keeps arrow.fixed_shape_tensor (Ray Data handles it
    natively), ``"v1"`` and ``"v2"`` give Ray's ArrowTensorType (list<T>) and
    ArrowTensorTypeV2 (large_list<T>), the values shared and only the row
    offsets made. Ray's types have no permutation or dim_names: a permuted
    column is copied into its logical order, dim_names are dropped. Columns
    already in Ray's types come through as they are."""
    pa = _pa()
    if fixed not in FIXED_CHOICES:
        raise ValueError(
            f"fixed must be one of {', '.join(map(repr, FIXED_CHOICES))}, got {fixed!r}"
        )
    pa_table = data if isinstance(data, pa.Table) else pa.table(_table(data))

    def convert(chunk):
        name = _extension_name(chunk.type)
        if name == VARIABLE:
            return _variable_to_ray(chunk)
        if name == FIXED and fixed != "canonical":
            return _fixed_to_ray(chunk, fixed)
        return None

    return _map_columns(pa_table, convert)


def to_canonical_types(data):
    """A pyarrow Table with Ray's tensor types (ArrowTensorType,
    ArrowTensorTypeV2, ArrowVariableShapedTensorType) as the canonical
    extension types (arrow.fixed_shape_tensor, arrow.variable_shape_tensor),
    the values shared: fixed-shape rows whose values lie back to back (as
    Ray writes them) become a view; a null row without values makes its
    column copied. Ragged offsets are narrowed to int32 and shapes rewritten
    (small). An error names the row whose values do not match its shape."""
    pa = _pa()
    _register_ray_types()
    pa_table = data if isinstance(data, pa.Table) else pa.table(_table(data))

    def convert(chunk):
        name = _extension_name(chunk.type)
        if name == RAY_VARIABLE:
            return _ray_variable_to_canonical(chunk)
        if name in RAY_FIXED:
            return _ray_fixed_to_canonical(chunk)
        return None

    return _map_columns(pa_table, convert)


def _canonical_if_ray(data):
    """qv.table's and qv.record_batch's hook while Ray Data is imported: a
    pyarrow Table or RecordBatch holding Ray's tensor types comes back with
    the canonical ones (values shared); anything else as it is."""
    pa = sys.modules.get("pyarrow")
    if pa is None or not isinstance(data, (pa.Table, pa.RecordBatch)):
        return data
    names = (RAY_VARIABLE,) + RAY_FIXED
    if not any(_extension_name(field.type) in names for field in data.schema):
        return data
    if isinstance(data, pa.RecordBatch):
        data = pa.Table.from_batches([data])
    return to_canonical_types(data)
