"""quiver datasets in Ray Data (``pip install 'quiver-tensors[ray]'``).

``read_ipc`` reads a folder of quiver (Arrow IPC) files as a
``ray.data.Dataset``, one read task per file or per group of record batches,
memory-mapped on the worker; ``write_ipc`` writes a dataset back as one IPC
file per block. On the way in, ``arrow.fixed_shape_tensor`` columns stay
as they are (Ray Data handles them natively) and ``arrow.variable_shape_tensor``
columns become Ray's own variable-shaped tensor type, whose values buffer is
the very one the file maps (only the row offsets are widened and the shapes
rewritten); on the way out every tensor column is written as the canonical
extension type again, whatever Ray used in between. ``map_batches`` runs a
function on quiver Tables. docs/distributed.md has the whole road.
"""

import glob
import os
import uuid

from . import ipc as _ipc
from ._optional import import_optional
from ._quiver import Table
from ._quiver import table as _table
from ._ray_tensors import (  # re-exported: quiver.ray's API
    FIXED,
    FIXED_CHOICES,
    RAY_FIXED,
    RAY_VARIABLE,
    VARIABLE,
    _as_ragged,
    _canonical_if_ray,  # noqa: F401  (qv.table's hook looks it up here)
    _ragged_in_schema,
    to_canonical_types,
    to_ray_types,
)

SUFFIXES = (".arrow", ".feather", ".ipc")


def _pa():
    return import_optional("pyarrow")


def _ray_data():
    return import_optional("ray.data")


def ipc_files(paths):
    """The files a path, a folder (its *.arrow, *.feather and *.ipc files,
    sorted by name), a glob pattern (its matches, sorted) or a list of them
    name; FileNotFoundError for a path that does not exist or a pattern
    that matches nothing, ValueError for a folder without IPC files."""
    if isinstance(paths, (str, os.PathLike)):
        paths = [paths]
    files = []
    for path in paths:
        path = os.fspath(path)
        if os.path.isdir(path):
            found = sorted(
                os.path.join(path, name)
                for name in os.listdir(path)
                if name.endswith(SUFFIXES) and not name.startswith(".")
            )
            if not found:
                raise ValueError(f"'{path}' holds no IPC files ({', '.join(SUFFIXES)})")
            files.extend(found)
        elif os.path.exists(path):
            files.append(path)
        elif glob.has_magic(path):
            found = sorted(p for p in glob.glob(path) if os.path.isfile(p))
            if not found:
                raise FileNotFoundError(f"no files match '{path}'")
            files.extend(found)
        else:
            raise FileNotFoundError(f"'{path}' does not exist")
    if not files:
        raise ValueError("no IPC files given")
    return files


__all__ = [
    "FIXED",
    "FIXED_CHOICES",
    "RAY_FIXED",
    "RAY_VARIABLE",
    "VARIABLE",
    "ipc_files",
    "map_batches",
    "read_ipc",
    "record_batch_rows",
    "to_canonical_types",
    "to_ray_types",
    "write_ipc",
]


def _install_batch_hint():
    """Ray Data refuses a quiver Table returned from ``map_batches`` with a
    list of the types it takes; this makes the message say what to do. It
    wraps Ray's batch check for quiver's classes only, and does nothing on a
    Ray without that check."""
    try:
        from ray.data._internal.planner import plan_udf_map_op as plan
    except Exception:
        return
    check = getattr(plan, "_validate_batch_output", None)
    if check is None or getattr(check, "_quiver_hint", False):
        return
    from ._quiver import RecordBatch

    def validate(batch):
        if isinstance(batch, (Table, RecordBatch)):
            raise ValueError(
                f"the function given to map_batches returned a quiver {type(batch).__name__}; "
                "Ray Data takes pyarrow tables: return batch.to_pyarrow() (with "
                "quiver.ray.to_ray_types() for ragged columns Ray should see as per-row "
                "arrays), or use quiver.ray.map_batches, which converts both ways"
            )
        check(batch)

    validate._quiver_hint = True
    plan._validate_batch_output = validate


# --- reading -------------------------------------------------------------------


def _read_batches(path, first, count, columns, fixed="canonical"):
    """Batches [first, first + count) of one file as a pyarrow Table with
    Ray's tensor types (the file memory-mapped; values not copied). A file
    that already holds Ray's tensor types (written by pyarrow from a Ray
    block) is read through the canonical types, so every file gives the
    same types."""
    reader = _ipc.open_file(path)
    batches = [reader.get_batch(i) for i in range(first, first + count)]
    if batches:
        table = Table.from_batches(batches)
    else:
        table = reader.read_all()
    if columns is not None:
        table = table.select(columns)
    return to_ray_types(to_canonical_types(table.to_pyarrow()), fixed=fixed)


def record_batch_rows(path):
    """The row count of every record batch of an IPC file, from its footer
    (quiver's writers list them there) or else from each record batch's
    header: no body is read or decoded."""
    reader = _ipc.open_file(path)
    rows = reader.footer_record_batch_rows
    if rows is not None:
        return list(rows)
    return [reader.record_batch_layout(i)["num_rows"] for i in range(reader.num_record_batches)]


