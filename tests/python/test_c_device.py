"""The Arrow C Device Data Interface: __arrow_c_device_array__ and
__arrow_c_device_stream__ both ways with pyarrow on the CPU, producers that
offer only the device protocol, memory on another device refused unread,
and device tensors exported on their device."""

import ctypes
import gc

import numpy as np
import pyarrow as pa
import pytest

import quiver as qv
from conftest import capsule_pointer

# --- the C structs, for reading what quiver hands out and for foreign producers


class ArrowArray(ctypes.Structure):
    pass


ReleaseArray = ctypes.CFUNCTYPE(None, ctypes.POINTER(ArrowArray))
ArrowArray._fields_ = [
    ("length", ctypes.c_int64),
    ("null_count", ctypes.c_int64),
    ("offset", ctypes.c_int64),
    ("n_buffers", ctypes.c_int64),
    ("n_children", ctypes.c_int64),
    ("buffers", ctypes.POINTER(ctypes.c_void_p)),
    ("children", ctypes.POINTER(ctypes.POINTER(ArrowArray))),
    ("dictionary", ctypes.c_void_p),
    ("release", ReleaseArray),
    ("private_data", ctypes.c_void_p),
]


class ArrowDeviceArray(ctypes.Structure):
    _fields_ = [
        ("array", ArrowArray),
        ("device_id", ctypes.c_int64),
        ("device_type", ctypes.c_int32),
        ("sync_event", ctypes.c_void_p),
        ("reserved", ctypes.c_int64 * 3),
    ]


PyCapsule_New = ctypes.pythonapi.PyCapsule_New
PyCapsule_New.restype = ctypes.py_object
PyCapsule_New.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_void_p]
CPU, CUDA, CUDA_HOST = 1, 2, 3


def device_fields(capsule):
    """(device_type, device_id, sync_event) of an arrow_device_array capsule."""
    array = ArrowDeviceArray.from_address(capsule_pointer(capsule, b"arrow_device_array"))
    return array.device_type, array.device_id, array.sync_event


def stream_device_type(capsule):
    return ctypes.c_int32.from_address(capsule_pointer(capsule, b"arrow_device_array_stream")).value


class DeviceArrayOnly:
    """A producer with only __arrow_c_device_array__ (as a GPU library may be)."""

    def __init__(self, inner):
        self.inner = inner

    def __arrow_c_device_array__(self, requested_schema=None, **kwargs):
        return self.inner.__arrow_c_device_array__(requested_schema, **kwargs)


class DeviceStreamOnly:
    def __init__(self, inner):
        self.inner = inner

    def __arrow_c_device_stream__(self, requested_schema=None, **kwargs):
        return self.inner.__arrow_c_device_stream__(requested_schema, **kwargs)


class ForeignDeviceArray:
    """An int32 ArrowDeviceArray built by hand, its release calls counted."""

    def __init__(self, device_type, device_id=0, sync_event=None, data=None):
        self.values = np.array([1, 2, 3], np.int32) if data is None else data
        address = 0x1000 if device_type not in (CPU, CUDA_HOST) else self.values.ctypes.data
        self.buffers = (ctypes.c_void_p * 2)(None, address)
        self.releases = 0
        self.release = ReleaseArray(self._release)
        self.struct = ArrowDeviceArray()
        self.struct.array.length = 3
        self.struct.array.n_buffers = 2
        self.struct.array.buffers = self.buffers
        self.struct.array.release = self.release
        self.struct.device_type, self.struct.device_id = device_type, device_id
        self.struct.sync_event = sync_event

    def _release(self, array):
        self.releases += 1
        ctypes.c_void_p.from_address(
            ctypes.addressof(array.contents) + ArrowArray.release.offset
        ).value = None

    def __arrow_c_device_array__(self, requested_schema=None, **kwargs):
        # No destructor: quiver consumes the capsule.
        capsule = PyCapsule_New(ctypes.addressof(self.struct), b"arrow_device_array", None)
        return pa.int32().__arrow_c_schema__(), capsule


