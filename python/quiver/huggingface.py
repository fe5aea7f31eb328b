"""Hugging Face ``datasets`` tensors as canonical tensor columns, and back.

``datasets`` keeps a tensor column as its own ``Array2D``-``Array5D``
extension type over nested ``list`` storage, which only ``datasets`` reads.
``from_huggingface`` relabels such a column as ``arrow.fixed_shape_tensor``
(or ``arrow.variable_shape_tensor`` for a dynamic first dimension or null
rows) over the very values buffer ``datasets`` holds, after checking the
list offsets of every level; ``to_huggingface`` goes the other way, sharing
the values buffer and writing only list offsets. docs/bridges.md has the
rules, the copies and the errors.
"""

import json
import re
import sys

import numpy as np

from ._optional import import_optional

# datasets names its types after their classes, in the module that defines them.
INT32_MAX = 2**31 - 1
HF_ARRAY = re.compile(r"^datasets\.features\.features\.Array([2-5])DExtensionType$")


def _pa():
    return import_optional("pyarrow")


def _datasets():
    return import_optional("datasets")


# --- reading datasets' tensors ---------------------------------------------------


def _hf_array_spec(field):
    """(shape, dtype) of an ArrayXD field, whether pyarrow knows the type
    (datasets imported) or only sees its extension metadata; else None."""
    pa_type = field.type
    name = getattr(pa_type, "extension_name", None)
    if name is not None and HF_ARRAY.match(name):
        return tuple(pa_type.shape), pa_type.value_type
    metadata = field.metadata or {}
    name = metadata.get(b"ARROW:extension:name", b"").decode("utf-8", "replace")
    if HF_ARRAY.match(name):
        text = metadata.get(b"ARROW:extension:metadata", b"")
        try:
            shape, dtype = json.loads(text)
            shape = tuple(None if d is None else int(d) for d in shape)
        except (ValueError, TypeError) as e:
            raise ValueError(
                f"column '{field.name}': its {name.rsplit('.', 1)[-1]} metadata {text[:80]!r} "
                "is not datasets' [shape, dtype]"
            ) from e
        return shape, dtype
    return None


def _storage(chunk):
    pa = _pa()
    return chunk.storage if isinstance(chunk, pa.ExtensionArray) else chunk


def _leaf_type(name, pa_type, ndim):
    """The element type under ``ndim`` list levels, checked to be a tensor's."""
    pa = _pa()
    for axis in range(ndim):
        if not (pa.types.is_list(pa_type) or pa.types.is_large_list(pa_type)):
            raise TypeError(
                f"column '{name}': level {axis} of the Array{ndim}D storage is {pa_type}, "
                "not a list"
            )
        pa_type = pa_type.value_type
    if pa.types.is_boolean(pa_type):
        if not hasattr(pa, "bool8"):
            raise TypeError(
                f"column '{name}': Array{ndim}D of bool becomes arrow.bool8 values, which "
                f"need pyarrow 18 or later (this is {pa.__version__})"
            )
        return "bool8"
    if not (pa.types.is_integer(pa_type) or pa.types.is_floating(pa_type)):
        raise TypeError(
            f"column '{name}': Array{ndim}D of {pa_type} cannot be a tensor column (tensor "
            "values are integers, floats or bools); cast it first, e.g. ds.cast_column"
        )
    return pa_type


def _as_bool8(leaf):
    """datasets' bit-packed bools as arrow.bool8 (a byte each: a copy), the
    one tensor layout of booleans NumPy can view."""
    pa = _pa()
    return pa.ExtensionArray.from_storage(pa.bool8(), leaf.cast(pa.int8()))


def _row_of(levels, index):
    """The row holding entry ``index`` (absolute) of the array below the
    last of ``levels``, each level a (start, offsets) pair already checked."""
    for start, offsets in reversed(levels):
        index = start + int(np.searchsorted(offsets, index, side="right")) - 1
    return index


def _check_no_nulls(name, array, levels, start, what):
    if array.null_count:
        first = int(np.flatnonzero(array.is_null().to_numpy(zero_copy_only=False))[0])
        row = _row_of(levels, start + first)
        raise ValueError(
            f"column '{name}': row {row} has a null {what} (axis {len(levels)}); a tensor "
            "holds no nulls below its rows (null rows become variable_shape_tensor null rows)"
        )


