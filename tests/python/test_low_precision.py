"""bfloat16, float8_e4m3fn and float8_e5m2 elements: names, NumPy through
ml_dtypes, DLPack with torch and JAX, IPC (and what pyarrow sees),
safetensors, padding and sparse conversions, checked against the real
libraries: values and shapes equal both ways."""

import subprocess
import sys

import numpy as np
import pytest

import quiver as qv

ml_dtypes = pytest.importorskip("ml_dtypes", reason="needs ml_dtypes")

NAMES = ["bfloat16", "float8_e4m3fn", "float8_e5m2"]
# The storage pyarrow (or any Arrow reader without quiver) sees.
STORAGE = {"bfloat16": "uint16", "float8_e4m3fn": "uint8", "float8_e5m2": "uint8"}


def sample(name, shape=(2, 3, 4)):
    """Values every format holds exactly: small halves, a negative zero."""
    values = (np.arange(np.prod(shape), dtype=np.float32) - 5) / 2
    values[1] = -0.0
    return values.reshape(shape).astype(getattr(ml_dtypes, name))


def same(a, b):
    """Equal shape, dtype and bits (so -0.0 and NaN count too)."""
    a, b = np.asarray(a), np.asarray(b)
    assert a.shape == b.shape and a.dtype == b.dtype
    bits = "u2" if a.dtype.itemsize == 2 else "u1"
    np.testing.assert_array_equal(a.view(bits), b.view(bits))


@pytest.mark.parametrize("name", NAMES)
def test_names_are_value_types(name):
    t = qv.type_for(name)
    assert str(t) == name
    assert t == qv.type_for(np.dtype(getattr(ml_dtypes, name)))
    assert t.to_numpy_dtype() == np.dtype(getattr(ml_dtypes, name))
    column = qv.fixed_shape_tensor(name, (2, 2))
    assert column.value_type == t


@pytest.mark.parametrize("name", NAMES)
def test_numpy_round_trip_is_zero_copy(name):
    x = sample(name)
    t = qv.Tensor.from_numpy(x)
    assert str(t.type) == name and t.shape == x.shape
    back = np.asarray(t)
    same(back, x)
    assert np.shares_memory(back, x)
    column = qv.FixedShapeTensorArray.from_numpy(x)
    same(column.to_numpy(), x)
    assert np.shares_memory(column.to_numpy(), x)
    ragged = qv.VariableShapeTensorArray.from_numpy([x[0], x[1, :2]])
    same(ragged[1], x[1, :2])


@pytest.mark.parametrize("name", NAMES)
def test_one_dimensional_arrays_are_columns(name):
    x = sample(name, (5,))
    table = qv.table({"c": x})
    assert table.column("c").type == qv.type_for(name)
    assert table.column("c").to_pylist() == x.astype(np.float32).tolist()


@pytest.mark.parametrize("name", NAMES)
def test_torch_dlpack_both_ways(name):
    torch = pytest.importorskip("torch", reason="needs torch")
    x = sample(name)
    t = qv.Tensor.from_numpy(x)
    theirs = torch.from_dlpack(t)
    assert theirs.dtype == getattr(torch, name) and tuple(theirs.shape) == x.shape
    np.testing.assert_array_equal(theirs.float().numpy(), x.astype(np.float32))
    made = (torch.arange(12, dtype=torch.float32).reshape(3, 4) / 4).to(getattr(torch, name))
    ours = qv.from_dlpack(made)
    assert str(ours.type) == name and ours.shape == (3, 4)
    np.testing.assert_array_equal(np.asarray(ours).astype(np.float32), made.float().numpy())
    # A strided torch view comes across with its strides.
    ours_t = qv.from_dlpack(made.T)
    np.testing.assert_array_equal(np.asarray(ours_t).astype(np.float32), made.T.float().numpy())