def ragged_column():
    rows = [np.arange(6, dtype=np.float32).reshape(2, 3), None, np.ones((1, 3), np.float32)]
    return qv.VariableShapeTensorArray.from_numpy(rows, dim_names=["H", "W"])


def fixed_column():
    return qv.FixedShapeTensorArray.from_numpy(
        np.arange(24, dtype=np.int16).reshape(4, 2, 3),
        dim_names=["H", "W"],
        mask=np.array([False, True, False, False]),
    )


# --- export ------------------------------------------------------------------------


@pytest.mark.parametrize(
    "make",
    [
        lambda: qv.array(pa.array([1, None, 3])),
        fixed_column,
        ragged_column,
        lambda: qv.record_batch(pa.record_batch({"a": [1, 2]})),
    ],
    ids=["Array", "FixedShapeTensorArray", "VariableShapeTensorArray", "RecordBatch"],
)
def test_arrays_export_on_the_cpu(make):
    obj = make()
    schema, array = obj.__arrow_c_device_array__()
    assert "arrow_schema" in repr(schema) and "arrow_device_array" in repr(array)
    assert device_fields(array) == (CPU, -1, None)
    # The same array as the plain protocol gives, as pyarrow sees both.
    cls = pa.RecordBatch if isinstance(obj, qv.RecordBatch) else pa.Array
    plain = cls._import_from_c_capsule(*obj.__arrow_c_array__())
    imported = cls._import_from_c_device_capsule(schema, array)
    assert imported.is_cpu
    assert imported.equals(plain)


def test_tensor_columns_keep_their_extension_types_and_nulls_in_pyarrow():
    col = fixed_column()
    theirs = pa.Array._import_from_c_device_capsule(*col.__arrow_c_device_array__())
    assert isinstance(theirs.type, pa.FixedShapeTensorType)
    assert theirs.type.shape == [2, 3] and theirs.type.dim_names == ["H", "W"]
    assert theirs.is_valid().to_pylist() == [True, False, True, True]
    # pyarrow has no Python class for variable_shape_tensor, but knows the type.
    ragged = pa.Array._import_from_c_device_capsule(*ragged_column().__arrow_c_device_array__())
    assert ragged.type.extension_name == "arrow.variable_shape_tensor"
    assert ragged.null_count == 1
    assert ragged.storage.to_pylist()[2]["shape"] == [1, 3]


def test_requested_schema_for_the_storage_gives_the_storage():
    col = fixed_column()
    storage_schema = pa.list_(pa.int16(), 6).__arrow_c_schema__()
    theirs = pa.Array._import_from_c_device_capsule(*col.__arrow_c_device_array__(storage_schema))
    assert theirs.type == pa.list_(pa.int16(), 6)


@pytest.mark.parametrize(
    "make",
    [
        lambda: qv.table(pa.table({"a": [1, 2, 3]})),
        lambda: qv.chunked_array(pa.chunked_array([[1, 2], [3]])),
    ],
)
def test_streams_export_on_the_cpu(make):
    obj = make()
    capsule = obj.__arrow_c_device_stream__()
    assert "arrow_device_array_stream" in repr(capsule)
    assert stream_device_type(capsule) == CPU


def test_unknown_keywords_are_refused_unless_none():
    col = fixed_column()
    col.__arrow_c_device_array__(future_option=None)
    with pytest.raises(NotImplementedError, match="'future_option'"):
        col.__arrow_c_device_array__(future_option=True)
    table = qv.table(pa.table({"a": [1]}))
    table.__arrow_c_device_stream__(None, other=None)
    with pytest.raises(NotImplementedError, match="'other'"):
        table.__arrow_c_device_stream__(other=1)
    with pytest.raises(NotImplementedError, match="'x'"):
        qv.Tensor.from_numpy(np.ones((2, 2))).__arrow_c_device_array__(x=0)


