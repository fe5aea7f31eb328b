"""The training input pipeline: shuffled batches of Arrow IPC data,
gathered straight into NumPy arrays (docs/loader.md).

``BatchReader`` reads whatever ``quiver.dataset`` opens (IPC files and
streams, directories, globs, ``http(s)://`` and ``s3://`` objects,
compressed or not; one schema), orders the rows per epoch (in file order,
a seeded permutation of every row, or a window shuffle), keeps this
shard's rows, and yields one dict of NumPy arrays per batch. The copying
is done in C++ with the GIL released, ``prefetch`` batches ahead on a
background thread. ``MapDataset`` gives the same batch dicts for any rows
asked for (``__getitems__``), for samplers of PyTorch's ``DataLoader``.
"""

import ctypes
import ctypes.util
import multiprocessing
import os
import warnings

from ._quiver.data import BatchReaderOptions as _BatchReaderOptions
from ._quiver.data import _BatchReader

# TorchIterableDataset is there too when torch is installed (it subclasses
# torch.utils.data.IterableDataset), made on first access.
__all__ = ["BatchReader", "MapDataset", "to_torch", "to_jax"]


def _sources(source):
    if isinstance(source, (str, bytes, os.PathLike)):
        return [os.fsdecode(source)]
    if isinstance(source, (list, tuple)):
        if not source:
            raise ValueError("source is an empty list: name at least one file")
        return [
            _sources(s)[0] if isinstance(s, (str, bytes, os.PathLike)) else _bad_source(s)
            for s in source
        ]
    return _bad_source(source)


def _bad_source(source):
    raise TypeError(
        "source must be a path (str or os.PathLike) or a list of paths, got "
        f"{type(source).__name__}"
    )


_INT64_MAX = 2**63 - 1


def _int(value, name, low=None, high=_INT64_MAX):
    """``value`` as an int (a method's argument: an epoch, a batch number);
    ValueError naming ``name`` outside [low, high]."""
    if isinstance(value, bool) or not hasattr(value, "__index__"):
        raise TypeError(f"{name} must be an int, got {type(value).__name__}")
    value = value.__index__()
    if low is not None and value < low:
        raise ValueError(f"{name} must be >= {low}, got {value}")
    if high is not None and value > high:
        raise ValueError(f"{name} must be <= {high}, got {value}")
    return value


def _shard(shard):
    """(rank, world_size) of shard= (None: (0, 1)); the C++ options check
    the numbers."""
    if shard is None:
        return 0, 1
    try:
        rank, world_size = shard
    except (TypeError, ValueError):
        raise TypeError(f"shard must be (rank, world_size), got {shard!r}") from None
    return rank, world_size


# The Python arguments that are not BatchReaderOptions fields of the same
# name: they are converted below.
_RENAMED = {"num_threads": "threads"}
_NOT_OPTIONS = ("source", "shard", "pin_memory")


def _options(arguments):
    """The C++ BatchReaderOptions of a BatchReader's arguments: each field
    converts and range-checks its value as it is set, and BatchReader::Open
    checks how they fit together, so nothing is checked twice."""
    options = _BatchReaderOptions()
    for name, value in arguments.items():
        if name not in _NOT_OPTIONS:
            setattr(options, _RENAMED.get(name, name), value)
    options.rank, options.world_size = _shard(arguments["shard"])
    return options


_CUDA_RUNTIME_NAMES = (
    "libcudart.so",
    "libcudart.so.13",
    "libcudart.so.12",
    "libcudart.so.11.0",
    "cudart64_13.dll",
    "cudart64_12.dll",
)


def _loaded_cuda_runtimes():
    """CUDA runtimes this process has already loaded (PyTorch's, CuPy's),
    read from /proc/self/maps. Pinned memory is allocated through one of
    these when there is one: that is the runtime whose pointer queries
    (torch.Tensor.is_pinned, non_blocking copies) must recognise it."""
    try:
        with open("/proc/self/maps") as maps:
            fields = (line.split(None, 5) for line in maps if "libcudart.so" in line)
            paths = {f[5].strip() for f in fields if len(f) == 6}
    except OSError:
        return []
    return sorted(paths, reverse=True)