def _unnest(name, storage, shape, row_base=0):
    """Walks the list levels of one ArrayXD chunk: returns the row offsets
    (rebased to 0), the leaf values (a zero-copy slice) and the row null
    mask or None. Every list below the rows must have the length the
    feature's shape gives: one vectorised pass over each level's offsets,
    which respects the chunk's slice offset at every level. Errors name
    rows of the column: the chunk's first row is ``row_base``."""
    levels = [(row_base, storage.offsets.to_numpy())]  # level 0: one offset per row
    mask = storage.is_null().to_numpy(zero_copy_only=False) if storage.null_count else None
    start, stop = int(levels[0][1][0]), int(levels[0][1][-1])
    current = storage.values
    for axis in range(1, len(shape)):
        current = current.slice(start, stop - start)
        _check_no_nulls(name, current, levels, start, "list")
        offsets = current.offsets.to_numpy()
        lengths = np.diff(offsets)
        bad = np.flatnonzero(lengths != shape[axis])
        if bad.size:
            row = _row_of(levels, start + int(bad[0]))
            raise ValueError(
                f"column '{name}': row {row} has {int(lengths[bad[0]])} entries on axis "
                f"{axis}, the feature's shape {_shape_str(shape)} says {shape[axis]}"
            )
        levels.append((start, offsets))
        start, stop = int(offsets[0]), int(offsets[-1])
        current = current.values
    leaf = current.slice(start, stop - start)
    _check_no_nulls(name, leaf, levels, start, "value")
    first = levels[0][1] - levels[0][1][0]
    if shape[0] is not None:
        lengths = np.diff(first)
        rows = np.arange(len(lengths)) if mask is None else np.flatnonzero(~mask)
        bad = np.flatnonzero(lengths[rows] != shape[0])
        if bad.size:
            row = int(rows[bad[0]])
            raise ValueError(
                f"column '{name}': row {row_base + row} has {int(lengths[row])} entries on axis 0, "
                f"the feature's shape {_shape_str(shape)} says {shape[0]}"
            )
    return first, leaf, mask


def _shape_str(shape):
    return "(" + ", ".join("None" if d is None else str(d) for d in shape) + ")"


def _fixed_lists(values, size, count, mask=None):
    """``count`` fixed-size lists of ``size`` over ``values`` (``mask``: a
    pyarrow bool array, True for a null list). Built from buffers, as
    ``FixedSizeListArray.from_arrays`` refuses a size of 0 (a zero-size
    axis), where the values cannot tell how many lists there are."""
    pa = _pa()
    validity = None
    if mask is not None:
        validity = pa.array(~np.asarray(mask.to_numpy(zero_copy_only=False))).buffers()[1]
    return pa.Array.from_buffers(pa.list_(values.type, size), count, [validity], children=[values])


def _fixed_chunk(qv_type, leaf, cell, rows):
    from ._quiver import FixedShapeTensorArray

    return FixedShapeTensorArray.from_storage(qv_type, _fixed_lists(leaf, cell, rows))


def _variable_chunk(name, qv_type, first, leaf, mask, inner_shape):
    """A variable_shape_tensor chunk over ``leaf``: data offsets are the row
    offsets times the cell size below axis 0 (the one buffer written), the
    shapes the row lengths with the fixed inner axes."""
    pa = _pa()
    from ._quiver import VariableShapeTensorArray

    inner = int(np.prod(inner_shape, dtype=np.int64))
    data_offsets = first.astype(np.int64) * inner
    if data_offsets[-1] > INT32_MAX:
        raise ValueError(
            f"column '{name}': a chunk of {int(data_offsets[-1])} values does not fit the int32 "
            "offsets of "
            "arrow.variable_shape_tensor's data list; split the dataset into smaller shards"
        )
    rows = len(first) - 1
    shapes = np.empty((rows, 1 + len(inner_shape)), np.int32)
    shapes[:, 0] = np.diff(first)
    shapes[:, 1:] = inner_shape
    if mask is not None:
        shapes[mask] = 0
    pa_mask = None if mask is None else pa.array(mask)
    data = pa.ListArray.from_arrays(pa.array(data_offsets.astype(np.int32)), leaf)
    shape = pa.FixedSizeListArray.from_arrays(pa.array(shapes.reshape(-1)), shapes.shape[1])
    storage = pa.StructArray.from_arrays([data, shape], names=["data", "shape"], mask=pa_mask)
    return VariableShapeTensorArray.from_storage(qv_type, storage)


