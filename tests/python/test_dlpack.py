import ctypes
import gc
import sys

import numpy as np
import pytest

import quiver as qv
from conftest import NUMERIC_DTYPES, sample

# --- an instrumented producer, written with ctypes ---------------------------


class DLDevice(ctypes.Structure):
    _fields_ = [("device_type", ctypes.c_int32), ("device_id", ctypes.c_int32)]


class DLDataType(ctypes.Structure):
    _fields_ = [("code", ctypes.c_uint8), ("bits", ctypes.c_uint8), ("lanes", ctypes.c_uint16)]


class DLTensor(ctypes.Structure):
    _fields_ = [
        ("data", ctypes.c_void_p),
        ("device", DLDevice),
        ("ndim", ctypes.c_int32),
        ("dtype", DLDataType),
        ("shape", ctypes.POINTER(ctypes.c_int64)),
        ("strides", ctypes.POINTER(ctypes.c_int64)),
        ("byte_offset", ctypes.c_uint64),
    ]


class DLManagedTensorVersioned(ctypes.Structure):
    pass


class DLManagedTensor(ctypes.Structure):
    pass


VersionedDeleter = ctypes.CFUNCTYPE(None, ctypes.POINTER(DLManagedTensorVersioned))
LegacyDeleter = ctypes.CFUNCTYPE(None, ctypes.POINTER(DLManagedTensor))
DLManagedTensorVersioned._fields_ = [
    ("major", ctypes.c_uint32),
    ("minor", ctypes.c_uint32),
    ("manager_ctx", ctypes.c_void_p),
    ("deleter", VersionedDeleter),
    ("flags", ctypes.c_uint64),
    ("dl_tensor", DLTensor),
]
DLManagedTensor._fields_ = [
    ("dl_tensor", DLTensor),
    ("manager_ctx", ctypes.c_void_p),
    ("deleter", LegacyDeleter),
]

PyCapsule_New = ctypes.pythonapi.PyCapsule_New
PyCapsule_New.restype = ctypes.py_object
PyCapsule_New.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_void_p]
CAPSULE_NAMES = {True: b"dltensor_versioned", False: b"dltensor"}


class Producer:
    """A (2, 3) float32 tensor behind a capsule whose deleter counts calls."""

    def __init__(self, versioned=True):
        self.data = np.arange(6, dtype=np.float32).reshape(2, 3)
        self.shape = (ctypes.c_int64 * 2)(2, 3)
        self.strides = (ctypes.c_int64 * 2)(3, 1)
        self.calls = 0
        cls = DLManagedTensorVersioned if versioned else DLManagedTensor
        self.managed = cls()
        self.deleter = (VersionedDeleter if versioned else LegacyDeleter)(self._delete)
        self.managed.deleter = self.deleter
        if versioned:
            self.managed.major, self.managed.minor = 1, 0
        t = self.managed.dl_tensor
        t.data = self.data.ctypes.data
        t.device = DLDevice(1, 0)
        t.ndim = 2
        t.dtype = DLDataType(2, 32, 1)
        t.shape = self.shape
        t.strides = self.strides
        self.versioned = versioned

    def _delete(self, _):
        self.calls += 1

    def capsule(self):
        # No destructor: these tests consume every capsule they make.
        return PyCapsule_New(ctypes.addressof(self.managed), CAPSULE_NAMES[self.versioned], None)


def rss_bytes():
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * 4096


# --- NumPy ---------------------------------------------------------------------


class LegacyOnly:
    """A producer that predates max_version: it only hands out legacy capsules."""

    def __init__(self, inner):
        self.inner = inner

    def __dlpack__(self, stream=None):
        return self.inner.__dlpack__()

    def __dlpack_device__(self):
        return self.inner.__dlpack_device__()