@pytest.mark.parametrize("name", NAMES)
def test_jax_dlpack_both_ways(name):
    jnp = pytest.importorskip("jax.numpy", reason="needs jax")
    x = sample(name)
    theirs = jnp.from_dlpack(qv.Tensor.from_numpy(x))
    assert theirs.dtype == getattr(jnp, name) and theirs.shape == x.shape
    same(np.asarray(theirs), x)
    # On the CPU, where JAX puts arrays on a GPU when it has one.
    jax = pytest.importorskip("jax")
    made = jax.device_put(jnp.asarray(x[1]), jax.devices("cpu")[0])
    ours = qv.from_dlpack(made)
    assert str(ours.type) == name
    same(np.asarray(ours), x[1])


@pytest.mark.parametrize("name", NAMES)
def test_ipc_file_and_stream_keep_the_type(tmp_path, name):
    x = sample(name)
    table = qv.table({"t": qv.FixedShapeTensorArray.from_numpy(x)})
    for path, write, read in [
        (tmp_path / "a.arrow", qv.ipc.write_file, qv.ipc.open_file),
        (tmp_path / "a.arrows", qv.ipc.write_stream, qv.ipc.open_stream),
    ]:
        write(table, path)
        back = read(path).read_all()
        assert back.column("t").type.value_type == qv.type_for(name)
        same(back.column("t").to_numpy(), x)
    qv.ipc.write_tensor(qv.Tensor.from_numpy(x), tmp_path / "t.arrow")
    same(np.asarray(qv.ipc.read_tensor(tmp_path / "t.arrow")), x)


@pytest.mark.parametrize("name", NAMES)
def test_pyarrow_reads_the_file_as_unsigned_integers(tmp_path, name):
    pa = pytest.importorskip("pyarrow", reason="needs pyarrow")
    x = sample(name)
    qv.ipc.write_file(qv.table({"t": qv.FixedShapeTensorArray.from_numpy(x)}), tmp_path / "a.arrow")
    with pa.ipc.open_file(tmp_path / "a.arrow") as f:
        read = f.read_all()
    column_type = read.schema.field("t").type
    assert isinstance(column_type, pa.FixedShapeTensorType)
    # pyarrow rebuilds the tensor type from its value type and drops the
    # value field's metadata: it sees, and hands on, the unsigned bits.
    assert column_type.value_type == pa.type_for_alias(STORAGE[name])
    bits = read.column("t").combine_chunks().to_numpy_ndarray()
    same(bits.view(x.dtype), x)
    assert qv.table(read).column("t").type.value_type == qv.type_for(STORAGE[name])


def test_safetensors_types_map_both_ways(tmp_path):
    torch = pytest.importorskip("torch", reason="needs torch")
    st = pytest.importorskip("safetensors.torch", reason="needs safetensors")
    theirs = {
        "b": torch.tensor([[1.5, -2.0], [0.0, 3.0]], dtype=torch.bfloat16),
        "e4": torch.tensor([0.5, -448.0, 1.0], dtype=torch.float8_e4m3fn),
        "e5": torch.tensor([57344.0, -0.25], dtype=torch.float8_e5m2),
    }
    st.save_file(theirs, str(tmp_path / "ref.safetensors"))
    f = qv.safetensors.open(tmp_path / "ref.safetensors")
    for key, name in [("b", "bfloat16"), ("e4", "float8_e4m3fn"), ("e5", "float8_e5m2")]:
        ours = f.get_qv_tensor(key)
        assert str(ours.type) == name and ours.shape == tuple(theirs[key].shape)
        assert torch.equal(torch.from_dlpack(ours), theirs[key])
        assert f.get_tensor(key).dtype == np.dtype(getattr(ml_dtypes, name))
    # Written back from quiver tensors, from torch and from ml_dtypes arrays.
    mixed = {"b": f.get_qv_tensor("b"), "e4": theirs["e4"], "e5": f.get_tensor("e5")}
    qv.safetensors.save(mixed, tmp_path / "ours.safetensors")
    assert (tmp_path / "ours.safetensors").read_bytes() == (
        tmp_path / "ref.safetensors"
    ).read_bytes()
    again = st.load_file(str(tmp_path / "ours.safetensors"))
    for key in theirs:
        assert again[key].dtype == theirs[key].dtype and torch.equal(again[key], theirs[key])