def _pip_cuda_runtimes():
    """The CUDA runtimes pip's nvidia packages installed (what PyTorch's
    wheels load), newest first."""
    import glob
    import importlib.util

    try:
        spec = importlib.util.find_spec("nvidia")
    except (ImportError, ValueError):
        return []
    found = []
    for folder in (spec.submodule_search_locations or []) if spec else []:
        found += glob.glob(os.path.join(folder, "*", "lib", "libcudart.so.*"))
    return sorted(found, reverse=True)


def _cuda_host_allocator():
    """(cudaHostAlloc, cudaFreeHost, cudaDeviceSynchronize) addresses from
    the CUDA runtime, or None when there is none (or it has no device). The
    reader synchronizes the device before it writes a pinned buffer again,
    as a copy queued from it may not have run yet."""
    found = ctypes.util.find_library("cudart")
    names = (
        _loaded_cuda_runtimes()
        + _pip_cuda_runtimes()
        + ([found] if found else [])
        + list(_CUDA_RUNTIME_NAMES)
    )
    for name in names:
        try:
            runtime = ctypes.CDLL(name)
        except OSError:
            continue
        count = ctypes.c_int(0)
        try:
            if runtime.cudaGetDeviceCount(ctypes.byref(count)) != 0 or count.value == 0:
                return None
            return tuple(
                ctypes.cast(getattr(runtime, symbol), ctypes.c_void_p).value
                for symbol in ("cudaHostAlloc", "cudaFreeHost", "cudaDeviceSynchronize")
            )
        except AttributeError:
            continue
    return None