@pytest.mark.parametrize("dtype", NUMERIC_DTYPES)
def test_numpy_round_trips_every_dtype_both_struct_versions(dtype):
    x = sample(dtype, (3, 4))
    t = qv.Tensor.from_numpy(x)
    for producer in (t, LegacyOnly(t)):
        y = np.from_dlpack(producer)
        assert y.ctypes.data == x.ctypes.data
        assert not y.flags.writeable  # shared Arrow data is read-only
        np.testing.assert_array_equal(y, x)
    for source in (x, x.__dlpack__()):  # versioned via the object, legacy capsule
        back = qv.from_dlpack(source)
        assert back.to_numpy().ctypes.data == x.ctypes.data
        np.testing.assert_array_equal(back.to_numpy(), x)


@pytest.mark.parametrize(
    "view",
    [
        lambda x: x.T,
        lambda x: x[:, ::2],
        lambda x: x.transpose(2, 0, 1),
        lambda x: x[1:, :0],
        lambda x: x[0, 0, 0],
    ],
)
def test_non_contiguous_permuted_empty_and_0d(view):
    x = sample("float64", (3, 4, 5))
    v = view(x)
    v = np.asarray(v)
    t = qv.from_dlpack(v)
    assert t.shape == v.shape
    assert t.strides == v.strides or v.size == 0
    out = np.from_dlpack(t)
    np.testing.assert_array_equal(out, v)
    if v.size:
        assert out.__array_interface__["data"][0] == v.__array_interface__["data"][0]


def test_fixed_shape_tensor_array_exports_the_whole_column():
    x = sample("int16", (5, 2, 3)).transpose(0, 2, 1)
    a = qv.FixedShapeTensorArray.from_numpy(x)
    y = np.from_dlpack(a)
    assert y.shape == (5, 3, 2) and y.strides == x.strides
    assert y.__array_interface__["data"][0] == x.__array_interface__["data"][0]
    assert a.__dlpack_device__() == (1, 0)


def test_null_rows_refuse_to_export():
    import pyarrow as pa

    storage = pa.array([[1.0, 2.0], None], pa.list_(pa.float32(), 2))
    field = pa.field(
        "t",
        storage.type,
        metadata={
            "ARROW:extension:name": "arrow.fixed_shape_tensor",
            "ARROW:extension:metadata": '{"shape": [2]}',
        },
    )
    from conftest import CapsuleProducer

    a = qv.array(CapsuleProducer(field.__arrow_c_schema__(), storage.__arrow_c_array__()[1]))
    with pytest.raises(BufferError, match="row 1 is null.*allow_nulls=True"):
        np.from_dlpack(a)
    assert np.from_dlpack(a.to_tensor(allow_nulls=True)).shape == (2, 2)


def test_bools():
    import pyarrow as pa

    x = np.array([[True, False, True], [False, False, True]])
    t = qv.from_dlpack(x)
    assert t.type.extension_name == "arrow.bool8"
    y = np.from_dlpack(t)
    assert y.dtype == np.bool_ and y.ctypes.data == x.ctypes.data
    # bool8 columns export zero-copy ...
    bool8_column = qv.FixedShapeTensorArray.from_numpy(x)
    assert np.from_dlpack(bool8_column).ctypes.data == x.ctypes.data
    # ... bit-packed Arrow bools need a copy, refused with copy=False.
    from conftest import CapsuleProducer

    storage = pa.array(x.tolist(), pa.list_(pa.bool_(), 3))
    field = pa.field(
        "t",
        storage.type,
        metadata={
            "ARROW:extension:name": "arrow.fixed_shape_tensor",
            "ARROW:extension:metadata": '{"shape": [3]}',
        },
    )
    packed = qv.array(CapsuleProducer(field.__arrow_c_schema__(), storage.__arrow_c_array__()[1]))
    assert packed.type.value_type.id == "bool"
    unpacked = np.from_dlpack(packed)
    assert unpacked.dtype == np.bool_ and unpacked.flags.writeable
    np.testing.assert_array_equal(unpacked, x)
    with pytest.raises(BufferError, match="bit-packed"):
        packed.__dlpack__(copy=False)