def _tensor_column(name, field, column, shape):
    """One ArrayXD column (a pyarrow ChunkedArray) as a quiver ChunkedArray."""
    from ._quiver import chunked_array, fixed_shape_tensor, variable_shape_tensor

    ndim = len(shape)
    storage_type = getattr(field.type, "storage_type", field.type)
    value_type = _leaf_type(name, storage_type, ndim)
    bases = np.cumsum([0] + [len(chunk) for chunk in column.chunks])
    walked = [
        _unnest(name, _storage(chunk), shape, int(base))
        for chunk, base in zip(column.chunks, bases)
    ]
    if value_type == "bool8":
        walked = [(first, _as_bool8(leaf), mask) for first, leaf, mask in walked]
    if shape[0] is None or any(mask is not None for _, _, mask in walked):
        qv_type = variable_shape_tensor(value_type, ndim, uniform_shape=list(shape))
        chunks = [_variable_chunk(name, qv_type, f, leaf, m, shape[1:]) for f, leaf, m in walked]
    else:
        qv_type = fixed_shape_tensor(value_type, shape)
        cell = int(np.prod(shape, dtype=np.int64))
        chunks = [_fixed_chunk(qv_type, leaf, cell, len(f) - 1) for f, leaf, _ in walked]
    return chunked_array(chunks, type=qv_type)


def _arrow_table(obj):
    """The pyarrow Table behind ``obj`` and the row indices a
    ``datasets.Dataset`` selects through (None: every row, in order)."""
    pa = _pa()
    datasets = sys.modules.get("datasets")
    if datasets is not None:
        if isinstance(obj, (datasets.DatasetDict, datasets.IterableDatasetDict)):
            splits = ", ".join(repr(k) for k in obj)
            raise TypeError(
                f"a DatasetDict holds several splits ({splits}); pass one, e.g. "
                f"from_huggingface(ds[{next(iter(obj), 'train')!r}])"
            )
        if isinstance(obj, datasets.IterableDataset):
            raise TypeError(
                "an IterableDataset streams its rows and has no table to relabel; load it "
                "with streaming=False, or convert batches with from_huggingface(pyarrow_table)"
            )
        if isinstance(obj, datasets.Dataset):
            indices = obj._indices  # set by select/shuffle/filter: rows taken lazily
            rows = None if indices is None else indices.column(0)
            return obj.data.table, rows
    if isinstance(obj, pa.RecordBatch):
        return pa.Table.from_batches([obj]), None
    if isinstance(obj, pa.Table):
        return obj, None
    raise TypeError(
        "from_huggingface takes a datasets.Dataset or a pyarrow Table / RecordBatch, got "
        f"{type(obj).__module__}.{type(obj).__qualname__}"
    )


def from_huggingface(data, columns=None):
    """A quiver Table from a Hugging Face ``datasets.Dataset`` (or a pyarrow
    Table or RecordBatch with its ``Array2D``-``Array5D`` columns, as read
    from a ``datasets`` Arrow file, with or without ``datasets`` imported).

    ArrayXD columns become ``arrow.fixed_shape_tensor`` over the values
    buffer ``datasets`` holds (its memory-mapped file for a dataset loaded
    from disk): nothing is copied once the list offsets of every level
    check out. A dynamic first dimension (``shape=(None, ...)``) or null
    rows give ``arrow.variable_shape_tensor`` instead (values shared; only
    the data offsets and shapes are written, O(rows)). Other columns pass
    through unchanged (their types and values; the table's and the fields'
    key/value metadata are not carried over). ``columns`` picks and orders
    columns by name.

    A Dataset narrowed by ``select``/``shuffle``/``filter`` keeps its rows in
    an index mapping: those rows are taken (a copy, as
    ``Dataset.flatten_indices`` would make).

    An ArrayXD of ``bool`` (bit-packed) becomes ``arrow.bool8`` values, a
    byte each: a copy.

    Errors: TypeError for anything else (a DatasetDict names its splits) and
    for an ArrayXD of strings or other non-tensor values; KeyError for a
    missing column; ValueError for a null list or value inside a tensor or a
    list whose length differs from the feature's shape, naming the column
    and row.
    """
    from ._quiver import table as _table

    if isinstance(columns, str):
        raise TypeError("columns must be a list of names, got a str")
    pa_table, rows = _arrow_table(data)
    names = pa_table.column_names if columns is None else list(columns)
    out = {}
    for name in names:
        if name not in pa_table.column_names:
            raise KeyError(f"no column named '{name}' (columns: {pa_table.column_names})")
        field = pa_table.schema.field(name)
        spec = _hf_array_spec(field)
        column = pa_table.column(name)
        out[name] = column if spec is None else _tensor_column(name, field, column, spec[0])
    result = _table(out)
    if rows is not None:
        result = result.take(np.asarray(rows.to_numpy(zero_copy_only=False), np.int64))
    return result


