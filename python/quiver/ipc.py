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


def write_file(sink, data, compression=None, compression_level=None):
    """Writes ``data`` (a quiver Table or RecordBatch, or anything with
    ``__arrow_c_stream__`` / ``__arrow_c_array__``) as one IPC file. A
    table is cut into batches as pyarrow's ``write_table`` cuts it (a table
    of no rows gives a file of no batches); a RecordBatch is written as one
    batch, even of zero rows."""
    from . import RecordBatch, table

    if not isinstance(data, RecordBatch):
        data = table(data)
    with new_file(sink, data.schema, compression=compression,
                  compression_level=compression_level) as writer:
        writer.write(data)


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
    "write_sparse_tensor",
    "write_tensor",
]
