#!/usr/bin/env python3
"""Writes the golden IPC files of this folder: tensor columns whose extension
metadata strings are byte for byte what arrow-rs's canonical extension types
serialize (README.md says which versions and why pyarrow writes them).

arrow-rs serializes its metadata structs with serde_json: every field is
written, in declaration order, an absent optional parameter as ``null``, and
the fixed-shape type names its permutation ``permutations``. Its storage
fields are non-nullable (the list item, and for variable shape both struct
fields and the shape's items). The values are small and deterministic so
tests can rebuild them: see ``expected()``.

Run from anywhere: ``python tests/data/other_writers/make_golden.py``.
"""

from pathlib import Path

import numpy as np
import pyarrow as pa

HERE = Path(__file__).resolve().parent
NAME_KEY = b"ARROW:extension:name"
METADATA_KEY = b"ARROW:extension:metadata"

# name -> (extension name, metadata exactly as arrow-rs writes it)
FIXED = {
    "plain": b'{"shape":[2,3],"dim_names":null,"permutations":null}',
    "named": b'{"shape":[2,3],"dim_names":["H","W"],"permutations":null}',
    "permuted": b'{"shape":[2,3,4],"dim_names":["C","H","W"],"permutations":[2,0,1]}',
}
VARIABLE = {
    "plain": b'{"dim_names":null,"permutations":null,"uniform_shape":null}',
    "full": b'{"dim_names":["H","W"],"permutations":[1,0],"uniform_shape":[2,null]}',
}


def expected():
    """The physical (row-major, storage order) values of each column."""
    fixed = {
        "plain": np.arange(4 * 6, dtype=np.float32).reshape(4, 2, 3),
        "named": np.arange(4 * 6, dtype=np.int16).reshape(4, 2, 3),
        "permuted": np.arange(4 * 24, dtype=np.float64).reshape(4, 2, 3, 4),
    }
    # Every row 2 x n: the "full" column's uniform_shape says axis 0 is 2.
    variable = [np.arange(2 * n, dtype=np.int32).reshape(2, n) + 100 * n for n in (1, 3, 2)]
    return fixed, variable


def _field(name, storage_type, extension_name, metadata):
    return pa.field(
        name,
        storage_type,
        metadata={NAME_KEY: extension_name, METADATA_KEY: metadata},
    )


def fixed_table():
    fixed, _ = expected()
    fields, columns = [], []
    for name, metadata in FIXED.items():
        values = fixed[name]
        size = int(np.prod(values.shape[1:]))
        item = pa.field("item", pa.from_numpy_dtype(values.dtype), nullable=False)
        storage = pa.FixedSizeListArray.from_arrays(
            pa.array(values.reshape(-1)), type=pa.list_(item, size)
        )
        fields.append(_field(name, storage.type, b"arrow.fixed_shape_tensor", metadata))
        columns.append(storage)
    return pa.Table.from_arrays(columns, schema=pa.schema(fields))


def variable_table():
    _, rows = expected()
    item = pa.field("item", pa.int32(), nullable=False)
    offsets = np.concatenate([[0], np.cumsum([r.size for r in rows])]).astype(np.int32)
    data = pa.ListArray.from_arrays(
        pa.array(offsets),
        pa.array(np.concatenate([r.reshape(-1) for r in rows])),
        type=pa.list_(item),
    )
    shape_item = pa.field("item", pa.int32(), nullable=False)
    shapes = pa.FixedSizeListArray.from_arrays(
        pa.array(np.array([r.shape for r in rows], np.int32).reshape(-1)),
        type=pa.list_(shape_item, 2),
    )
    struct_type = pa.struct(
        [
            pa.field("data", data.type, nullable=False),
            pa.field("shape", shapes.type, nullable=False),
        ]
    )
    storage = pa.StructArray.from_arrays([data, shapes], fields=list(struct_type))
    fields = [
        _field(name, struct_type, b"arrow.variable_shape_tensor", m) for name, m in VARIABLE.items()
    ]
    return pa.Table.from_arrays([storage] * len(VARIABLE), schema=pa.schema(fields))


def write(table, path):
    with pa.OSFile(str(path), "wb") as sink, pa.ipc.new_file(sink, table.schema) as writer:
        writer.write_table(table)


if __name__ == "__main__":
    write(fixed_table(), HERE / "arrow_rs_fixed_shape_tensor.arrow")
    write(variable_table(), HERE / "arrow_rs_variable_shape_tensor.arrow")
