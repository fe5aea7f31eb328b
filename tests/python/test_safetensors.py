"""quiver.safetensors: round trips, files the safetensors package writes read
by quiver and the other way round, and hostile files (each a ValueError
naming the file, never a crash)."""

import json
import os
import struct

import numpy as np
import pytest

import quiver as qv

DTYPES = ["bool", "uint8", "int8", "int16", "uint16", "float16", "int32", "uint32", "float32"]
DTYPES += ["float64", "int64", "uint64"]


def sample_tensors():
    rng = np.random.default_rng(0)
    out = {}
    for i, dtype in enumerate(DTYPES):
        shape = [(2, 3), (4,), (), (0, 5), (1, 2, 3)][i % 5]
        out[f"t.{dtype}"] = np.asarray(rng.integers(0, 100, size=shape) % 7).astype(dtype)
    return out


def test_round_trip_is_zero_copy_and_keeps_metadata(tmp_path):
    path = tmp_path / "m.safetensors"
    tensors = sample_tensors()
    qv.safetensors.save(tensors, path, metadata={"format": "np", "note": "é"})
    loaded = qv.safetensors.load(path)
    assert set(loaded) == set(tensors)
    for name, array in tensors.items():
        assert loaded[name].dtype == array.dtype and loaded[name].shape == array.shape
        np.testing.assert_array_equal(loaded[name], array)
        assert not loaded[name].flags.writeable
    with qv.safetensors.open(path) as f:
        assert f.metadata() == {"format": "np", "note": "é"}
        assert "t.int8" in f and len(f) == len(tensors)
        assert f.dtype("t.float32") == "F32" and f.shape("t.float32") == (0, 5)
        assert qv.safetensors.load(path)["t.int8"].base is not None  # a view, no copy
        t = f.get_qv_tensor("t.int16")
        assert isinstance(t, qv.Tensor)
        np.testing.assert_array_equal(np.asarray(t), tensors["t.int16"])
        with pytest.raises(KeyError, match="no tensor named 'nope'"):
            f.get_tensor("nope")


def test_layout_is_the_reference_writers(tmp_path):
    path = tmp_path / "m.safetensors"
    qv.safetensors.save(
        {"b": np.zeros(2, "uint8"), "a": np.zeros(2, "float32"), "c": np.zeros(1, "float64")},
        path,
    )
    raw = path.read_bytes()
    (n,) = struct.unpack("<Q", raw[:8])
    assert n % 8 == 0
    header = json.loads(raw[8 : 8 + n])
    order = sorted((v["data_offsets"], k) for k, v in header.items())
    assert [k for _, k in order] == ["c", "a", "b"]
    assert not list(tmp_path.glob(".*tmp"))  # the temporary file was renamed


def test_inputs_strided_qv_tensor_and_torch(tmp_path):
    path = tmp_path / "m.safetensors"
    base = np.arange(24, dtype=np.int32).reshape(4, 6)
    tensors = {"strided": base[::-1, ::2], "qv": qv.Tensor.from_numpy(base)}
    torch = None
    try:
        import torch
    except ImportError:
        pass
    import importlib.util

    # NumPy arrays of BF16 (what load gives) need ml_dtypes.
    with_bf16 = importlib.util.find_spec("ml_dtypes") is not None
    if torch is not None:
        tensors["torch"] = torch.arange(6, dtype=torch.float32).reshape(2, 3)
        if with_bf16:
            tensors["bf16"] = torch.tensor([1.5, -2.0], dtype=torch.bfloat16)
    qv.safetensors.save(tensors, path)
    loaded = qv.safetensors.load(path)
    np.testing.assert_array_equal(loaded["strided"], base[::-1, ::2])
    np.testing.assert_array_equal(loaded["qv"], base)
    if torch is not None:
        np.testing.assert_array_equal(loaded["torch"], np.arange(6, dtype="f4").reshape(2, 3))
    if torch is not None and with_bf16:
        f = qv.safetensors.open(path)
        assert f.dtype("bf16") == "BF16" and str(loaded["bf16"].dtype) == "bfloat16"
        assert loaded["bf16"].astype(np.float32).tolist() == [1.5, -2.0]


def test_save_refuses_bad_arguments(tmp_path):
    with pytest.raises(TypeError, match="metadata"):
        qv.safetensors.save({"a": np.zeros(1)}, tmp_path / "x", metadata={"k": 1})
    with pytest.raises(ValueError, match="reserved"):
        qv.safetensors.save({"__metadata__": np.zeros(1)}, tmp_path / "x")
    with pytest.raises(TypeError):
        qv.safetensors.save({"a": np.array(["s"])}, tmp_path / "x")
    with pytest.raises(TypeError, match="dict of names"):
        qv.safetensors.save([("a", np.zeros(1))], tmp_path / "x")
    assert not os.listdir(tmp_path)  # nothing left behind


def test_missing_file_is_an_oserror(tmp_path):
    with pytest.raises(OSError):
        qv.safetensors.open(tmp_path / "absent.safetensors")


def write_raw(path, header, data=b"", length=None):
    text = header if isinstance(header, bytes) else json.dumps(header).encode()
    if length == -1:  # no header length at all
        path.write_bytes(text)
        return path
    n = len(text) if length is None else length
    path.write_bytes(struct.pack("<Q", n) + text + data)
    return path


