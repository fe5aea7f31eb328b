"""Parquet files, read without libarrow: their schema as Arrow types (the
tensor extension types restored from the ARROW:schema key pyarrow writes),
their metadata (row groups, column chunks, codecs, encodings, statistics)
and their columns, from a path, bytes, a file object or an http://,
https:// or s3:// URL; and tables written as Parquet files
(``write_table``, or a batch at a time with ``ParquetWriter``).
docs/parquet.md says what is read and written and what each check
refuses."""

import operator
import os

from . import _quiver

__all__ = ["ParquetFile", "ParquetWriter", "codecs", "read_table", "write_table"]


def codecs():
    """The page codecs this build of quiver reads, by their Parquet names
    ("UNCOMPRESSED", "SNAPPY", "ZSTD", "LZ4_RAW", "LZ4", "GZIP"). A source
    build leaves out those whose library it did not find."""
    return _quiver._parquet_codecs()


def _column_names(columns):
    if columns is None:
        return None
    if isinstance(columns, (str, bytes)):
        raise TypeError(f"columns must be a list of column names, not {type(columns).__name__}")
    names = list(columns)
    for name in names:
        if not isinstance(name, str):
            raise TypeError(f"columns must be a list of column names (str), not {name!r}")
    return names


def _index(name, value):
    """An int (or anything with __index__, such as NumPy's integers; not a
    bool) for argument `name`."""
    if isinstance(value, bool):
        raise TypeError(f"{name} must be an int, not bool")
    try:
        return operator.index(value)
    except TypeError:
        raise TypeError(f"{name} must be an int, not {type(value).__name__}") from None


def read_table(source, columns=None, *, row_groups=None, memory_map=True, threads=0):
    """The file's columns as a ``qv.Table``, one chunk per row group.

    ``columns`` names the top-level fields to read (all by default): only
    their column chunks are read and decoded. ``row_groups`` picks row
    groups by index (negative counts from the end). Values are decoded into
    memory of their own (never views of the file). Tensor columns come back
    with their extension types when the file's ARROW:schema key records
    them. Errors name the column, row group and page."""
    return ParquetFile(source, memory_map=memory_map).read(
        columns, row_groups=row_groups, threads=threads
    )