# --- import ------------------------------------------------------------------------


def test_producers_with_only_the_device_protocol_are_read():
    plain = pa.array([1, None, 3], pa.int64())
    ours = qv.array(DeviceArrayOnly(plain))
    assert isinstance(ours, qv.Array) and ours.to_pylist() == [1, None, 3]
    col = qv.array(DeviceArrayOnly(pa.array(fixed_column())))
    assert isinstance(col, qv.FixedShapeTensorArray)
    assert col.type == fixed_column().type and col.null_count == 1
    np.testing.assert_array_equal(
        col.to_numpy(allow_nulls=True)[2], np.arange(12, 18).reshape(2, 3)
    )
    ragged = qv.array(DeviceArrayOnly(ragged_column()))
    assert isinstance(ragged, qv.VariableShapeTensorArray)
    assert ragged.equals(ragged_column())


def test_batches_tables_and_chunked_arrays_from_device_producers():
    batch = pa.record_batch({"img": pa.array(fixed_column()), "id": [1, 2, 3, 4]})
    ours = qv.record_batch(DeviceArrayOnly(batch))
    assert ours.schema.names == ["img", "id"]
    assert isinstance(ours.column("img"), qv.FixedShapeTensorArray)
    assert pa.record_batch(ours).equals(batch)
    assert qv.table(DeviceArrayOnly(batch)).num_rows == 4
    table = qv.table(pa.Table.from_batches([batch, batch]))
    again = qv.table(DeviceStreamOnly(table))
    assert again.equals(table) and len(again.to_batches()) == 2
    chunked = qv.chunked_array(pa.chunked_array([pa.array(fixed_column())] * 2))
    again = qv.chunked_array(DeviceStreamOnly(chunked))
    assert again.num_chunks == 2 and again.type == fixed_column().type
    assert qv.chunked_array(DeviceArrayOnly(pa.array([1, 2]))).num_chunks == 1


def test_ipc_readers_export_device_streams(tmp_path):
    table = pa.table({"img": pa.array(fixed_column()), "id": [1, 2, 3, 4]})
    path = str(tmp_path / "t.arrow")
    qv.ipc.write_file(table, path)
    capsule = qv.ipc.open_file(path).__arrow_c_device_stream__()
    assert stream_device_type(capsule) == CPU
    del capsule
    assert pa.table(qv.table(DeviceStreamOnly(qv.ipc.open_file(path)))).equals(table)
    sink = pa.BufferOutputStream()
    with pa.ipc.new_stream(sink, table.schema) as writer:
        writer.write_table(table)
    reader = qv.ipc.open_stream(sink.getvalue().to_pybytes())
    assert pa.table(qv.table(DeviceStreamOnly(reader))).equals(table)


def test_the_plain_protocol_is_preferred_when_both_are_offered():
    calls = []
    batch = pa.record_batch({"a": [1, 2]})

    class Both:
        def __arrow_c_array__(self, requested_schema=None):
            calls.append("plain")
            return batch.__arrow_c_array__()

        def __arrow_c_device_array__(self, requested_schema=None, **kwargs):
            calls.append("device")
            return batch.__arrow_c_device_array__()

        def __arrow_c_stream__(self, requested_schema=None):
            calls.append("plain stream")
            return pa.table({"a": [1]}).__arrow_c_stream__()

        def __arrow_c_device_stream__(self, requested_schema=None, **kwargs):
            calls.append("device stream")
            raise AssertionError("not called")

    qv.array(Both())
    qv.record_batch(Both())
    qv.table(Both())
    qv.chunked_array(Both())
    assert len(calls) == 4 and set(calls) <= {"plain", "plain stream"}


def test_a_foreign_cpu_array_is_released_once_when_its_data_dies():
    producer = ForeignDeviceArray(CPU, -1)
    ours = qv.array(producer)
    assert ours.to_pylist() == [1, 2, 3]
    assert producer.releases == 0
    del ours
    gc.collect()
    assert producer.releases == 1