def test_variable_shape_rows_export():
    rows = [np.ones((2, 3), np.float32), np.zeros((4, 1), np.float32)]
    v = qv.VariableShapeTensorArray.from_numpy(rows)
    r = np.from_dlpack(v.row_tensor(1))
    assert r.shape == (4, 1)
    assert r.__array_interface__["data"][0] == v[1].__array_interface__["data"][0]


def test_protocol_errors():
    t = qv.Tensor.from_numpy(np.ones(3))
    with pytest.raises(BufferError, match="stream must be None"):
        t.__dlpack__(stream=1)
    with pytest.raises(BufferError, match="cannot export to device"):
        t.__dlpack__(dl_device=(2, 0))
    assert t.__dlpack_device__() == (1, 0)
    with pytest.raises(TypeError, match="needs an object with __dlpack__"):
        qv.from_dlpack([1, 2, 3])
    with pytest.raises(BufferError, match="CPU only"):
        qv.from_dlpack(np.ones(3), device=(2, 0))

    class Broken:
        def __dlpack__(self, **kwargs):
            raise AttributeError("inside the producer")

    # The producer's own error comes through; only a missing __dlpack__ is
    # quiver's TypeError.
    with pytest.raises(AttributeError, match="inside the producer"):
        qv.from_dlpack(Broken())
    with pytest.raises(TypeError, match="unexpected keyword argument 'stream2'"):
        t.__dlpack__(stream2=None)
    with pytest.raises(TypeError, match="positional"):
        t.__dlpack__(None)
    # A keyword given twice (possible through a hand-made vectorcall, and
    # by position plus keyword for from_dlpack's x).
    with pytest.raises(TypeError, match="multiple values for argument 'x'"):
        qv.from_dlpack(np.ones(2), x=np.ones(2))
    assert np.from_dlpack(qv.from_dlpack(x=np.arange(3.0))).tolist() == [0.0, 1.0, 2.0]


def test_copy_true_gives_a_private_copy():
    x = np.arange(6.0)
    t = qv.Tensor.from_numpy(x)
    capsule_owner = np.from_dlpack(t, copy=True)
    assert capsule_owner.ctypes.data != x.ctypes.data
    assert capsule_owner.flags.writeable  # IS_COPIED: the consumer owns it
    y = qv.from_dlpack(x, copy=True)
    assert y.to_numpy().ctypes.data != x.ctypes.data


# --- ownership -------------------------------------------------------------------


@pytest.mark.parametrize("versioned", [True, False])
def test_deleter_runs_once_on_success(versioned):
    p = Producer(versioned)
    t = qv.from_dlpack(p.capsule())
    np.testing.assert_array_equal(t.to_numpy(), p.data)
    assert p.calls == 0
    del t
    gc.collect()
    assert p.calls == 1


@pytest.mark.parametrize(
    "spoil, error, match",
    [
        (lambda m: setattr(m, "major", 2), NotImplementedError, "version 2.0 is not supported"),
        (lambda m: setattr(m.dl_tensor, "ndim", -1), ValueError, "ndim -1"),
        (lambda m: setattr(m.dl_tensor, "dtype", DLDataType(5, 64, 1)), TypeError, "code 5"),
        (lambda m: setattr(m.dl_tensor, "dtype", DLDataType(6, 1, 1)), TypeError, "code 6, 1 bits"),
        (
            lambda m: (setattr(m.dl_tensor, "data", 16), m.dl_tensor.strides.__setitem__(1, -1000)),
            ValueError,
            "before the start of memory",
        ),
        (lambda m: m.dl_tensor.strides.__setitem__(0, 2**62), ValueError, "overflows"),
        (lambda m: setattr(m.dl_tensor, "data", None), ValueError, "no data"),
    ],
)
def test_deleter_runs_once_on_every_failure(spoil, error, match):
    p = Producer(versioned=True)
    spoil(p.managed)
    capsule = p.capsule()
    with pytest.raises(error, match=match):
        qv.from_dlpack(capsule)
    assert p.calls == 1
    with pytest.raises(BufferError, match="already consumed"):
        qv.from_dlpack(capsule)  # a second attempt
    assert p.calls == 1