def _canonical_if_huggingface(data):
    """qv.table's and qv.record_batch's hook while ``datasets`` is imported:
    a Dataset, or a pyarrow Table / RecordBatch with ArrayXD columns, comes
    back as canonical tensor columns; anything else as it is."""
    datasets = sys.modules["datasets"]
    if isinstance(data, (datasets.Dataset, datasets.DatasetDict, datasets.IterableDataset)):
        return from_huggingface(data)
    pa = sys.modules.get("pyarrow")
    if pa is None or not isinstance(data, (pa.Table, pa.RecordBatch)):
        return data
    # datasets is imported, so its types are registered: a look at the
    # types is enough (qv.table pays this on every pyarrow table).
    array_type = datasets.features.features._ArrayXDExtensionType
    if not any(isinstance(t, array_type) for t in data.schema.types):
        return data
    table = from_huggingface(data)
    if isinstance(data, pa.RecordBatch):  # qv.record_batch wants a batch back
        from ._quiver import record_batch

        return record_batch({name: table.column(name) for name in table.column_names})
    return table


# --- writing datasets' tensors ---------------------------------------------------


def _nest(values, sizes, rows, mask=None):
    """``values`` as ``rows`` nested ``list`` levels of the given fixed sizes
    (outer first), the outer level with ``mask`` as its nulls: only offsets
    are written, the values are shared. The list counts come from ``rows``,
    not the values, so a zero-size axis keeps every row's lists."""
    pa = _pa()
    for axis in reversed(range(len(sizes))):
        count = rows * int(np.prod(sizes[:axis], dtype=np.int64))
        offsets = pa.array((np.arange(count + 1, dtype=np.int64) * sizes[axis]).astype(np.int32))
        values = pa.ListArray.from_arrays(offsets, values, mask=mask if axis == 0 else None)
    return values


def _mask(storage):
    pa = _pa()
    if not storage.null_count:
        return None
    return pa.array(storage.is_null().to_numpy(zero_copy_only=False))


def _check_offsets_fit(name, count):
    if count > INT32_MAX:
        raise ValueError(
            f"column '{name}': {count} lists or values do not fit the int32 offsets of "
            "datasets' list storage; write the table in smaller chunks"
        )


def _logical_fixed(qv_type, storage):
    """The values of a fixed_shape_tensor chunk in logical (row-major) order
    and the logical shape: shared unless a permutation makes the physical
    order differ, then copied."""
    pa = _pa()
    from ._quiver import FixedShapeTensorArray

    permutation = qv_type.permutation
    shape = list(qv_type.shape)
    if permutation is None or list(permutation) == sorted(permutation):
        return _all_values(storage), shape
    cells = FixedShapeTensorArray.from_storage(qv_type, storage).to_numpy(allow_nulls=True)
    logical = np.ascontiguousarray(cells)
    return pa.array(logical.reshape(-1)), list(logical.shape[1:])


def _hf_values(values):
    """Values as datasets stores them: arrow.bool8 (a byte per value) is
    packed into Arrow's bit-packed bool, a copy; others shared."""
    pa = _pa()
    if getattr(values.type, "extension_name", None) == "arrow.bool8":
        return values.storage.cast(pa.bool_())
    return values


def _all_values(storage):
    """Every cell's values, null rows' slots included (so the offsets stay
    arithmetic); a zero-copy slice."""
    size = storage.type.list_size
    return storage.values.slice(storage.offset * size, len(storage) * size)