@pytest.mark.parametrize(
    "device_type, name",
    [(CUDA, "CUDA"), (10, "ROCM"), (13, "CUDA_MANAGED"), (99, "device type 99")],
)
def test_arrays_on_another_device_are_refused_unread(device_type, name):
    producer = ForeignDeviceArray(device_type, device_id=1)  # buffers point at 0x1000
    with pytest.raises(
        NotImplementedError,
        match=rf"{name} \(device_type {device_type}, device_id 1\): quiver reads "
        "Arrow arrays in host memory only",
    ):
        qv.array(producer)
    assert producer.releases == 1
    with pytest.raises(NotImplementedError, match="host memory only"):
        qv.record_batch(ForeignDeviceArray(device_type))


def test_pinned_host_memory_is_read_without_an_event_and_refused_with_one():
    producer = ForeignDeviceArray(CUDA_HOST)
    assert qv.array(producer).to_pylist() == [1, 2, 3]
    event = ctypes.c_int(0)
    with pytest.raises(NotImplementedError, match="carries a sync_event"):
        qv.array(ForeignDeviceArray(CUDA_HOST, sync_event=ctypes.addressof(event)))


def test_wrong_capsules_are_type_errors():
    class Wrong:
        def __arrow_c_device_array__(self, requested_schema=None, **kwargs):
            return pa.array([1]).__arrow_c_array__()  # "arrow_array", not a device capsule

    with pytest.raises(TypeError, match="arrow_device_array"):
        qv.array(Wrong())

    class NotAPair:
        def __arrow_c_device_array__(self, requested_schema=None, **kwargs):
            return None

    with pytest.raises(TypeError, match=r"__arrow_c_device_array__\(\) must return"):
        qv.array(NotAPair())


# --- tensors --------------------------------------------------------------------------


class DLDevice(ctypes.Structure):
    _fields_ = [("device_type", ctypes.c_int32), ("device_id", ctypes.c_int32)]


class DLTensor(ctypes.Structure):
    _fields_ = [
        ("data", ctypes.c_void_p),
        ("device", DLDevice),
        ("ndim", ctypes.c_int32),
        ("dtype", ctypes.c_uint8 * 4),
        ("shape", ctypes.POINTER(ctypes.c_int64)),
        ("strides", ctypes.POINTER(ctypes.c_int64)),
        ("byte_offset", ctypes.c_uint64),
    ]


class DLManagedTensor(ctypes.Structure):
    pass


Deleter = ctypes.CFUNCTYPE(None, ctypes.POINTER(DLManagedTensor))
DLManagedTensor._fields_ = [
    ("dl_tensor", DLTensor),
    ("manager_ctx", ctypes.c_void_p),
    ("deleter", Deleter),
]


class CudaTensorProducer:
    """A legacy DLPack capsule of a (2, 3, 4) float32 tensor on CUDA device 1,
    at an address the host must never read."""

    ADDRESS = 0x7F0000000000

    def __init__(self, strides=(12, 4, 1)):
        self.shape = (ctypes.c_int64 * 3)(2, 3, 4)
        self.strides = (ctypes.c_int64 * 3)(*strides)
        self.deletes = 0
        self.deleter = Deleter(self._delete)
        self.managed = DLManagedTensor()
        t = self.managed.dl_tensor
        t.data, t.device, t.ndim = self.ADDRESS, DLDevice(CUDA, 1), 3
        t.dtype[:] = [2, 32, 1, 0]  # float, 32 bits, 1 lane
        t.shape, t.strides = self.shape, self.strides
        self.managed.deleter = self.deleter

    def _delete(self, _):
        self.deletes += 1

    def capsule(self):
        return PyCapsule_New(ctypes.addressof(self.managed), b"dltensor", None)