def test_convert_safetensors_to_arrow_keeps_the_types(tmp_path):
    torch = pytest.importorskip("torch", reason="needs torch")
    st = pytest.importorskip("safetensors.torch", reason="needs safetensors")
    tensors = {"w": torch.tensor([[1.0, -0.5]], dtype=torch.bfloat16)}
    st.save_file(tensors, str(tmp_path / "m.safetensors"))
    cli = [sys.executable, "-m", "quiver", "convert"]
    subprocess.run([*cli, str(tmp_path / "m.safetensors"), str(tmp_path / "m.arrow")], check=True)
    column = qv.ipc.open_file(tmp_path / "m.arrow").read_all().column("w")
    assert column.type.value_type == qv.type_for("bfloat16")
    assert torch.equal(torch.from_dlpack(column.combine_chunks().to_tensor())[0], tensors["w"])
    subprocess.run([*cli, str(tmp_path / "m.arrow"), str(tmp_path / "n.safetensors")], check=True)
    assert (tmp_path / "n.safetensors").read_bytes() == (tmp_path / "m.safetensors").read_bytes()


def test_to_padded_takes_exact_pad_values_and_refuses_the_rest():
    rows = [sample("bfloat16", (2, 2)), sample("bfloat16", (1, 3))]
    column = qv.VariableShapeTensorArray.from_numpy(rows)
    padded, _ = column.to_padded(pad_value=-1.5)
    assert padded.dtype == np.dtype(ml_dtypes.bfloat16) and padded.shape == (2, 2, 3)
    assert padded[1, 1].astype(np.float32).tolist() == [-1.5, -1.5, -1.5]
    same(padded[0, :, :2], rows[0])
    with pytest.raises(ValueError, match="pad value 0.1 is not exactly representable as bfloat16"):
        column.to_padded(pad_value=0.1)
    eights = qv.VariableShapeTensorArray.from_numpy(
        [r.astype(ml_dtypes.float8_e4m3fn) for r in rows]
    )
    with pytest.raises(ValueError, match="inf is not exactly representable as float8_e4m3fn"):
        eights.to_padded(pad_value=float("inf"))
    assert np.isnan(eights.to_padded(pad_value=float("nan"))[0][1, 1, 0].astype(np.float32))


@pytest.mark.parametrize("name", NAMES)
def test_sparse_conversions_treat_negative_zero_as_zero(name):
    x = np.array([[0.0, -0.0, 1.5], [-2.0, 0.0, -0.0]], dtype=np.float32)
    dense = x.astype(getattr(ml_dtypes, name))
    for kind in (qv.SparseCOOTensor, qv.SparseCSRMatrix, qv.SparseCSFTensor):
        s = kind.from_dense_numpy(dense)
        assert s.non_zero_length == 2
        assert s.dtype == dense.dtype
        back = s.to_dense()
        np.testing.assert_array_equal(back.astype(np.float32), x)


def test_without_ml_dtypes_numpy_output_names_the_extra(monkeypatch):
    torch = pytest.importorskip("torch", reason="needs torch")
    t = qv.from_dlpack(torch.ones(2, dtype=torch.bfloat16))
    monkeypatch.setitem(sys.modules, "ml_dtypes", None)
    with pytest.raises(ModuleNotFoundError, match=r"ml_dtypes"):
        np.asarray(t)
    # DLPack needs nothing.
    assert torch.equal(torch.from_dlpack(t), torch.ones(2, dtype=torch.bfloat16))


def test_buffer_protocol_refuses_rather_than_showing_integers():
    t = qv.Tensor.from_numpy(sample("bfloat16"))
    with pytest.raises(BufferError, match="bfloat16 values have no buffer-protocol format"):
        memoryview(t)