class ParquetFile:
    """An opened Parquet file: its footer is read (the leading magic and
    the last 64 KiB in one read for most files) and checked against itself
    when it opens. A path is memory-mapped unless ``memory_map=False``."""

    def __init__(self, source, *, memory_map=True):
        self._file = _quiver._parquet_open(source, memory_map)

    @property
    def schema(self):
        """The Arrow schema the columns read as (a ``qv.Schema``)."""
        return self._file.schema

    @property
    def num_rows(self):
        return self._file.num_rows

    @property
    def num_row_groups(self):
        return self._file.num_row_groups

    @property
    def column_paths(self):
        """Each leaf column's path in the Parquet schema, joined with '.'
        ("l.list.element"), in column chunk order."""
        return self._file.column_paths

    @property
    def metadata(self):
        """The file's metadata as a dict: ``num_rows``, ``num_row_groups``,
        ``created_by``, ``format_version`` and ``key_value_metadata`` (bytes
        to bytes, ARROW:schema included)."""
        f = self._file
        return {
            "num_rows": f.num_rows,
            "num_row_groups": f.num_row_groups,
            "created_by": f.created_by,
            "format_version": f.format_version,
            "key_value_metadata": f.key_value_metadata,
        }

    def row_group(self, i):
        """Row group ``i`` (negative counts from the end) as a dict:
        ``num_rows``, ``total_byte_size`` and ``columns``, one dict per
        column chunk (``path``, ``physical_type``, ``codec``, ``encodings``,
        ``num_values``, ``compressed_size``, ``uncompressed_size``,
        ``data_page_offset``, ``dictionary_page_offset``, ``statistics``,
        ``has_page_index``, ``has_offset_index``, ``has_column_index``).
        ``statistics`` holds ``min`` and ``max`` as the file stores them
        (PLAIN-encoded bytes) and the counts, each None where the writer
        left it out. IndexError past the last row group."""
        return self._file.row_group(i)

    def _chunk(self, row_group, column):
        count = self.num_row_groups
        row_group = _index("row_group", row_group)
        if row_group < -count or row_group >= count:
            raise IndexError(f"row group {row_group} of a file with {count} row groups")
        paths = self.column_paths
        if isinstance(column, str):
            if column not in paths:
                raise ValueError(f"no leaf column {column!r} (the file's: {', '.join(paths)})")
            column = paths.index(column)
        else:
            try:
                column = _index("column", column)
            except TypeError:
                raise TypeError(
                    "column must be an int or a leaf column's path (str), "
                    f"not {type(column).__name__}"
                ) from None
        if column < -len(paths) or column >= len(paths):
            raise IndexError(f"column {column} of a file with {len(paths)} leaf columns")
        return row_group % count, column % len(paths)

    def offset_index(self, row_group, column):
        """The offset index of a column chunk: a list with a dict per data
        page (``offset`` of its header in the file, ``compressed_page_size``
        in bytes with the header, ``first_row_index`` within the row group),
        or None when the chunk has none. ``column`` is a leaf column's index
        or its path as ``column_paths`` gives it; negative indexes count from
        the end. The index is read from the file on each call. ValueError
        naming the file, row group and column for an index that lies outside
        the file or does not decode."""
        return self._file.offset_index(*self._chunk(row_group, column))

    def column_index(self, row_group, column):
        """The column index of a column chunk as a dict, or None when the
        chunk has none: per data page ``null_pages`` (True: nulls only),
        ``min_values`` and ``max_values`` (bytes, PLAIN-encoded like the
        statistics' min and max; empty for a page of nulls), ``null_counts``
        (None where the writer left them out), and ``boundary_order``
        ("unordered", "ascending" or "descending"). ``column`` as for
        ``offset_index``."""
        return self._file.column_index(*self._chunk(row_group, column))

    def read(self, columns=None, *, row_groups=None, threads=0):
        """The columns ``columns`` (all by default) of the row groups
        ``row_groups`` (all by default) as a ``qv.Table``, one chunk per
        row group (see ``read_table``)."""
        groups = None if row_groups is None else [int(g) for g in row_groups]
        return self._file.read(_column_names(columns), groups, threads)

    def read_row_group(self, i, columns=None, *, threads=0):
        """Row group ``i`` (negative counts from the end) as a
        ``qv.RecordBatch``. IndexError past the last row group."""
        return self._file.read_row_group(i, _column_names(columns), threads)

    def read_row_range(self, row_group, first, count, columns=None, *, threads=0):
        """Rows ``first`` to ``first + count`` of row group ``row_group``
        (negative counts from the end) as a ``qv.RecordBatch``. A column
        whose leaves are not under a list and have offset indexes (see
        ``offset_index``) reads only the pages that hold those rows; others
        read their whole column chunks. IndexError for rows past the row
        group's end."""
        return self._file.read_row_range(
            _index("row_group", row_group),
            _index("first", first),
            _index("count", count),
            _column_names(columns),
            threads,
        )

    def read_row_groups(self, row_groups, columns=None, *, threads=0):
        """The row groups ``row_groups``, in that order, as a ``qv.Table``."""
        return self.read(columns, row_groups=row_groups, threads=threads)

    def __repr__(self):
        return (
            f"<quiver.parquet.ParquetFile: {self.num_rows} rows in {self.num_row_groups} "
            f"row groups, {len(self.column_paths)} columns>"
        )


def write_table(
    table,
    where,
    *,
    row_group_size=None,
    data_page_size=None,
    compression="snappy",
    compression_level=None,
    use_dictionary=True,
    use_byte_stream_split=False,
    write_statistics=True,
    data_page_version="1.0",
    dictionary_pagesize_limit=None,
    write_page_index=False,
):
    """Writes ``table`` (a ``qv.Table`` or ``qv.RecordBatch``, or anything
    with ``__arrow_c_stream__`` / ``__arrow_c_array__``, as ``qv.table``
    takes it) as a Parquet file to ``where``: a path (str or PathLike),
    written under a temporary name beside it and put in place only once
    complete, or a writable binary file object.

    The arguments mean what pyarrow's ``pq.write_table``'s do:
    ``row_group_size`` rows per row group at most (None: 1Mi rows),
    ``data_page_size`` bytes of values per data page (None: 1 MiB),
    ``compression`` one of "none"/"uncompressed", "snappy", "zstd" or
    "lz4" (LZ4_RAW), ``compression_level`` (None: the codec's default),
    ``use_dictionary`` dictionary-encodes every column but booleans
    (falling back to PLAIN for a column chunk whose dictionary passes 1
    MiB, or ``dictionary_pagesize_limit`` bytes), ``use_byte_stream_split``
    writes FLOAT and DOUBLE columns as BYTE_STREAM_SPLIT,
    ``write_statistics`` min/max/null_count per column chunk,
    ``data_page_version`` "1.0" or "2.0", ``write_page_index`` a column
    index and an offset index per column chunk (and statistics per data
    page go in the page headers whenever ``write_statistics`` is on). The
    Arrow schema is stored under ARROW:schema, so pyarrow and quiver
    restore extension types (arrow.fixed_shape_tensor, ...), durations,
    large and fixed-size lists.
    docs/parquet.md, "Writing"."""
    options = _write_options(locals())
    _quiver._parquet_write(_tabular(table), _destination(where), options)


