"""Tensor extension metadata as other writers serialize it: the golden files
in tests/data/other_writers/ carry arrow-rs's form (every parameter written,
null when absent, "permutations" for the fixed-shape permutation). quiver
reads them as the spec form, writes them back in the spec form only, and the
files it writes are read by pyarrow, which refuses the arrow-rs form."""

import importlib.util
from pathlib import Path

import numpy as np
import pyarrow as pa
import pytest

import quiver as qv

GOLDEN = Path(__file__).resolve().parents[1] / "data" / "other_writers"
FIXED_FILE = GOLDEN / "arrow_rs_fixed_shape_tensor.arrow"
VARIABLE_FILE = GOLDEN / "arrow_rs_variable_shape_tensor.arrow"


def _generator():
    spec = importlib.util.spec_from_file_location("make_golden", GOLDEN / "make_golden.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_golden_files_carry_arrow_rs_metadata_strings():
    # The files hold the exact strings arrow-rs writes, so a reader that
    # rewrote them on the way would not pass the tests below by accident.
    make_golden = _generator()
    fixed_bytes, variable_bytes = FIXED_FILE.read_bytes(), VARIABLE_FILE.read_bytes()
    for metadata in make_golden.FIXED.values():
        assert metadata in fixed_bytes
    for metadata in make_golden.VARIABLE.values():
        assert metadata in variable_bytes


def test_pyarrow_refuses_the_arrow_rs_form():
    with pytest.raises(pa.ArrowInvalid, match="dim_names must be an array, got null"):
        pa.ipc.open_file(FIXED_FILE).read_all()


def test_fixed_shape_golden_types_and_values():
    fixed, _ = _generator().expected()
    table = qv.ipc.open_file(str(FIXED_FILE)).read_all()
    plain, named, permuted = (table[name].type for name in ("plain", "named", "permuted"))
    assert (plain.shape, plain.dim_names, plain.permutation) == ((2, 3), None, None)
    assert (named.shape, named.dim_names, named.permutation) == ((2, 3), ["H", "W"], None)
    assert permuted.shape == (2, 3, 4)
    assert permuted.dim_names == ["C", "H", "W"]
    assert permuted.permutation == [2, 0, 1]
    np.testing.assert_array_equal(table["plain"].to_numpy(), fixed["plain"])
    assert table["named"].to_numpy().dtype == np.int16
    np.testing.assert_array_equal(table["named"].to_numpy(), fixed["named"])
    # The logical view: axis i of a tensor is physical axis permutation[i].
    np.testing.assert_array_equal(
        table["permuted"].to_numpy(), fixed["permuted"].transpose(0, 3, 1, 2)
    )


def test_variable_shape_golden_types_and_values():
    _, rows = _generator().expected()
    table = qv.ipc.open_file(str(VARIABLE_FILE)).read_all()
    plain, full = table["plain"].type, table["full"].type
    assert (plain.ndim, plain.dim_names, plain.permutation, plain.uniform_shape) == (
        2,
        None,
        None,
        None,
    )
    assert full.dim_names == ["H", "W"]
    assert full.permutation == [1, 0]
    assert full.uniform_shape == (2, None)
    for got, want in zip(table["plain"].to_numpy(), rows):
        np.testing.assert_array_equal(got, want)
    for got, want in zip(table["full"].to_numpy(), rows):
        np.testing.assert_array_equal(got, want.T)


@pytest.mark.parametrize("path", [FIXED_FILE, VARIABLE_FILE], ids=["fixed", "variable"])
def test_written_back_in_the_spec_form(path, tmp_path):
    table = qv.ipc.open_file(str(path)).read_all()
    out = tmp_path / "again.arrow"
    qv.ipc.write_file(table, str(out))
    written = out.read_bytes()
    assert b'"permutations"' not in written
    assert b'"dim_names":null' not in written
    assert b'"permutation":null' not in written
    assert b'"uniform_shape":null' not in written
    for name in table.column_names:
        text = table[name].type.serialize()
        assert text.encode() in written
        assert "permutations" not in text
    # pyarrow, which refused the arrow-rs form, reads quiver's file.
    back = qv.table(pa.ipc.open_file(out).read_all())
    for name in table.column_names:
        assert back[name].type.serialize() == table[name].type.serialize()
        for got, want in zip(back[name].to_numpy(), table[name].to_numpy()):
            np.testing.assert_array_equal(got, want)


def test_fixed_spec_form_strings():
    table = qv.ipc.open_file(str(FIXED_FILE)).read_all()
    assert table["plain"].type.serialize() == '{"shape":[2,3]}'
    assert (
        table["permuted"].type.serialize()
        == '{"dim_names":["C","H","W"],"permutation":[2,0,1],"shape":[2,3,4]}'
    )
    variable = qv.ipc.open_file(str(VARIABLE_FILE)).read_all()
    assert variable["plain"].type.serialize() == "{}"


def _with_metadata(path, tmp_path, column, metadata):
    """A copy of a golden file with one column's metadata string replaced."""
    data = path.read_bytes()
    old = _generator().FIXED[column]
    assert len(metadata) <= len(old)
    out = tmp_path / "edited.arrow"
    # Same length keeps every offset in the file valid: pad with spaces,
    # which JSON ignores.
    out.write_bytes(data.replace(old, metadata.ljust(len(old))))
    return out


def test_arrow_rs_form_errors_name_the_column(tmp_path):
    differ = _with_metadata(
        FIXED_FILE,
        tmp_path,
        "permuted",
        b'{"shape":[2,3,4],"permutation":[0,1,2],"permutations":[2,0,1]}',
    )
    with pytest.raises(ValueError, match=r"column 2 \(permuted\).*'permutation' \[0, 1, 2\] and "):
        qv.ipc.open_file(str(differ)).read_all()
    wrong = _with_metadata(
        FIXED_FILE, tmp_path, "plain", b'{"shape":[2,3],"dim_names":null,"permutations":7}'
    )
    with pytest.raises(ValueError, match=r"column 0 \(plain\).*'permutations' must be an array"):
        qv.ipc.open_file(str(wrong)).read_all()


def test_handed_to_pyarrow_in_the_spec_form():
    # Read by quiver, the columns cross the C Data Interface in the spec
    # form, which pyarrow takes.
    fixed, _ = _generator().expected()
    table = qv.ipc.open_file(str(FIXED_FILE)).read_all().to_pyarrow()
    permuted = table.column("permuted").type
    assert permuted.permutation == [2, 0, 1] and permuted.dim_names == ["C", "H", "W"]
    np.testing.assert_array_equal(table.column("plain").chunk(0).to_numpy_ndarray(), fixed["plain"])


def test_arrow_rs_form_over_the_c_data_interface():
    # A pyarrow table whose field metadata holds arrow-rs's strings (pyarrow
    # keeps them as plain metadata) reaches quiver through the C Data
    # Interface and is held in the spec form.
    table = _generator().fixed_table()
    got = qv.table(table)
    assert got["permuted"].type.permutation == [2, 0, 1]
    assert got["permuted"].type.serialize() == (
        '{"dim_names":["C","H","W"],"permutation":[2,0,1],"shape":[2,3,4]}'
    )
    assert got["plain"].type.serialize() == '{"shape":[2,3]}'
    fixed, _ = _generator().expected()
    np.testing.assert_array_equal(got["named"].to_numpy(), fixed["named"])
