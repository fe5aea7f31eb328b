"""quiver datasets in Dask (``pip install 'quiver-tensors[dask]'``).

``from_ipc(paths, column)`` gives a lazy ``dask.array`` for a fixed-shape
tensor column (one chunk per record batch; shape and dtype come from the
files' metadata, no values are read until a chunk is computed, and each
chunk is a view into the memory-mapped file on the worker that computes
it) and a ``dask.bag`` of NumPy arrays, one per row, for a ragged column.
quiver's own columns and tables pickle with protocol 5 (their buffers out
of band), so ``client.scatter`` sends them to workers as they are.
docs/distributed.md has the whole road.
"""

from . import ipc as _ipc
from ._optional import import_optional
from .ray import ipc_files, record_batch_rows

FIXED = "arrow.fixed_shape_tensor"
VARIABLE = "arrow.variable_shape_tensor"


def _column_type(path, column):
    schema = _ipc.open_file(path).schema
    if column not in schema.names:
        raise KeyError(f"no column named {column!r} in '{path}' (columns: {schema.names})")
    return schema.field(column).type


def _fixed_chunk(path, batch, column):
    """Record batch `batch` of `column` as NumPy: a read-only view into the
    mapped file (null rows are an error, as to_numpy() says)."""
    return _ipc.open_file(path).get_batch(batch).column(column).to_numpy()


def _ragged_rows(path, batch, column):
    return list(_ipc.open_file(path).get_batch(batch).column(column))


def from_ipc(paths, column):
    """A lazy dask collection over one tensor column of quiver IPC files (a
    path, a folder of *.arrow / *.feather / *.ipc files, a glob pattern, or
    a list; row counts come from the files' footers or record batch
    headers, no value is read on the driver): a
    ``dask.array.Array`` of shape (rows, *tensor shape) for a
    fixed_shape_tensor column, a ``dask.bag.Bag`` of per-row NumPy arrays
    (None for null rows) for a variable_shape_tensor column. One chunk
    (partition) per record batch. TypeError for any other column type,
    ValueError when the files disagree on the column's type."""
    files = ipc_files(paths)
    column_type = _column_type(files[0], column)
    for path in files[1:]:
        if _column_type(path, column) != column_type:
            raise ValueError(
                f"column {column!r} of '{path}' is {_column_type(path, column)}, "
                f"of '{files[0]}' {column_type}"
            )
    name = getattr(column_type, "extension_name", None)
    delayed = import_optional("dask").delayed
    if name == FIXED:
        da = import_optional("dask.array")
        shape = tuple(column_type.logical_shape)
        dtype = column_type.value_type.to_numpy_dtype()
        chunks = [
            da.from_delayed(
                delayed(_fixed_chunk, pure=True)(path, i, column),
                shape=(rows,) + shape,
                dtype=dtype,
            )
            for path in files
            for i, rows in enumerate(record_batch_rows(path))
        ]
        if not chunks:
            return da.empty((0,) + shape, dtype=dtype)
        return da.concatenate(chunks, axis=0)
    if name == VARIABLE:
        db = import_optional("dask.bag")
        parts = [
            delayed(_ragged_rows, pure=True)(path, i, column)
            for path in files
            for i in range(len(record_batch_rows(path)))
        ]
        return db.from_delayed(parts)
    raise TypeError(f"from_ipc() reads tensor columns; {column!r} is {column_type}")