# write_table's and ParquetWriter's options, as the binding takes them.
_WRITE_OPTIONS = (
    "row_group_size",
    "data_page_size",
    "compression",
    "compression_level",
    "use_dictionary",
    "use_byte_stream_split",
    "write_statistics",
    "data_page_version",
    "dictionary_pagesize_limit",
    "write_page_index",
)


def _write_options(arguments):
    """The write options among a caller's ``arguments`` (its locals()),
    checked."""
    options = {name: arguments[name] for name in _WRITE_OPTIONS}
    compression = options["compression"]
    data_page_version = options["data_page_version"]
    if compression is None:
        compression = "uncompressed"
    if not isinstance(compression, str):
        raise TypeError(f"compression must be a str, not {type(compression).__name__}")
    if data_page_version not in ("1.0", "2.0"):
        raise ValueError(f"data_page_version must be '1.0' or '2.0', not {data_page_version!r}")
    flags = ("use_dictionary", "use_byte_stream_split", "write_statistics")
    if not all(isinstance(options[flag], bool) for flag in flags):
        raise TypeError(
            "use_dictionary, use_byte_stream_split and write_statistics must be bools "
            "(per-column lists are not supported)"
        )
    if not isinstance(options["write_page_index"], bool):
        raise TypeError(
            f"write_page_index must be a bool, not {type(options['write_page_index']).__name__}"
        )
    options["compression"] = compression
    options["data_page_version"] = 1 if data_page_version == "1.0" else 2
    return options


def _tabular(data):
    """A dict or list of columns as the table ``qv.table`` makes of them;
    anything else as it is (the binding takes tables, batches and Arrow
    data)."""
    if isinstance(data, (dict, list)):
        from . import table

        return table(data)
    return data


def _destination(where):
    """A path as str, or a writable file object as it is."""
    if isinstance(where, (str, os.PathLike)):
        path = os.fspath(where)
        return os.fsdecode(path) if isinstance(path, bytes) else path
    if not hasattr(where, "write"):
        raise TypeError(
            f"where must be a path or a writable binary file object, not {type(where).__name__}"
        )
    return where


class ParquetWriter:
    """A Parquet file written a table or batch at a time, for data larger
    than memory: ``where`` and the options are those of ``write_table``;
    ``schema`` is the schema every table written must have (a
    ``qv.Schema``, or anything with ``__arrow_c_schema__``, such as a
    pyarrow schema).

    ``write_table(table)`` / ``write_batch(batch)`` / ``write(data)`` write
    the rows they are given as row groups of at most ``row_group_size``
    rows before returning: nothing is held back between calls, so memory
    stays at one call's rows (pass batches the size of the row groups you
    want). ``close()`` writes the footer and, for a path, puts the file in
    place (until then it is a hidden temporary file beside it). As a
    context manager, a block left by an exception leaves no file at a path
    (a file object gets the footer, so what was written stays readable). A
    table with other column types is a TypeError and the writer goes on; a
    failed write (a full disk) is raised by that call and every later one."""

    def __init__(
        self,
        where,
        schema,
        *,
        row_group_size=None,
        data_page_size=None,
        compression="snappy",
        compression_level=None,
        use_dictionary=True,
        use_byte_stream_split=False,
        write_statistics=True,
        data_page_version="1.0",
        dictionary_pagesize_limit=None,
        write_page_index=False,
    ):
        options = _write_options(locals())
        if schema is None:
            raise TypeError(
                "schema must be a qv.Schema or have __arrow_c_schema__ (a pyarrow schema), not None"
            )
        self._writer = _quiver._parquet_writer(_destination(where), schema, options)

    def write_table(self, table):
        """Writes ``table``'s rows (a ``qv.Table``, or anything ``qv.table``
        takes) as row groups, whatever its chunks."""
        self._writer.write_table(_tabular(table))

    def write_batch(self, batch):
        """Writes one record batch's rows as row groups."""
        self._writer.write_batch(batch)

    def write(self, data):
        """Writes a table or a batch."""
        self._writer.write(_tabular(data))

    def close(self):
        """Writes the footer; a second call says what the first did."""
        self._writer.close()

    def __enter__(self):
        return self

    def __exit__(self, exc_type, exc_value, traceback):
        return self._writer.__exit__(exc_type, exc_value, traceback)
