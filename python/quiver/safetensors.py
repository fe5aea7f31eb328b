"""safetensors files (Hugging Face's weights format): read memory-mapped and
zero-copy, written atomically in the reference writer's layout. Names follow
the ``safetensors`` package (``load``, ``save``, ``safe_open``-like
``open``); ``read_table`` / ``write_table`` (named as pyarrow.parquet's)
convert a file to and from a one-row ``qv.Table``, the form ``quiver
convert`` writes to Arrow files. docs/safetensors.md says what is checked
and how dtypes map."""

import os

from . import _quiver

__all__ = ["SafetensorsFile", "load", "open", "read_table", "save", "write_table"]


class SafetensorsFile:
    """An opened safetensors file (``safetensors.safe_open`` for NumPy):
    the header is checked when it opens; each tensor is a read-only view of
    the memory-mapped file, made when asked for. BF16, F8_E4M3 and F8_E5M2
    tensors are quiver's bfloat16, float8_e4m3fn and float8_e5m2; as NumPy
    arrays they have the ml_dtypes dtypes of those names (ModuleNotFoundError
    naming the ``ml_dtypes`` extra when it is not installed;
    ``get_qv_tensor`` needs nothing)."""

    def __init__(self, path):
        self._path = os.fspath(path)
        self._file = _quiver._safetensors_open(self._path)

    def keys(self):
        """Tensor names, in the order of their data in the file."""
        return self._file.keys()

    def metadata(self):
        """The ``__metadata__`` map ({} when the file has none)."""
        return self._file.metadata()

    def _entry(self, name):
        entry = self._file.entry(name)
        if entry is None:
            raise KeyError(f"{self._path!r} has no tensor named {name!r}")
        return entry

    def dtype(self, name):
        """The tensor's safetensors dtype: 'F32', 'BF16', ..."""
        return self._entry(name)[0]

    def shape(self, name):
        """The tensor's shape, read from the header alone."""
        return self._entry(name)[1]

    def get_tensor(self, name):
        """The tensor as a read-only NumPy array over the file (zero-copy)."""
        self._entry(name)
        return self._file.numpy(name)

    def get_qv_tensor(self, name):
        """The tensor as a ``qv.Tensor`` over the file (zero-copy)."""
        self._entry(name)
        return self._file.tensor(name)

    def __contains__(self, name):
        return self._file.entry(name) is not None

    def __len__(self):
        return len(self._file.keys())

    def __iter__(self):
        return iter(self._file.keys())

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False

    def __repr__(self):
        return f"<quiver.safetensors.SafetensorsFile {self._path!r}, {len(self)} tensors>"


def open(path):
    """Opens a safetensors file, memory-mapped. ValueError naming the file
    (and tensor) when it breaks a rule of the format; OSError when it cannot
    be read."""
    return SafetensorsFile(path)


def load(path):
    """Every tensor of a safetensors file: {name: read-only NumPy array},
    zero-copy views of the memory-mapped file (as
    ``safetensors.numpy.load_file``, which copies)."""
    f = SafetensorsFile(path)
    return {name: f.get_tensor(name) for name in f.keys()}


def _as_tensor(name, value):
    if not isinstance(name, str):
        raise TypeError(f"tensor names are str, got {type(name).__name__}")
    if type(value).__module__.startswith("torch"):
        value = value.detach().cpu()
    if not isinstance(value, _quiver.Tensor):
        # bfloat16 / float8 torch tensors arrive through DLPack and ml_dtypes
        # arrays as views of their bits, both as quiver's types of those names.
        value = _quiver.Tensor.from_numpy(value)
    return (name, value, "")


def _check_metadata(metadata):
    if not isinstance(metadata, dict) or not all(
        isinstance(k, str) and isinstance(v, str) for k, v in metadata.items()
    ):
        raise TypeError("metadata= is a dict of str to str")


def save(tensors, path, metadata=None):
    """Writes ``tensors`` ({name: NumPy array, ``qv.Tensor``, or anything
    with ``__dlpack__`` such as a torch tensor}) and ``metadata`` ({str:
    str}) to ``path`` as a safetensors file: under a temporary name renamed
    over ``path`` once complete, tensors ordered as the reference writer
    orders them (widest dtype first, then by name). bfloat16 / float8_e4m3fn
    / float8_e5m2 tensors (quiver's, torch's, ml_dtypes arrays) are written
    as BF16 / F8_E4M3 / F8_E5M2."""
    if metadata is None:
        metadata = {}
    _check_metadata(metadata)
    if isinstance(tensors, _quiver.Table):
        raise TypeError("tensors is a dict of names to arrays; write_table() writes a qv.Table")
    if not isinstance(tensors, dict):
        raise TypeError(f"tensors is a dict of names to arrays, got {type(tensors).__name__}")
    items = [_as_tensor(name, value) for name, value in tensors.items()]
    _quiver._safetensors_save(items, os.fspath(path), metadata)


def read_table(source):
    """A safetensors file as a one-row ``qv.Table``: one
    ``fixed_shape_tensor`` column per tensor, in the order of their data,
    named after it, its field metadata ``{"safetensors.dtype": "F32"}`` (so
    BF16 / F8 columns, which hold their bits as uint16 / uint8, keep their
    meaning); ``__metadata__`` as the schema's metadata. ``source`` is a path
    or a file from ``open()``. Zero-copy: every column views the
    memory-mapped file, which stays mapped while the table (or anything
    taken from it) lives."""
    if not isinstance(source, SafetensorsFile):
        source = SafetensorsFile(source)
    return _quiver._safetensors_to_table(source._file)


def write_table(table, path, metadata=None):
    """Writes a one-row table of ``fixed_shape_tensor`` columns (as
    ``read_table`` makes it, in any chunks) to ``path`` as a safetensors
    file: one tensor per column, named after it, atomically as ``save``.
    ``table`` is a ``qv.Table``, a ``qv.RecordBatch`` or any Arrow stream
    producer (a pyarrow Table: imported without a copy). A column's
    ``safetensors.dtype`` field metadata BF16 / F8_E4M3 / F8_E5M2 writes its
    bits as that dtype; otherwise the element type decides (permuted columns
    are written row-major). ``metadata`` ({str: str}) replaces the schema's
    metadata as ``__metadata__``; None keeps the schema's. ValueError for a
    table of other than one row, a column of another type (named) or a null
    row. Returns the number of tensors written."""
    if metadata is not None:
        _check_metadata(metadata)
    if not isinstance(table, _quiver.Table):
        if not hasattr(table, "__arrow_c_stream__") and not hasattr(table, "__arrow_c_array__"):
            raise TypeError(
                "write_table() takes a qv.Table, a qv.RecordBatch or an Arrow stream "
                f"producer such as a pyarrow Table, got {type(table).__name__} "
                "(save() writes a dict of arrays)"
            )
        table = _quiver.table(table)
    return _quiver._safetensors_from_table(table, os.fspath(path), metadata)