def test_second_consumption_raises():
    p = Producer(versioned=False)
    capsule = p.capsule()
    t = qv.from_dlpack(capsule)
    with pytest.raises(BufferError, match="already consumed"):
        qv.from_dlpack(capsule)
    del t
    gc.collect()
    assert p.calls == 1


def test_unconsumed_capsules_release_what_they_hold():
    x = np.arange(10.0)
    before = sys.getrefcount(x)
    t = qv.Tensor.from_numpy(x)
    for kwargs in ({}, {"max_version": (1, 0)}):
        for _ in range(50):
            t.__dlpack__(**kwargs)  # dropped unconsumed
    del t
    gc.collect()
    assert sys.getrefcount(x) == before


def test_round_trips_do_not_leak():
    x = np.arange(64, dtype=np.float32).reshape(8, 8)
    t = qv.Tensor.from_numpy(x)
    for _ in range(2000):  # warm up allocator caches
        np.from_dlpack(t)
        qv.from_dlpack(x)
    gc.collect()
    before = rss_bytes()
    for _ in range(100_000):
        np.from_dlpack(t)
        qv.from_dlpack(x)
    gc.collect()
    assert rss_bytes() - before < 1 << 20


# --- JAX and PyTorch ---------------------------------------------------------------


# JAX keeps 64-bit types off unless jax_enable_x64 is set.
@pytest.mark.parametrize(
    "dtype", ["int8", "int16", "int32", "uint8", "uint16", "uint32", "float16", "float32", "bool"]
)
def test_jax_round_trip(dtype):
    jax = pytest.importorskip("jax")
    jnp = pytest.importorskip("jax.numpy")
    # On the CPU even where JAX defaults to a GPU: the check reads values.
    x = jax.device_put(jnp.asarray(sample(dtype, (3, 4))), jax.devices("cpu")[0])
    for source in (x, x.__dlpack__()):  # the object, and JAX's legacy capsule
        t = qv.from_dlpack(source)
        np.testing.assert_array_equal(t.to_numpy(), np.asarray(x))
        assert t.to_numpy().ctypes.data == x.unsafe_buffer_pointer()
    back = jax.dlpack.from_dlpack(qv.Tensor.from_numpy(np.ascontiguousarray(np.asarray(x))))
    np.testing.assert_array_equal(np.asarray(back), np.asarray(x))


@pytest.mark.parametrize("dtype", NUMERIC_DTYPES + ["bool"])
def test_torch_round_trip(dtype):
    torch = pytest.importorskip("torch")
    if dtype in ("uint16", "uint32", "uint64") and not hasattr(torch, "uint16"):
        pytest.skip("this torch has no unsigned 16/32/64-bit tensors")
    x = sample(dtype, (4, 5)).T  # non-contiguous
    t = qv.Tensor.from_numpy(x)
    y = torch.from_dlpack(t)
    assert y.data_ptr() == x.__array_interface__["data"][0]
    assert tuple(y.shape) == x.shape
    np.testing.assert_array_equal(y.numpy(), x)
    back = qv.from_dlpack(y)
    assert back.to_numpy().__array_interface__["data"][0] == y.data_ptr()


def test_from_dlpack_accepts_negative_strides_zero_copy():
    x = np.arange(12.0).reshape(3, 4)[::-1, ::-2]
    t = qv.from_dlpack(x)
    np.testing.assert_array_equal(t.to_numpy(), x)
    assert t.to_numpy().__array_interface__["data"][0] == x.__array_interface__["data"][0]
    assert t.strides == x.strides
    again = qv.from_dlpack(t)  # quiver re-imports its own export
    np.testing.assert_array_equal(again.to_numpy(), x)