class BatchReader:
    """Batches of the rows of Arrow IPC files, one dict of arrays per batch.

    ``source``: what ``quiver.dataset`` opens, or a list of them: IPC
    files and streams, Parquet files, directories (their ``*.arrow``,
    ``*.arrows``, ``*.feather``, ``*.ipc`` and ``*.parquet`` files in name
    order), glob patterns,
    ``http(s)://`` URLs and ``s3://`` objects or prefixes. Every source
    must have the same schema. ``columns`` picks and orders the columns
    (``None``: all; a struct's fields are named ``"parent.child"``).

    Each batch maps names to NumPy arrays, by column type: numeric and
    bool ``(B,)``; dates, times, timestamps and durations their integer
    values ``(B,)``; dictionary columns their indices ``(B,)`` (the
    dictionary once: ``dictionary(name)``); ``fixed_size_list<numeric, k>``
    ``(B, k)``; ``fixed_shape_tensor`` ``(B, *shape)``; strings and binary
    a list of ``str`` or ``bytes`` (``None`` for null rows); struct columns
    one entry per field (``"parent.child"``); any other type (lists of
    strings, nested lists, maps, decimals, ...) a list of Python objects as
    ``to_pylist()`` gives them; ``list<numeric>`` and
    ``variable_shape_tensor`` columns are ragged (below, a list column's
    rows being 1-D). ``valid_masks=["x"]`` adds ``"x_valid"``, a bool
    ``(B,)`` array that is False for null rows of ``x``.

    Ragged columns by ``ragged``:
    ``"padded"`` gives ``name`` ``(B, *max_shape_in_batch)`` filled with
    ``pad_value`` and ``name + "_shape"`` ``(B, ndim)`` int32 (null rows:
    all padding, shape zeros); ``"jagged"`` gives the rows' values back to
    back (``name``), ``name + "_offsets"`` ``(B + 1,)`` int64 and
    ``name + "_shape"``; ``"list"`` gives a list with one read-only array
    per row (``None`` for null rows). Null rows of other columns read as
    zeros.

    The arrays are writable, belong to that batch alone and stay valid
    after later batches: the reader reuses a batch buffer only once no
    array refers to it any more (otherwise it allocates a new one).

    ``shuffle``: ``False`` (file order), ``True`` or ``"global"`` (a seeded
    permutation of every row of every file, new for each epoch), or
    ``"window"`` (record batches in a permuted order, then rows permuted
    within windows of ``window_rows`` rows; by default as many as half the
    cache holds where record batches are decoded, else 64 batches). The
    order depends only on ``seed``, the epoch (``set_epoch``) and the
    record batches' row counts; the plan holds O(record batches), not
    O(rows). ``shard=(rank, world_size)``
    keeps rows ``rank, rank + world_size, ...`` of the epoch; with
    ``drop_last=True`` every shard has the same number of batches.
    ``bucket_by="img", bucket_window=K`` sorts the rows of each window of K
    batches by size before cutting them into batches (``padding_ratio``
    reports the share of padding written). ``prefetch`` batches are
    prepared ahead on a background thread, each copied by ``num_threads``
    threads (``None``: one per core). ``pin_memory=True`` allocates batch
    buffers page-locked through the CUDA runtime, or warns and uses
    ordinary memory when there is none.

    ``memory_map=True`` maps local files (zero-copy; a file truncated
    while the reader is open then kills the process with SIGBUS);
    ``False`` reads each record batch with ``pread`` into memory of its
    own when a batch first needs it, so a truncated or rewritten file
    raises ``OSError`` instead. Compressed, remote and ``pread`` record
    batches are decoded once into the dataset's cache, which keeps up to
    ``cache_bytes`` (256 MiB) of them; ``stats()`` says what it did. ``max_batch_bytes`` (4 GiB)
    caps the bytes of one batch's arrays: a batch that would need more
    (padding rows of very different shapes) raises ``ValueError`` naming
    the rows and their shapes.

    ``state_dict()`` and ``load_state_dict()`` save and restore where an
    epoch is (the epoch, the batches given out, the seed and the shard): a
    reader restored mid-epoch yields exactly the batches the saved one had
    not given out yet.

    The reader works in processes forked after it was used (DataLoader
    workers), pickles (its arguments and epoch: the files are opened again
    where it is unpickled), and is a context manager; ``close()`` stops its
    thread and releases the files.
    """

    def __init__(
        self,
        source,
        *,
        columns=None,
        batch_size,
        shuffle=False,
        seed=0,
        drop_last=False,
        shard=None,
        ragged="padded",
        pad_value=0,
        prefetch=2,
        num_threads=None,
        pin_memory=False,
        window_rows=None,
        bucket_by=None,
        bucket_window=None,
        memory_map=True,
        max_batch_bytes=4 << 30,
        cache_bytes=None,
        valid_masks=None,
    ):
        self._arguments = {k: v for k, v in locals().items() if k != "self"}
        self._resume = False
        sources = _sources(source)
        self._options = _options(self._arguments)
        pinned = None
        if pin_memory:
            pinned = _cuda_host_allocator()
            if pinned is None:
                warnings.warn(
                    "pin_memory=True: no CUDA runtime with a device was found, so "
                    "batch buffers are ordinary (pageable) memory",
                    RuntimeWarning,
                    stacklevel=2,
                )
            else:
                self._options.set_pinned(list(pinned))
        self.pin_memory = pinned is not None
        self._reader = _BatchReader(sources, self._options)

    def close(self):
        """Stops the prefetch thread and releases the files (idempotent);
        arrays of batches already returned stay valid. Any later use
        raises ValueError."""
        self._reader.close()

    @property
    def closed(self):
        return self._reader.closed

    def __enter__(self):
        return self

    def __exit__(self, *exc_info):
        self.close()

    def __reduce__(self):
        # The arguments, not the open files: the receiving process (a
        # spawned DataLoader worker, a Ray task) opens them again.
        return _unpickle_batch_reader, (self._arguments, self.epoch)

    def __iter__(self):
        """The batches of the current epoch, from its first one (iterating
        again starts the epoch over; call ``set_epoch`` for the next)."""
        reader = self._reader
        if not self._resume:
            reader.set_epoch(reader.epoch)
        self._resume = False
        while True:
            batch = reader.next()
            if batch is None:
                return
            yield batch

    def __len__(self):
        """Batches per epoch in this shard."""
        return self._reader.num_batches

    def set_epoch(self, epoch):
        """Makes ``epoch`` (>= 0) the one the next iteration reads. After
        ``load_state_dict``, setting the restored epoch keeps its position
        (the usual ``for e in range(state["epoch"], E): set_epoch(e)``)."""
        epoch = _int(epoch, "epoch", 0)
        if self._resume and epoch == self.epoch:
            return
        self._reader.set_epoch(epoch)
        self._resume = False

    @property
    def position(self):
        """Batches of the current epoch given out so far."""
        return self._reader.position

    def state_dict(self):
        """Where the reader is: a dict of plain values (``epoch``,
        ``position``: batches given out, ``seed``, ``shard``, the
        ``num_rows``, ``batch_size``, ``shuffle`` and ``drop_last`` the
        order depends on, and ``order``, a digest of all of it with the
        record batches and the window), for ``load_state_dict`` here or in
        a new process."""
        options = self._options
        return {
            "epoch": self.epoch,
            "position": self.position,
            "seed": options.seed,
            "shard": (options.rank, options.world_size),
            "num_rows": self.num_rows,
            "batch_size": options.batch_size,
            "shuffle": options.shuffle.name.rstrip("_"),
            "drop_last": options.drop_last,
            "order": self._reader.order_key,
        }

    def load_state_dict(self, state):
        """Continues from a ``state_dict()``: the next iteration yields the
        batches of its epoch from its position on. ValueError naming the
        key when the state belongs to another order (other seed, shard,
        rows, batch size, shuffle or drop_last)."""
        if not isinstance(state, dict):
            raise TypeError(f"state must be a dict from state_dict(), got {type(state).__name__}")
        mine = self.state_dict()
        for key in ("seed", "num_rows", "batch_size", "shuffle", "drop_last", "shard"):
            if key not in state:
                raise ValueError(f"state has no {key!r} (not from BatchReader.state_dict())")
            theirs = tuple(state[key]) if key == "shard" else state[key]
            if theirs != mine[key]:
                raise ValueError(
                    f"state is for {key}={theirs!r}, this reader has {key}={mine[key]!r}: "
                    "the batches would differ"
                )
        if "order" in state and state["order"] != mine["order"]:
            raise ValueError(
                "state is for another order of rows: the record batches, window_rows or "
                "bucketing differ from this reader's, so the batches would differ"
            )
        epoch = _int(state.get("epoch"), "state epoch", 0)
        position = _int(state.get("position"), "state position", 0, len(self))
        self._reader.set_epoch(epoch, position)
        self._resume = True

    def dictionary(self, name):
        """The dictionary of dictionary column ``name`` (a ``quiver.Array``):
        its batches hold indices into it. Every record batch must use an
        equal one (a batch with rows of another raises ValueError)."""
        return self._reader.dictionary(name)

    def stats(self):
        """What the dataset's cache did and the sources read since the
        reader opened: hits, misses, evictions, bytes_decoded,
        bytes_cached, bytes_fetched, requests."""
        return self._reader.stats()

    @property
    def plan_bytes(self):
        """Bytes the current epoch's plan holds (O(record batches), or
        8 bytes a row with bucket_by)."""
        return self._reader.plan_bytes

    @property
    def epoch(self):
        return self._reader.epoch

    @property
    def padding_ratio(self):
        """Padding elements / elements written into padded ragged arrays,
        over the batches read since the epoch started (0.0 when none)."""
        return self._reader.padding_ratio

    @property
    def num_rows(self):
        """Rows in all files."""
        return self._reader.num_rows

    @property
    def files(self):
        return list(self._reader.files)

    @property
    def schema(self):
        return self._reader.schema

    @property
    def output_names(self):
        """The keys of each batch, in order."""
        return list(self._reader.output_names)

    def read_batch(self, i):
        """Batch ``i`` of the current epoch, read now (no prefetch)."""
        i = _int(i, "i")
        if not 0 <= i < len(self):
            raise IndexError(f"batch {i} is out of range for {len(self)} batches")
        return self._reader.read_batch(i)

    def epoch_rows(self):
        """This shard's rows (global row numbers, files in order) in the
        current epoch's order, batch after batch, as an int64 array."""
        return self._reader.epoch_rows()

    def to_torch(self):
        """The batches as dicts of torch tensors (zero-copy through DLPack)."""
        for batch in self:
            yield to_torch(batch)

    def to_jax(self):
        """The batches as dicts of JAX arrays (through DLPack)."""
        for batch in self:
            yield to_jax(batch)

    def __repr__(self):
        if self.closed:
            return "<quiver.data.BatchReader (closed)>"
        return (
            f"<quiver.data.BatchReader {len(self.files)} file(s), {self.num_rows} rows, "
            f"{len(self)} batches per epoch, epoch {self.epoch}>"
        )


