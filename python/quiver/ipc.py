"""Arrow IPC: record batch streams and files (Feather v2), and the Tensor
and SparseTensor messages. Names follow ``pyarrow.ipc``."""

from ._quiver.ipc import (
    RecordBatchFileReader,
    RecordBatchFileWriter,
    RecordBatchStreamReader,
    RecordBatchStreamWriter,
    new_file,
    new_stream,
    open_file,
    open_stream,
    read_sparse_tensor,
    read_tensor,
    write_sparse_tensor,
    write_tensor,
)


def codecs():
    """The compression codecs this build of quiver has, by their
    ``compression=`` names: ``['lz4', 'zstd']`` for the binary wheel; a
    source build without the LZ4 or ZSTD development files leaves that
    codec out, and writing or reading a body compressed with it raises
    NotImplementedError saying how to get it."""
    from ._quiver import build_info

    return build_info()["codecs"]


def _is_sink(obj):
    """A path or a writable file object: what a writer writes to, never
    data (data is a table, a batch or a PyCapsule producer)."""
    import os

    return isinstance(obj, (str, bytes, os.PathLike)) or (
        hasattr(obj, "write")
        and not hasattr(obj, "__arrow_c_stream__")
        and not hasattr(obj, "__arrow_c_array__")
    )


def _check_order(function, data, sink):
    # write_file used to take (sink, data). The old order would otherwise
    # fail deep inside table() with a message about paths not being
    # tables; name the fix instead.
    if _is_sink(data) and not _is_sink(sink):
        raise TypeError(
            f"{function}(data, sink) takes the data first, then the path or file object "
            f"(as write_tensor(tensor, sink) and pyarrow's write_table(table, where)); "
            f"got a {type(data).__name__} first and a {type(sink).__name__} second: "
            f"swap the arguments"
        )


def _write(new_writer, function, data, sink, **options):
    from . import RecordBatch, table

    _check_order(function, data, sink)
    # A RecordBatch is written as one batch, even of zero rows; anything
    # else as a table, cut into batches as pyarrow's write_table cuts it (a
    # table of no rows gives no batches). max_batch_rows/max_batch_bytes
    # cut further.
    if not isinstance(data, RecordBatch):
        data = table(data)
    with new_writer(sink, data.schema, **options) as writer:
        writer.write(data)


def write_file(
    data,
    sink,
    compression=None,
    compression_level=None,
    max_batch_rows=None,
    max_batch_bytes=None,
    compression_block_bytes=None,
):
    """Writes ``data`` (a quiver Table or RecordBatch, or anything with
    ``__arrow_c_stream__`` / ``__arrow_c_array__``) as one IPC file to
    ``sink`` (a path, put in place only once complete, or a writable
    binary file object). The data comes first, as in ``write_tensor``. A
    table is cut into batches as pyarrow's ``write_table`` cuts it (a table
    of no rows gives a file of no batches); a RecordBatch is written as one
    batch, even of zero rows.

    ``max_batch_rows`` and ``max_batch_bytes`` (None: no limit) cut every
    batch further, into record batches of at most that many rows and bytes
    of uncompressed body; a single row larger than ``max_batch_bytes`` is
    written alone. A record batch is what a reader decompresses at once:
    smaller ones make reading one row cheaper, larger ones compress better
    (docs/ipc.md, "Batch size").

    ``compression_block_bytes`` (a power of two from 4096 to 4194304;
    None: unset) compresses every buffer larger than that in independent
    blocks of that size: any reader of the codec reads them, and ``qv.dataset``
    taking a few rows decodes only the blocks that hold them
    (docs/dataset.md, "Compressed data and the cache")."""
    _write(
        new_file,
        "write_file",
        data,
        sink,
        compression=compression,
        compression_level=compression_level,
        max_batch_rows=max_batch_rows,
        max_batch_bytes=max_batch_bytes,
        compression_block_bytes=compression_block_bytes,
    )


def write_stream(
    data,
    sink,
    compression=None,
    compression_level=None,
    max_batch_rows=None,
    max_batch_bytes=None,
    compression_block_bytes=None,
):
    """Writes ``data`` as one IPC stream to ``sink`` (a path or a writable
    binary file object): ``write_file``'s counterpart for streams, batches
    cut alike."""
    _write(
        new_stream,
        "write_stream",
        data,
        sink,
        compression=compression,
        compression_level=compression_level,
        max_batch_rows=max_batch_rows,
        max_batch_bytes=max_batch_bytes,
        compression_block_bytes=compression_block_bytes,
    )


__all__ = [
    "RecordBatchFileReader",
    "RecordBatchFileWriter",
    "RecordBatchStreamReader",
    "RecordBatchStreamWriter",
    "codecs",
    "new_file",
    "new_stream",
    "open_file",
    "open_stream",
    "read_sparse_tensor",
    "read_tensor",
    "write_file",
    "write_stream",
    "write_sparse_tensor",
    "write_tensor",
]
