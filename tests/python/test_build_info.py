"""quiver.build_info() / quiver.ipc.codecs() against what the codecs do, and
the errors that name the quiver extra to install for an optional package."""

import os
import pathlib
import subprocess
import sys

import numpy as np
import pytest

import quiver as qv
from quiver import _cli, _optional

ALL_CODECS = ["lz4", "zstd"]


def test_build_info_names_the_version_and_codecs():
    info = qv.build_info()
    assert info["version"] == qv.__version__
    assert info["codecs"] == qv.ipc.codecs()
    assert set(info["codecs"]) <= set(ALL_CODECS)
    assert info["codecs"] == sorted(info["codecs"])


def test_curl_is_the_remote_sources_library_or_none():
    """build_info()['curl'] is libcurl's version where the build reads
    http://, https:// and s3:// data, else None, and then opening a URL
    says how to get it."""
    curl = qv.build_info()["curl"]
    url = "http://127.0.0.1:1/x.arrow"  # nothing listens on port 1
    if curl is None:
        with pytest.raises(NotImplementedError, match="libcurl"):
            qv.ipc.open_file(url)
    else:
        assert curl.count(".") >= 1
        with pytest.raises(OSError, match=r"http://127\.0\.0\.1:1/x\.arrow: "):
            qv.ipc.open_file(url)


@pytest.mark.parametrize("codec", ALL_CODECS)
def test_each_codec_works_or_says_how_to_get_it(tmp_path, codec):
    tensor_col = qv.FixedShapeTensorArray.from_numpy(np.zeros((100, 8, 8), np.float32))
    batch = qv.record_batch(_struct_producer(tensor_col))
    path = tmp_path / "x.arrow"
    if codec in qv.ipc.codecs():
        qv.ipc.write_file(batch, str(path), compression=codec)
        back = qv.ipc.open_file(str(path)).get_batch(0)
        assert back.equals(batch)
        assert path.stat().st_size < 100 * 8 * 8 * 4 / 4  # zeros compress
    else:
        with pytest.raises(
            NotImplementedError, match=r"make wheel, then pip install dist/quiver_tensors-\*\.whl"
        ):
            qv.ipc.write_file(batch, str(path), compression=codec)


def _struct_producer(col):
    pa = pytest.importorskip("pyarrow")
    return pa.record_batch([pa.array(col)], names=["x"])


@pytest.mark.parametrize(
    "module, extra", [("scipy.sparse", "sparse"), ("sparse", "sparse"), ("pyarrow", "arrow")]
)
def test_a_missing_optional_package_names_its_extra(monkeypatch, module, extra):
    top = module.split(".")[0]
    monkeypatch.setitem(sys.modules, top, None)  # import of `top` now fails
    if module != top:
        monkeypatch.delitem(sys.modules, module, raising=False)
    with pytest.raises(
        ModuleNotFoundError, match=rf"pip install 'quiver-tensors\[{extra}\]'"
    ) as info:
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


# --- the command-line tool: present, or a message with the fix -------------------

MISSING_CLI = """
import pathlib, runpy, sys
import quiver._cli
quiver._cli.executable = lambda: pathlib.Path("/no/such/quiver/bin/quiver")
module = sys.argv.pop(1)
sys.argv = ["quiver", *sys.argv[1:]]
if module == "quiver":  # python -m quiver: its __main__ calls the patched module's main
    runpy.run_module("quiver", run_name="__main__")
else:  # the console script (and python -m quiver._cli) call main() itself
    quiver._cli.main()
"""


def test_build_info_says_whether_the_cli_is_there(monkeypatch):
    cli = qv.build_info()["cli"]
    exe = _cli.executable()
    assert cli == (str(exe) if _cli.is_native(exe) else None)
    if cli is not None:
        assert os.access(cli, os.X_OK) and pathlib.Path(cli).name.startswith("quiver")
    monkeypatch.setattr(_cli, "executable", lambda: pathlib.Path("/no/such/quiver"))
    assert qv.build_info()["cli"] is None


def test_the_cli_is_the_native_executable_in_the_scripts_folder():
    """The installation puts the compiled tool itself on PATH (no Python
    launcher), where its RECORD says; a script named quiver is not it."""
    cli = qv.build_info()["cli"]
    if cli is None:
        pytest.skip("this build has no command-line tool (built without CLI11)")
    with open(cli, "rb") as f:
        assert f.read(4) in (b"\x7fELF", b"\xcf\xfa\xed\xfe", b"MZ\x90\x00"), cli
    assert pathlib.Path(cli).parent.name in ("bin", "Scripts"), cli


def test_a_script_in_place_of_the_cli_is_not_taken_for_it(tmp_path):
    script = tmp_path / "quiver"
    script.write_text("#!/bin/sh\necho not the tool\n")
    script.chmod(0o755)
    assert not _cli.is_native(script)
    assert not _cli.is_native(tmp_path / "missing")


def test_python_m_quiver_runs_the_cli(tmp_path):
    if qv.build_info()["cli"] is None:
        pytest.skip("this build has no command-line tool (built without CLI11)")
    run = subprocess.run(
        [sys.executable, "-m", "quiver", "--help"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert run.returncode == 0 and "quiver inspect" in run.stdout, run.stderr
    run = subprocess.run(
        [sys.executable, "-m", "quiver", "frobnicate"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert run.returncode == 2 and run.stderr.startswith("quiver: ")


@pytest.mark.parametrize("module", ["quiver", "quiver._cli"])
@pytest.mark.parametrize("args", [["--help"], [], ["frobnicate"], ["validate", "x.arrow"]])
def test_a_missing_cli_says_how_to_get_it_and_exits_2(tmp_path, module, args):
    run = subprocess.run(
        [sys.executable, "-c", MISSING_CLI, module, *args],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=60,
    )
    # 2, never 1: 1 means "a bad file", which `validate x.arrow` must not claim.
    assert run.returncode == 2, run.stderr
    assert run.stdout == "" and "Traceback" not in run.stderr
    message = run.stderr
    assert message.startswith("quiver: this installation has no command-line tool")
    assert _cli.missing_message("/no/such/quiver/bin/quiver") == message
    for fix in [
        "apt-get install libcli11-dev",
        'pip install ".[arrow]"',
        "make wheel",
        "pip install dist/quiver_tensors-*.whl",
    ]:
        assert fix in message, f"{fix!r} not in {message!r}"


def test_the_cli_is_found_through_the_installations_record(tmp_path):
    """python -m quiver reads where the installer put the executable from the
    RECORD beside the package, whatever the scheme (here a --prefix layout)."""
    site = tmp_path / "lib" / "python3.X" / "site-packages"
    site.mkdir(parents=True)
    record = site / "quiver_tensors-0.1.0.dist-info" / "RECORD"
    record.parent.mkdir()
    record.write_text(
        "quiver/__init__.py,sha256=abc,10\n"
        '"../../../bin/quiver",sha256=def,4566968\n'
        "quiver_tensors-0.1.0.dist-info/RECORD,,\n"
    )
    assert _cli._recorded_in(record, site) == (tmp_path / "bin" / "quiver").resolve()
    record.write_text("quiver/__init__.py,sha256=abc,10\n")
    assert _cli._recorded_in(record, site) is None