class MapDataset:
    """Map-style access to the rows of a dataset: ``ds[indices]`` and
    ``ds.__getitems__(indices)`` return the batch dict a ``BatchReader``
    with the same options makes for those rows (padded or jagged ragged
    arrays, shapes, offsets), in the order asked, repeats allowed.

    ``source``, ``columns``, ``ragged``, ``pad_value``, ``num_threads``,
    ``memory_map``, ``max_batch_bytes``, ``cache_bytes`` and
    ``valid_masks`` are as for ``BatchReader``. ``len(ds)`` is the number
    of rows; ``ds[i]`` (an int) is a batch of that one row. With PyTorch,
    a sampler that yields lists of indices needs no collate function::

        sampler = BatchSampler(DistributedSampler(ds), batch_size=64, drop_last=False)
        loader = DataLoader(ds, batch_size=None, sampler=sampler, num_workers=4)

    (``DataLoader`` turns the arrays into tensors). The dataset works in
    forked and spawned workers (it pickles as its arguments)."""

    def __init__(
        self,
        source,
        *,
        columns=None,
        ragged="padded",
        pad_value=0,
        num_threads=None,
        memory_map=True,
        max_batch_bytes=4 << 30,
        cache_bytes=None,
        valid_masks=None,
    ):
        self._arguments = {k: v for k, v in locals().items() if k != "self"}
        options = {k: v for k, v in self._arguments.items() if k != "source"}
        self._reader = BatchReader(source, batch_size=1, prefetch=0, **options)

    def __len__(self):
        return self._reader.num_rows

    def __getitems__(self, indices):
        """The batch of rows ``indices`` (a list or an integer array)."""
        if self._reader.closed:
            raise ValueError("the MapDataset is closed")
        return self._reader._reader.read_rows(indices)

    def __getitem__(self, key):
        if isinstance(key, slice):
            return self.__getitems__(list(range(*key.indices(len(self)))))
        # An int or a NumPy integer (an array has __index__ too, ndim > 0).
        if hasattr(key, "__index__") and getattr(key, "ndim", 0) == 0 and not isinstance(key, bool):
            index = key.__index__()
            rows = len(self)
            if not -rows <= index < rows:
                raise IndexError(f"row {index} is out of range for a dataset of {rows} rows")
            return self.__getitems__([index % rows])
        # Any other scalar (a float, a bool) is not a row number.
        if getattr(key, "ndim", 0) == 0 and not hasattr(key, "__len__"):
            raise TypeError(f"indices must be integers, got {type(key).__name__}")
        return self.__getitems__(key)

    @property
    def schema(self):
        return self._reader.schema

    @property
    def files(self):
        return self._reader.files

    @property
    def output_names(self):
        return self._reader.output_names

    def stats(self):
        """The dataset cache's statistics (as ``BatchReader.stats``)."""
        return self._reader.stats()

    def close(self):
        self._reader.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc_info):
        self.close()

    def __reduce__(self):
        return _unpickle_map_dataset, (self._arguments,)

    def __repr__(self):
        if self._reader.closed:
            return "<quiver.data.MapDataset (closed)>"
        return f"<quiver.data.MapDataset {len(self.files)} source(s), {len(self)} rows>"