@pytest.mark.parametrize(
    "name, storage",
    [("quiver.bfloat16", "uint8"), ("quiver.float8_e5m2", "int16"), ("example.other", "uint8")],
)
def test_extension_over_unexpected_storage_reads_as_its_storage(name, storage):
    pa = pytest.importorskip("pyarrow", reason="needs pyarrow")
    # quiver.bfloat16 over uint8 is not bfloat16: an unknown extension whose
    # values read as their storage, not a 'tensor value type' error.
    metadata = {b"ARROW:extension:name": name.encode(), b"ARROW:extension:metadata": b""}
    schema = pa.schema([pa.field("c", storage, metadata=metadata)])
    column = qv.table(pa.table([pa.array([1, 2, 3], storage)], schema=schema)).column("c")
    assert column.to_pylist() == [1, 2, 3]


def without_ml_dtypes(code):
    """Runs `code` in a fresh interpreter where `import ml_dtypes` fails."""
    prelude = "import sys; sys.modules['ml_dtypes'] = None\nimport quiver as qv\n"
    result = subprocess.run(
        [sys.executable, "-c", prelude + code], capture_output=True, text=True, check=False
    )
    assert result.returncode == 0, result.stderr
    return result.stdout


def test_values_read_as_python_floats_without_ml_dtypes():
    pytest.importorskip("pyarrow", reason="needs pyarrow")
    out = without_ml_dtypes(
        "import pyarrow as pa\n"
        "for name, bits in [('bfloat16', [16320, 32768]), ('float8_e4m3fn', [60, 128]),"
        " ('float8_e5m2', [62, 124])]:\n"
        "    storage = pa.uint16() if name == 'bfloat16' else pa.uint8()\n"
        "    meta = {b'ARROW:extension:name': b'quiver.' + name.encode(),"
        " b'ARROW:extension:metadata': b''}\n"
        "    schema = pa.schema([pa.field('c', storage, metadata=meta)])\n"
        "    table = qv.table(pa.table([pa.array(bits, storage)], schema=schema))\n"
        "    print(table.column('c').type, table.column('c').to_pylist())\n"
        "    str(table)\n"
    )
    assert out.splitlines() == [
        "bfloat16 [1.5, -0.0]",
        "float8_e4m3fn [1.5, -0.0]",
        "float8_e5m2 [1.5, inf]",
    ]


def test_reprs_print_values_without_ml_dtypes():
    pytest.importorskip("torch", reason="needs torch")
    out = without_ml_dtypes(
        "import torch\n"
        "for name in ['bfloat16', 'float8_e4m3fn', 'float8_e5m2']:\n"
        "    made = torch.tensor([[1.5, -0.0], [2.0, -4.0]]).to(getattr(torch, name))\n"
        "    t = qv.from_dlpack(made)\n"
        "    print(repr(t).splitlines()[1])\n"
        "    print(repr(qv.SparseCOOTensor.from_tensor(t)).splitlines()[1])\n"
        "    column = qv.FixedShapeTensorArray.from_numpy(t)\n"
        "    print(str(qv.table({'c': column})).splitlines()[-1])\n"
    )
    # As float32 (NumPy's spacing for float32, not ml_dtypes').
    lines = ["[[ 1.5, -0. ],", "  (0, 0)  1.5", "c: [[ 1.5, -0. ], [ 2., -4.]]"]
    assert out.splitlines() == lines * 3


@pytest.mark.parametrize("shape", [(3,), (2, 2)])
def test_other_ml_dtypes_are_refused_by_name(shape):
    # pyarrow's 'Unsupported numpy type 261' and 'structured or raw bytes'
    # named neither the dtype's nature nor what quiver holds.
    x = np.zeros(shape, ml_dtypes.float8_e4m3fnuz)
    message = r"float8_e4m3fnuz \(a NumPy user dtype; of these quiver holds only ml_dtypes'"
    with pytest.raises(TypeError, match=message):
        qv.table({"c": x})
    with pytest.raises(TypeError, match=message):
        qv.Tensor.from_numpy(x)
