"""Parquet files, read without libarrow: their schema as Arrow types (the
tensor extension types restored from the ARROW:schema key pyarrow writes)
and their metadata (row groups, column chunks, codecs, encodings,
statistics), from a path, bytes, a file object or an http://, https:// or
s3:// URL. docs/parquet.md says what is read and what each check refuses."""

from . import _quiver

__all__ = ["ParquetFile"]


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
        ``has_page_index``). ``statistics`` holds ``min`` and ``max`` as the
        file stores them (PLAIN-encoded bytes) and the counts, each None
        where the writer left it out. IndexError past the last row group."""
        return self._file.row_group(i)

    def __repr__(self):
        return (
            f"<quiver.parquet.ParquetFile: {self.num_rows} rows in {self.num_row_groups} "
            f"row groups, {len(self.column_paths)} columns>"
        )