def _plan(files, rows_per_task):
    """One task per file, or per group of record batches of a big file."""
    tasks = []
    for path in files:
        rows = record_batch_rows(path)
        n = len(rows)
        start = 0
        while start < n or (n == 0 and start == 0):
            count, total = 0, 0
            while start + count < n and (
                count == 0 or total + rows[start + count] <= rows_per_task
            ):
                total += rows[start + count]
                count += 1
            tasks.append(
                (path, start, count, total, os.path.getsize(path) * total // max(sum(rows), 1))
            )
            start += max(count, 1)
    return tasks


def read_ipc(
    paths_or_directory,
    *,
    columns=None,
    rows_per_task=None,
    override_num_blocks=None,
    ray_remote_args=None,
    fixed="canonical",
):
    """A ray.data.Dataset over quiver IPC files: a path, a folder (*.arrow,
    *.feather, *.ipc) or a list. One read task per file, or per group of
    record batches of at most ``rows_per_task`` rows (default: whole files);
    every task memory-maps its file on its worker. ``columns`` selects
    columns. Fixed-shape tensor columns arrive as arrow.fixed_shape_tensor
    (or Ray's ArrowTensorType / ArrowTensorTypeV2 with ``fixed="v1"`` /
    ``"v2"``), ragged ones as Ray's variable-shaped tensor type (per-row
    NumPy arrays in batch_format="numpy"), their values not copied. Files
    holding Ray's own tensor types are read the same way."""
    ray_data = _ray_data()
    from ray.data.block import BlockMetadata
    from ray.data.datasource import Datasource, ReadTask

    if fixed not in FIXED_CHOICES:
        raise ValueError(
            f"fixed must be one of {', '.join(map(repr, FIXED_CHOICES))}, got {fixed!r}"
        )
    files = ipc_files(paths_or_directory)
    limit = rows_per_task if rows_per_task is not None else float("inf")
    if rows_per_task is not None and rows_per_task <= 0:
        raise ValueError(f"rows_per_task must be positive, got {rows_per_task}")
    schema = _ipc.open_file(files[0]).schema
    for path in files[1:]:
        other = _ipc.open_file(path).schema
        if not other.equals(schema):
            raise ValueError(f"'{path}' has another schema than '{files[0]}'")
    if columns is not None:
        missing = [c for c in columns if c not in schema.names]
        if missing:
            raise KeyError(f"no column named {missing[0]!r} in '{files[0]}'")
    plan = _plan(files, limit)

    class QuiverIpcDatasource(Datasource):
        def get_name(self):
            return "ReadQuiverIPC"

        def estimate_inmemory_data_size(self):
            return sum(task[4] for task in plan)

        def get_read_tasks(self, parallelism, per_task_row_limit=None, data_context=None):
            return [
                ReadTask(
                    lambda t=task: [_read_batches(t[0], t[1], t[2], columns, fixed)],
                    BlockMetadata(
                        num_rows=task[3], size_bytes=task[4], input_files=[task[0]], exec_stats=None
                    ),
                    per_task_row_limit=per_task_row_limit,
                )
                for task in plan
            ]

    kwargs = {}
    if override_num_blocks is not None:
        kwargs["override_num_blocks"] = override_num_blocks
    if ray_remote_args is not None:
        kwargs["ray_remote_args"] = ray_remote_args
    return ray_data.read_datasource(QuiverIpcDatasource(), **kwargs)


# --- writing -------------------------------------------------------------------


def write_ipc(dataset, directory, *, compression=None, compression_level=None, ragged=None):
    """Writes a ray.data.Dataset as IPC files in ``directory`` (made if
    missing): one file per block, named part-<task>-<block>-<id>.arrow, with
    every tensor column as the canonical extension type whatever Ray used
    (ArrowTensorType, ArrowTensorTypeV2, ArrowVariableShapedTensorType,
    the values not copied). Ray types a block whose ragged rows happen to
    share one shape as a fixed-shape tensor; the columns named in
    ``ragged``, and those the dataset's known schema already calls ragged,
    are written as arrow.variable_shape_tensor in every file, so all files
    share one schema. Returns the paths written, sorted."""
    _ray_data()
    ragged = list(ragged) if ragged is not None else []
    ragged += [name for name in _ragged_in_schema(dataset) if name not in ragged]
    from ray.data.datasource import Datasink

    os.makedirs(directory, exist_ok=True)
    directory = os.path.abspath(directory)
    run = uuid.uuid4().hex[:8]

    class QuiverIpcDatasink(Datasink):
        def get_name(self):
            return "WriteQuiverIPC"

        def write(self, blocks, ctx):
            written = []
            for k, block in enumerate(blocks):
                pa_table = _as_ragged(to_canonical_types(block), ragged)
                if pa_table.num_rows == 0:
                    continue
                path = os.path.join(directory, f"part-{ctx.task_idx:05d}-{k:04d}-{run}.arrow")
                _ipc.write_file(
                    _table(pa_table),
                    path,
                    compression=compression,
                    compression_level=compression_level,
                )
                written.append(path)
            return written

    dataset.write_datasink(QuiverIpcDatasink())
    return sorted(
        os.path.join(directory, name)
        for name in os.listdir(directory)
        if name.startswith("part-") and run in name
    )


def map_batches(dataset, fn, **kwargs):
    """``dataset.map_batches`` with ``fn`` taking and returning quiver Tables:
    each batch arrives as a qv.Table (tensor columns as the canonical types,
    Ray's converted), and what ``fn`` returns (a qv.Table or RecordBatch, a
    dict of columns, or anything qv.table takes) goes back to Ray with
    ragged columns as Ray's type. Other keyword arguments go to Ray."""
    if "batch_format" in kwargs:
        raise TypeError("quiver.ray.map_batches passes quiver Tables; batch_format is its own")

    def call(batch):
        result = fn(_table(to_canonical_types(batch)))
        return to_ray_types(result)

    return dataset.map_batches(call, batch_format="pyarrow", **kwargs)


_install_batch_hint()
