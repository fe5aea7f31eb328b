"""pyarrow objects holding arrow.variable_shape_tensor pickle once quiver is
imported (pyarrow alone refuses to unpickle them), through plain pickle,
pickle protocol 5 and a spawned multiprocessing worker; other types keep
pyarrow's own pickling, and importing quiver still imports no pyarrow."""

import multiprocessing
import pickle
import subprocess
import sys

import numpy as np
import pytest

import quiver as qv

pa = pytest.importorskip("pyarrow")


def ragged_table():
    rows = [np.arange(6, dtype=np.float32).reshape(3, 2), None, np.zeros((0, 2), np.float32)]
    column = pa.array(
        qv.VariableShapeTensorArray.from_numpy(rows, dim_names=["n", "xy"], uniform_shape=[None, 2])
    )
    return pa.table({"boxes": column, "id": pa.array([1, 2, 3])})


@pytest.mark.parametrize("protocol", [2, 4, 5])
def test_types_arrays_tables_and_schemas_round_trip(protocol):
    table = ragged_table()
    column = table.column("boxes")
    for obj in [column.type, column.chunk(0), column, table, table.schema, table.to_batches()[0]]:
        back = pickle.loads(pickle.dumps(obj, protocol=protocol))
        assert type(back) is type(obj)
        assert back.equals(obj) if hasattr(obj, "equals") else back == obj
    back = pickle.loads(pickle.dumps(table, protocol=protocol))
    # The very type pyarrow makes, canonical metadata included.
    back_type = back.schema.field("boxes").type
    assert str(back_type) == str(column.type)
    assert qv.type_from_arrow(back_type) == qv.type_from_arrow(column.type)
    assert qv.table(back) == qv.table(table)


def test_other_types_keep_pyarrow_pickling():
    fixed = pa.array(qv.FixedShapeTensorArray.from_numpy(np.ones((2, 3), np.int16)))
    for obj in [pa.int32(), fixed.type, fixed, pa.list_(pa.utf8())]:
        assert pickle.loads(pickle.dumps(obj)).equals(obj)


def _rows_and_type(table):
    return table.num_rows, str(table.schema.field("boxes").type)


def test_a_spawned_process_gets_the_table():
    table = ragged_table()
    with multiprocessing.get_context("spawn").Pool(1) as pool:
        rows, type_text = pool.apply(_rows_and_type, (table,))
    assert rows == 3 and type_text == str(table.schema.field("boxes").type)


def test_importing_quiver_does_not_import_pyarrow_and_registers_on_its_import():
    code = (
        "import sys, pickle, quiver as qv\n"
        "assert 'pyarrow' not in sys.modules\n"
        "import pyarrow as pa\n"
        "t = pa.DataType._import_from_c_capsule(qv.variable_shape_tensor('int8', "
        "1).__arrow_c_schema__())\n"
        "assert pickle.loads(pickle.dumps(t)) == t\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True)