def test_cpu_tensors_export_as_fixed_shape_tensor_columns():
    x = np.arange(24, dtype=np.float32).reshape(2, 3, 4)
    t = qv.Tensor.from_numpy(x, dim_names=["N", "H", "W"])
    schema, array = t.__arrow_c_device_array__()
    assert device_fields(array) == (CPU, -1, None)
    theirs = pa.Array._import_from_c_device_capsule(schema, array)
    assert isinstance(theirs.type, pa.FixedShapeTensorType)
    assert theirs.type.shape == [3, 4] and theirs.type.dim_names == ["H", "W"]
    np.testing.assert_array_equal(theirs.to_numpy_ndarray(), x)
    # pa.array and qv.array read the device protocol: a column of the rows.
    assert pa.array(t).equals(theirs)
    np.testing.assert_array_equal(qv.array(t).to_numpy(), x)
    # Cells that are not contiguous are copied on the CPU.
    transposed = qv.Tensor.from_numpy(x.transpose(0, 2, 1)[:, ::2])
    theirs = pa.Array._import_from_c_device_capsule(*transposed.__arrow_c_device_array__())
    np.testing.assert_array_equal(theirs.to_numpy_ndarray(), x.transpose(0, 2, 1)[:, ::2])
    with pytest.raises(ValueError, match="ndim >= 1"):
        qv.Tensor.from_numpy(np.array(1.0, np.float32)).__arrow_c_device_array__()


def test_device_tensors_export_on_their_device_unread():
    producer = CudaTensorProducer()
    t = qv.from_dlpack(producer.capsule())
    assert t.device == (CUDA, 1)
    schema, array = t.__arrow_c_device_array__()
    assert device_fields(array) == (CUDA, 1, None)
    struct = ArrowDeviceArray.from_address(capsule_pointer(array, b"arrow_device_array"))
    assert struct.array.length == 2
    values = struct.array.children[0].contents
    assert values.length == 24 and values.buffers[1] == CudaTensorProducer.ADDRESS
    field = pa.Field._import_from_c_capsule(schema)
    assert isinstance(field.type, pa.FixedShapeTensorType)
    assert field.type.shape == [3, 4] and field.type.dim_names is None
    # quiver holds Arrow arrays on the host only: coming back it is refused.
    with pytest.raises(NotImplementedError, match=r"CUDA \(device_type 2, device_id 1\)"):
        qv.array(DeviceArrayOnly(t))
    del t
    gc.collect()
    assert producer.deletes == 0  # the exported array still holds the memory
    del schema, array
    gc.collect()
    assert producer.deletes == 1


def test_device_tensors_that_are_not_row_major_are_refused():
    producer = CudaTensorProducer(strides=(1, 8, 2))
    t = qv.from_dlpack(producer.capsule())
    with pytest.raises(NotImplementedError, match="only when row-major"):
        t.__arrow_c_device_array__()


def cuda_or_skip():
    torch = pytest.importorskip("torch", reason="the CUDA test needs torch with a CUDA device")
    if not torch.cuda.is_available():
        pytest.skip("no CUDA device on this machine")
    return torch


def test_a_cuda_tensor_reaches_a_device_consumer_on_the_gpu():
    torch = cuda_or_skip()
    x = torch.arange(24, dtype=torch.float32, device="cuda").reshape(2, 3, 4)
    t = qv.from_dlpack(x)
    assert t.device == (CUDA, x.device.index)
    schema, array = t.__arrow_c_device_array__()
    assert device_fields(array) == (CUDA, x.device.index, None)
    struct = ArrowDeviceArray.from_address(capsule_pointer(array, b"arrow_device_array"))
    assert struct.array.children[0].contents.buffers[1] == x.data_ptr()
    try:
        import pyarrow.cuda  # noqa: F401
    except ImportError:
        return  # no CUDA-enabled pyarrow to read it back with: the pointers were checked
    theirs = pa.Array._import_from_c_device_capsule(schema, array)
    assert theirs.device_type == pa.DeviceAllocationType.CUDA
