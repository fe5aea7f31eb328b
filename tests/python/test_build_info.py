"""quiver.build_info() / quiver.ipc.codecs() against what the codecs do, and
the errors that name the quiver extra to install for an optional package."""
import sys

import numpy as np
import pytest

import quiver as qv
from quiver import _optional

ALL_CODECS = ["lz4", "zstd"]


def test_build_info_names_the_version_and_codecs():
    info = qv.build_info()
    assert info["version"] == qv.__version__
    assert info["codecs"] == qv.ipc.codecs()
    assert set(info["codecs"]) <= set(ALL_CODECS)
    assert info["codecs"] == sorted(info["codecs"])


@pytest.mark.parametrize("codec", ALL_CODECS)
def test_each_codec_works_or_says_how_to_get_it(tmp_path, codec):
    tensor_col = qv.FixedShapeTensorArray.from_numpy(np.zeros((100, 8, 8), np.float32))
    batch = qv.record_batch(_struct_producer(tensor_col))
    path = tmp_path / "x.arrow"
    if codec in qv.ipc.codecs():
        qv.ipc.write_file(str(path), batch, compression=codec)
        back = qv.ipc.open_file(str(path)).get_batch(0)
        assert back.equals(batch)
        assert path.stat().st_size < 100 * 8 * 8 * 4 / 4  # zeros compress
    else:
        with pytest.raises(NotImplementedError, match="pip install quiver-tensors"):
            qv.ipc.write_file(str(path), batch, compression=codec)


def _struct_producer(col):
    pa = pytest.importorskip("pyarrow")
    return pa.record_batch([pa.array(col)], names=["x"])


@pytest.mark.parametrize("module, extra", [("scipy.sparse", "sparse"), ("sparse", "sparse"),
                                           ("pyarrow", "arrow")])
def test_a_missing_optional_package_names_its_extra(monkeypatch, module, extra):
    top = module.split(".")[0]
    monkeypatch.setitem(sys.modules, top, None)  # import of `top` now fails
    if module != top:
        monkeypatch.delitem(sys.modules, module, raising=False)
    with pytest.raises(ModuleNotFoundError, match=rf"pip install 'quiver-tensors\[{extra}\]'") as info:
        _optional.import_optional(module)
    assert info.value.name == top


def test_the_bindings_route_optional_imports_through_the_helper(monkeypatch):
    s = qv.SparseCSRMatrix.from_dense_numpy(np.eye(3))
    monkeypatch.setitem(sys.modules, "scipy", None)
    monkeypatch.delitem(sys.modules, "scipy.sparse", raising=False)
    with pytest.raises(ModuleNotFoundError, match=r"quiver-tensors\[sparse\]"):
        s.to_scipy()
    with pytest.raises(ModuleNotFoundError, match=r"quiver-tensors\[sparse\]"):
        qv.SparseCSRMatrix.from_scipy(object())
    monkeypatch.setitem(sys.modules, "sparse", None)
    with pytest.raises(ModuleNotFoundError, match=r"quiver-tensors\[sparse\]"):
        qv.SparseCOOTensor.from_dense_numpy(np.eye(3)).to_pydata_sparse()


def test_a_broken_dependency_of_an_installed_package_keeps_its_own_error(monkeypatch):
    # scipy present but one of its own imports missing: that error is not ours.
    def fail(name, *args, **kwargs):
        raise ModuleNotFoundError("No module named 'numpy._broken'", name="numpy._broken")

    monkeypatch.setattr(_optional.importlib, "import_module", fail)
    with pytest.raises(ModuleNotFoundError, match="numpy._broken"):
        _optional.import_optional("scipy")


def test_only_known_optional_packages():
    with pytest.raises(ValueError, match="not one of quiver's optional packages"):
        _optional.import_optional("torch")