def _unpickle_map_dataset(arguments):
    arguments = dict(arguments)
    return MapDataset(arguments.pop("source"), **arguments)


def _unpickle_batch_reader(arguments, epoch):
    reader = BatchReader(**arguments)
    reader.set_epoch(epoch)
    return reader


def _convert(batch, convert):
    # Arrays of numbers become tensors; strings, bytes and the Python
    # values of the to_pylist() columns stay as they are (no tensor holds
    # them), in lists as alone.
    def one(value):
        if hasattr(value, "__dlpack__") and getattr(value, "dtype", None) is not None:
            if value.dtype.kind not in "OUSV":
                return convert(value)
        return value

    return {
        name: [None if row is None else one(row) for row in value]
        if isinstance(value, list)
        else one(value)
        for name, value in batch.items()
    }


def to_torch(batch):
    """A batch dict with every array of numbers as a torch tensor sharing
    its memory; strings, bytes and other Python values stay as they are."""
    import torch

    return _convert(batch, torch.from_dlpack)


def to_jax(batch):
    """A batch dict with every array of numbers as a JAX array (zero-copy on
    CPU where JAX accepts the memory's alignment, else JAX copies); strings,
    bytes and other Python values stay as they are."""
    import jax.numpy as jnp

    return _convert(batch, jnp.from_dlpack)