def _hf_fixed(name, qv_type, storages):
    """A fixed_shape_tensor column as ArrayXD (ndim 2-5) or nested fixed
    ``List``s (ndim 1, or more than 5): values shared, offsets written."""
    pa = _pa()
    datasets = _datasets()
    from datasets.features import features as hf

    ndim = len(qv_type.shape)
    dtype = qv_type.value_type.to_numpy_dtype().name
    chunks, shape = [], list(qv_type.shape)
    for storage in storages:
        values, shape = _logical_fixed(qv_type, storage)
        values = _hf_values(values)
        mask = _mask(storage)
        if 2 <= ndim <= 5:
            _check_offsets_fit(name, len(values))
            ext = getattr(hf, f"Array{ndim}DExtensionType")(tuple(shape), dtype)
            nested = _nest(values, shape, len(storage), mask)
            chunks.append(pa.ExtensionArray.from_storage(ext, nested))
        else:
            for axis in reversed(range(1, len(shape))):
                count = len(storage) * int(np.prod(shape[:axis], dtype=np.int64))
                values = _fixed_lists(values, shape[axis], count)
            chunks.append(_fixed_lists(values, shape[0], len(storage), mask))
    if 2 <= ndim <= 5:
        feature = getattr(datasets, f"Array{ndim}D")(shape=tuple(shape), dtype=dtype)
    else:
        feature = datasets.Value(dtype)
        for size in reversed(shape):
            feature = datasets.List(feature, length=size)
    return chunks, feature


def _hf_variable(name, qv_type, storages):
    """A variable_shape_tensor column as ArrayXD with a dynamic first
    dimension (ndim 2-5, only axis 0 ragged) or else nested ``List``s:
    values shared, offsets written from the shapes. Rows are copied when a
    permutation reorders them or null rows hold data."""
    pa = _pa()
    datasets = _datasets()
    from datasets.features import features as hf
    from ._quiver import VariableShapeTensorArray, variable_shape_tensor

    ndim = qv_type.ndim
    dtype = qv_type.value_type.to_numpy_dtype().name
    permutation = qv_type.permutation
    permuted = permutation is not None and list(permutation) != sorted(permutation)
    prepared = []
    for storage in storages:
        array = VariableShapeTensorArray.from_storage(qv_type, storage)
        shapes = np.asarray(array.shapes(), np.int64)
        valid = ~np.asarray(storage.is_null().to_numpy(zero_copy_only=False))
        data = storage.field("data")
        offsets = data.offsets.to_numpy().astype(np.int64)
        sizes = np.where(valid, np.prod(shapes, axis=1), 0)
        if permuted or np.any(np.diff(offsets) != sizes):
            # Copy the rows into logical order, null rows without data.
            rows = array.to_numpy()
            logical = variable_shape_tensor(qv_type.value_type, ndim)
            array = VariableShapeTensorArray.from_numpy(
                [None if r is None else np.ascontiguousarray(r) for r in rows], type=logical
            )
            shapes = np.asarray(array.shapes(), np.int64)
            data = pa.array(array.storage).field("data")
            offsets = data.offsets.to_numpy().astype(np.int64)
        leaf = _hf_values(data.values.slice(int(offsets[0]), int(offsets[-1] - offsets[0])))
        prepared.append((shapes, valid, leaf, offsets - offsets[0]))
    inner = [s[valid][:, 1:] for s, valid, _, _ in prepared]
    inner = np.concatenate(inner) if inner else np.empty((0, ndim - 1), np.int64)
    uniform = qv_type.uniform_shape  # per physical axis; the rows are logical now
    if uniform is not None and permuted:
        uniform = [uniform[axis] for axis in permutation]
    if inner.shape[0]:
        fixed_inner = bool(np.all(inner == inner[0]))
        inner_shape = [int(d) for d in inner[0]]
    else:  # no valid row: the type must say the inner sizes
        inner_shape = list(uniform[1:]) if uniform is not None else [None] * (ndim - 1)
        fixed_inner = all(d is not None for d in inner_shape)
    chunks = []
    if 2 <= ndim <= 5 and fixed_inner:
        # A first axis the type fixes (a fixed-shape column with null rows)
        # stays fixed; datasets stores null rows without entries either way.
        first_axis = uniform[0] if uniform is not None else None
        ext = getattr(hf, f"Array{ndim}DExtensionType")((first_axis, *inner_shape), dtype)
        for shapes, valid, leaf, offsets in prepared:
            _check_offsets_fit(name, len(leaf))
            # Row lengths on axis 0 from the shapes: the offsets cannot
            # tell them when a zero-size inner axis leaves every row empty.
            lengths = np.where(valid, shapes[:, 0], 0)
            first_offsets = np.zeros(len(lengths) + 1, np.int64)
            np.cumsum(lengths, out=first_offsets[1:])
            _check_offsets_fit(name, int(first_offsets[-1]))
            below = _nest(leaf, inner_shape, int(first_offsets[-1])) if ndim > 1 else leaf
            first = pa.array(first_offsets.astype(np.int32))
            mask = None if valid.all() else pa.array(~valid)
            outer = pa.ListArray.from_arrays(first, below, mask=mask)
            chunks.append(pa.ExtensionArray.from_storage(ext, outer))
        feature = getattr(datasets, f"Array{ndim}D")(shape=(first_axis, *inner_shape), dtype=dtype)
        return chunks, feature
    for shapes, valid, leaf, _ in prepared:
        chunks.append(_ragged_lists(name, shapes, valid, leaf))
    feature = datasets.Value(dtype)
    for _ in range(ndim):
        feature = datasets.List(feature)
    return chunks, feature