def entry(dtype, shape, begin, end):
    return {"dtype": dtype, "shape": shape, "data_offsets": [begin, end]}


HOSTILE = {
    "truncated": (b"\x01\x02", b"", -1, "too short"),
    "length past end": ({"a": entry("U8", [1], 0, 1)}, b"\0", 10_000, "past the end"),
    "above the cap": (b"{}", b"", 200_000_000, "100000000-byte limit"),
    "bad json": (b'{"a": ', b"", None, "not valid JSON"),
    "not utf-8": (b'{"\xff": 1}', b"", None, "UTF-8"),
    "unknown dtype": ({"a": entry("C64", [1], 0, 8)}, b"\0" * 8, None, "unknown dtype 'C64'"),
    "wrong byte count": ({"a": entry("F32", [3], 0, 8)}, b"\0" * 8, None, "needs 12 bytes"),
    "outside": ({"a": entry("U8", [16], 0, 16)}, b"\0" * 8, None, "outside the data section"),
    "overlap": (
        {"a": entry("U8", [2], 0, 2), "b": entry("U8", [2], 1, 3)},
        b"\0" * 3,
        None,
        "overlap",
    ),
    "gap": (
        {"a": entry("U8", [1], 0, 1), "b": entry("U8", [1], 2, 3)},
        b"\0" * 3,
        None,
        "leave a gap",
    ),
    "trailing bytes": ({"a": entry("U8", [1], 0, 1)}, b"\0" * 4, None, "which holds 4 bytes"),
    "duplicate": (
        b'{"a":{"dtype":"U8","shape":[1],"data_offsets":[0,1]},'
        b'"a":{"dtype":"U8","shape":[1],"data_offsets":[1,2]}}',
        b"\0\0",
        None,
        "appears twice",
    ),
    "negative shape": ({"a": entry("U8", [-1], 0, 1)}, b"\0", None, "non-negative"),
    "bad metadata": ({"__metadata__": {"k": 1}}, b"", None, "__metadata__"),
}


@pytest.mark.parametrize("case", HOSTILE, ids=list(HOSTILE))
def test_hostile_files_are_value_errors_naming_the_file(tmp_path, case):
    header, data, length, message = HOSTILE[case]
    path = write_raw(tmp_path / "bad.safetensors", header, data, length)
    with pytest.raises(ValueError, match=message) as raised:
        qv.safetensors.load(path)
    assert "bad.safetensors" in str(raised.value)


# --- against the safetensors package ----------------------------------------


def test_files_the_safetensors_package_writes_read_equal(tmp_path):
    st = pytest.importorskip("safetensors.numpy", reason="needs the safetensors package")
    path = tmp_path / "ref.safetensors"
    tensors = sample_tensors()
    st.save_file(tensors, str(path), metadata={"format": "np"})
    loaded = qv.safetensors.load(path)
    assert set(loaded) == set(tensors)
    for name, array in tensors.items():
        assert loaded[name].dtype == array.dtype
        np.testing.assert_array_equal(loaded[name], array)
    assert qv.safetensors.open(path).metadata() == {"format": "np"}


def test_files_quiver_writes_read_equal_by_the_safetensors_package(tmp_path):
    st = pytest.importorskip("safetensors.numpy", reason="needs the safetensors package")
    from safetensors import safe_open

    path = tmp_path / "qv.safetensors"
    tensors = sample_tensors()
    qv.safetensors.save(tensors, path, metadata={"k": "v"})
    loaded = st.load_file(str(path))
    assert set(loaded) == set(tensors)
    for name, array in tensors.items():
        assert loaded[name].dtype == array.dtype
        np.testing.assert_array_equal(loaded[name], array)
    with safe_open(str(path), framework="np") as f:
        assert f.metadata() == {"k": "v"}
        np.testing.assert_array_equal(f.get_tensor("t.float64"), tensors["t.float64"])
    # Byte for byte what the reference writes for the same tensors.
    ref = tmp_path / "ref.safetensors"
    st.save_file(tensors, str(ref), metadata={"k": "v"})
    assert path.read_bytes() == ref.read_bytes()


def test_ml_dtypes_bfloat16_is_written_as_bf16(tmp_path):
    ml_dtypes = pytest.importorskip("ml_dtypes", reason="needs ml_dtypes")
    path = tmp_path / "bf.safetensors"
    values = np.array([1.5, -2.0, 3.0], dtype=ml_dtypes.bfloat16)
    qv.safetensors.save({"a": values, "f8": values.astype(ml_dtypes.float8_e4m3fn)}, path)
    f = qv.safetensors.open(path)
    assert f.dtype("a") == "BF16" and f.dtype("f8") == "F8_E4M3"
    np.testing.assert_array_equal(f.get_tensor("a"), values)
    assert f.get_tensor("a").dtype == ml_dtypes.bfloat16
    assert f.get_qv_tensor("f8").dtype == ml_dtypes.float8_e4m3fn
    st = pytest.importorskip("safetensors.torch", reason="needs safetensors and torch")
    assert st.load_file(str(path))["a"].tolist() == [1.5, -2.0, 3.0]