def _torch_iterable_dataset():
    import torch.utils.data

    class TorchIterableDataset(torch.utils.data.IterableDataset):
        """A ``torch.utils.data.IterableDataset`` of quiver batches (dicts of
        torch tensors). In a ``DataLoader`` with workers, each worker reads
        its own share: the shard is split again by worker, so ranks x
        workers read disjoint rows. Use ``DataLoader(ds, batch_size=None)``:
        the batches are already made. ``set_epoch`` before each epoch."""

        def __init__(self, source, **options):
            super().__init__()
            self.source = source
            self.options = options
            # Shared memory, so workers a DataLoader keeps between epochs
            # (persistent_workers=True) see set_epoch too: they hold a copy
            # of this object made when they started.
            self._epoch = multiprocessing.RawValue(ctypes.c_int64, 0)
            self._reader = None  # the reader of the running iteration (per process)
            self._pending = None  # a state to resume from (load_state_dict)
            # Fails early on bad options, and gives len().
            self._length = len(BatchReader(source, **{**options, "prefetch": 0}))

        @property
        def epoch(self):
            return self._epoch.value

        def set_epoch(self, epoch):
            epoch = _int(epoch, "epoch", None, None)
            # Checked here: the shared int64 would wrap a larger one
            # silently, and workers would fail on a negative one only later.
            if not 0 <= epoch < 2**63:
                raise ValueError(f"epoch must be in [0, 2^63 - 1], got {epoch}")
            self._epoch.value = epoch

        def __getstate__(self):
            state = self.__dict__.copy()
            # Starting a worker process passes the shared value on; any
            # other pickling (a copy sent elsewhere) takes the epoch's number.
            if multiprocessing.context.get_spawning_popen() is None:
                state["_epoch"] = self._epoch.value
            state["_reader"] = None  # each process opens its own
            return state

        def __setstate__(self, state):
            if isinstance(state["_epoch"], int):
                state["_epoch"] = multiprocessing.RawValue(ctypes.c_int64, state["_epoch"])
            self.__dict__.update(state)

        def __len__(self):
            return self._length

        def __iter__(self):
            options = dict(self.options)
            rank, world_size = _shard(options.pop("shard", None))
            info = torch.utils.data.get_worker_info()
            if info is not None:
                rank = rank * info.num_workers + info.id
                world_size *= info.num_workers
            reader = BatchReader(self.source, shard=(rank, world_size), **options)
            reader.set_epoch(self.epoch)
            if self._pending is not None:
                reader.load_state_dict(self._pending)
                self._pending = None
            self._reader = reader
            return reader.to_torch()

        def state_dict(self):
            """Where this process's iteration is (``BatchReader.state_dict``;
            in a DataLoader worker, that worker's shard): torchdata's
            ``StatefulDataLoader`` saves one per worker."""
            if self._reader is None or self._reader.closed:
                return {"epoch": self.epoch, "position": 0}
            return self._reader.state_dict()

        def load_state_dict(self, state):
            """The next iteration continues from ``state`` (its epoch, and
            its position when it came from a running iteration)."""
            self.set_epoch(state["epoch"])
            self._pending = dict(state) if "seed" in state else None

    # Pickle finds the class by this name (module __getattr__ below), so
    # spawned and forkserver DataLoader workers can receive the dataset.
    TorchIterableDataset.__qualname__ = "TorchIterableDataset"
    return TorchIterableDataset


def __getattr__(name):
    if name == "TorchIterableDataset":
        try:
            cls = _torch_iterable_dataset()
        except ImportError as e:
            # AttributeError, so hasattr() says False and `from quiver.data
            # import TorchIterableDataset` is an ImportError.
            raise AttributeError(
                f"quiver.data.TorchIterableDataset needs torch, which is not installed ({e})"
            ) from e
        globals()[name] = cls
        return cls
    raise AttributeError(f"module 'quiver.data' has no attribute {name!r}")