def _ragged_lists(name, shapes, valid, leaf):
    """Rows of any shapes as ``ndim`` nested lists over ``leaf``: level k
    holds, for each list of level k - 1, as many lists as its row's axis k."""
    pa = _pa()
    ndim = shapes.shape[1]
    counts = np.ones(len(shapes), np.int64)  # lists of the current level per row
    lengths_per_level = []
    for axis in range(ndim):
        lengths_per_level.append(np.repeat(shapes[:, axis], counts))
        counts = counts * shapes[:, axis]
    values = leaf
    for axis in reversed(range(ndim)):
        lengths = lengths_per_level[axis]
        offsets = np.zeros(len(lengths) + 1, np.int64)
        np.cumsum(lengths, out=offsets[1:])
        _check_offsets_fit(name, int(offsets[-1]))
        mask = None if axis or valid.all() else pa.array(~valid)
        values = pa.ListArray.from_arrays(pa.array(offsets.astype(np.int32)), values, mask=mask)
    return values


def to_huggingface(table):
    """A ``datasets.Dataset`` over a quiver Table (or anything ``qv.table``
    takes). Tensor columns get the features ``datasets`` reads as tensors:

    - ``arrow.fixed_shape_tensor`` of 2-5 axes: ``Array2D``-``Array5D``;
      of 1 axis or more than 5: nested ``List(..., length=n)`` (fixed-size
      lists; ``datasets`` has no Array1D or Array6D).
    - ``arrow.variable_shape_tensor`` of 2-5 axes whose rows differ on axis
      0 only: ``ArrayXD`` with shape ``(None, ...)``; any other: nested
      ``List`` (1 axis: a plain ``List``).

    The values buffer is shared; the list offsets ``datasets`` stores at
    every level are written (O(rows x the cells above the last axis)). A
    permutation that reorders axes, or null rows of a variable-shape
    column that still hold data, make a copy of the values in logical
    order; ``arrow.bool8`` values are packed into datasets' bit-packed
    ``bool``, a copy. Null rows stay null. Other columns pass through unchanged.
    """
    datasets = _datasets()
    pa = _pa()
    from ._quiver import FixedShapeTensorType, Table, VariableShapeTensorType
    from ._quiver import table as _table

    if not isinstance(table, Table):
        table = _table(table)
    # Tensor columns leave through their storage: pyarrow has no
    # variable_shape_tensor of bool8, and datasets wants the storage anyway.
    columns, features = [], {}
    for name in table.column_names:
        qv_column = table.column(name)
        if isinstance(qv_column.type, (FixedShapeTensorType, VariableShapeTensorType)):
            storages = [pa.array(chunk.storage) for chunk in qv_column.chunks]
            fixed = isinstance(qv_column.type, FixedShapeTensorType)
            convert = _hf_fixed if fixed else _hf_variable
            chunks, feature = convert(name, qv_column.type, storages)
            column = pa.chunked_array(chunks, type=_feature_arrow_type(feature))
        else:
            column = table.select([name]).to_pyarrow().column(0)
            arrow_field = pa.field(name, column.type)
            feature = datasets.Features.from_arrow_schema(pa.schema([arrow_field]))[name]
        features[name] = feature
        columns.append(column)
    hf_table = pa.Table.from_arrays(columns, names=table.column_names)
    features = datasets.Features(features)
    info = datasets.DatasetInfo(features=features)
    from datasets.table import InMemoryTable

    return datasets.Dataset(InMemoryTable(hf_table), info=info)


def _feature_arrow_type(feature):
    from datasets.features.features import get_nested_type

    return get_nested_type(feature)
