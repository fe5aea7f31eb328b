"""quiver demo: a batch of images as an Arrow tensor column, end to end.

Runs on built-in sample data (generated here, no downloads):
1. 8 RGB "images" in channels-last NumPy layout become an
   arrow.fixed_shape_tensor column without copying;
2. a channels-first view of the same memory is stored zero-copy too, the
   layout recorded as the spec's permutation;
3. the column crosses into pyarrow and back through the PyCapsule protocol,
   is written to an Arrow IPC file by pyarrow and read back into quiver;
4. images of different sizes become an arrow.variable_shape_tensor
   column, are padded into one dense batch for a model, and make a
   Parquet round trip through pyarrow with their metadata intact;
5. the fixed-shape column and one ragged row go to NumPy through DLPack
   without a copy;
6. an Arrow IPC file is written by quiver (ZSTD-compressed where this
   build has the codec: a source build may not) and a plain one is
   memory-mapped back without copying;
7. a mostly-zero activation map becomes sparse tensors (COO, CSR, CSF),
   goes to SciPy without copying (where SciPy is installed), and travels
   as a SparseTensor IPC message;
8. a bad metadata string gets a clear error instead of a crash.
"""

import os
import tempfile

import numpy as np
import pyarrow as pa
import pyarrow.ipc as ipc
import pyarrow.parquet as pq

import quiver as qv


def section(title):
    print(f"\n== {title}")


def main():
    rng = np.random.default_rng(42)
    images = rng.integers(0, 256, size=(8, 4, 6, 3), dtype=np.uint8)  # N, H, W, C

    section("1. NumPy -> quiver, zero-copy")
    column = qv.FixedShapeTensorArray.from_numpy(images, dim_names=["H", "W", "C"])
    print("type:        ", column.type)
    print("rows:        ", len(column))
    view = column.to_numpy()
    print("same memory: ", view.ctypes.data == images.ctypes.data)
    print("row 3 pixel (0, 0):", column[3][0, 0].tolist())

    section("2. A transposed view is stored with a permutation, still zero-copy")
    channels_first = images.transpose(0, 3, 1, 2)  # N, C, H, W view of the same bytes
    permuted = qv.FixedShapeTensorArray.from_numpy(
        channels_first, dim_names=["C", "H", "W"], copy=False
    )
    print("type:        ", permuted.type)
    print("logical cell:", permuted.type.logical_shape, " physical cell:", permuted.type.shape)
    print("same memory: ", permuted.to_numpy().ctypes.data == images.ctypes.data)
    print("values match:", np.array_equal(permuted.to_numpy(), channels_first))

    section("3. quiver -> pyarrow -> Arrow IPC file -> quiver")
    table = pa.table({"image": pa.array(permuted), "label": pa.array(np.arange(8) % 3)})
    print("pyarrow sees:", table.schema.field("image").type)
    path = os.path.join(tempfile.mkdtemp(prefix="quiver-demo-"), "images.arrow")
    with ipc.new_file(path, table.schema) as writer:
        writer.write_table(table)
    with ipc.open_file(path) as reader:
        read_back = reader.read_all()
    restored = qv.array(read_back.column("image").chunk(0))
    print("file:        ", path, f"({os.path.getsize(path)} bytes)")
    print("restored:    ", restored.type)
    print("round trip equal:", np.array_equal(restored.to_numpy(), channels_first))

    section("4. Ragged images: arrow.variable_shape_tensor")
    sizes = [(4, 6), (8, 5), (3, 3), (6, 8)]
    ragged = [rng.integers(0, 256, size=(3, h, w), dtype=np.uint8) for h, w in sizes]
    column = qv.VariableShapeTensorArray.from_numpy(ragged, dim_names=["C", "H", "W"])
    column = column.with_uniform_shape(column.infer_uniform_shape())
    print("type:        ", column.type)
    print("shapes:      ", column.shapes().tolist())
    batch, shapes = column.to_padded(pad_value=0)
    print("padded batch:", batch.shape, batch.dtype)
    parquet_path = os.path.join(os.path.dirname(path), "ragged.parquet")
    pq.write_table(pa.table({"image": pa.array(column)}), parquet_path)
    from_parquet = qv.array(pq.read_table(parquet_path).column("image").combine_chunks())
    print("parquet:     ", parquet_path, "->", from_parquet.type)
    print(
        "round trip equal:",
        all(np.array_equal(a, b) for a, b in zip(from_parquet.to_numpy(), ragged)),
    )

    section("5. DLPack: zero-copy hand-off to NumPy (and PyTorch or JAX alike)")
    batch_view = np.from_dlpack(permuted)
    print(
        "column via DLPack:",
        batch_view.shape,
        "same memory:",
        batch_view.__array_interface__["data"][0] == images.ctypes.data,
    )
    row = np.from_dlpack(column.row_tensor(1))
    print("ragged row 1 via DLPack:", row.shape, "equal:", np.array_equal(row, ragged[1]))

    section("6. Arrow IPC: write a file, map it back without copying")
    with tempfile.TemporaryDirectory() as tmp:
        path = f"{tmp}/batch.arrow"
        ids = pa.array(np.arange(len(images)), pa.int64())
        codec = "zstd" if "zstd" in qv.ipc.codecs() else None
        qv.ipc.write_file(
            pa.table({"id": ids, "image": pa.array(qv.FixedShapeTensorArray.from_numpy(images))}),
            path,
            compression=codec,
        )
        print(
            "compression:",
            codec or "none (this build has no ZSTD codec; the README's Install says how to get it)",
        )
        with qv.ipc.open_file(path) as reader:
            batch = reader.get_batch(0)
            print(
                "file:",
                reader.num_record_batches,
                "batch,",
                batch.num_rows,
                "rows, columns",
                batch.schema.names,
            )
            print(
                "image column:",
                type(batch.column("image")).__name__,
                batch.column("image").to_numpy().shape,
                "equal:",
                np.array_equal(batch.column("image").to_numpy(), images),
            )
            table = reader.read_all()
        plain = f"{tmp}/plain.arrow"
        qv.ipc.write_file(table, plain)
        mapped = qv.ipc.open_file(plain).get_batch(0).column("image").to_numpy()
        print(
            "uncompressed file read back memory-mapped, pyarrow agrees:",
            pa.ipc.open_file(plain)
            .read_all()
            .column("image")
            .equals(pa.table(qv.ipc.open_file(plain)).column("image")),
            "| view is read-only:",
            not mapped.flags.writeable,
        )

    section("7. Sparse tensors: COO, CSR, CSF, SciPy and the SparseTensor message")
    rng = np.random.default_rng(7)
    activations = np.where(rng.random((64, 256)) < 0.02, rng.random((64, 256)), 0.0)
    csr = qv.SparseCSRMatrix.from_dense_numpy(activations, dim_names=["token", "feature"])
    print(csr)
    try:  # SciPy is optional: `make demo` installs only NumPy and pyarrow
        as_scipy = csr.to_scipy()
        print(
            "SciPy csr_array shares the values:",
            np.shares_memory(as_scipy.data, csr.to_numpy()[0]),
            "| same matrix:",
            np.array_equal(as_scipy.toarray(), activations),
        )
    except ModuleNotFoundError as error:
        print("SciPy step skipped:", error)
    coo = csr.to_coo()
    cube = qv.SparseCSFTensor.from_dense_numpy(activations.reshape(8, 8, 256))
    print(
        "COO nnz:",
        coo.non_zero_length,
        "| CSF levels:",
        [len(i) for i in cube.to_numpy()[2]],
        "| COO equals CSR by value:",
        coo == csr,
    )
    with tempfile.TemporaryDirectory() as tmp:
        qv.ipc.write_sparse_tensor(csr, f"{tmp}/sparse.arrow")
        back = qv.ipc.read_sparse_tensor(f"{tmp}/sparse.arrow")
        print(
            "SparseTensor message round trip:",
            type(back).__name__,
            back.shape,
            "equal:",
            back == csr,
            "| dim names:",
            back.dim_names,
        )
    try:
        qv.SparseCSRMatrix.from_numpy(np.ones(2), np.array([0, 2, 1]), np.array([0, 1]), (2, 2))
    except ValueError as error:
        print("ValueError:", error)

    section("8. Bad input gets a clear error")
    storage = pa.array(images.reshape(8, -1)[:, :72].tolist(), pa.list_(pa.uint8(), 72))
    field = pa.field(
        "broken",
        storage.type,
        metadata={
            "ARROW:extension:name": "arrow.fixed_shape_tensor",
            "ARROW:extension:metadata": '{"shape": [4, 6, 4]}',
        },
    )

    class Producer:
        def __arrow_c_array__(self, requested_schema=None):
            return field.__arrow_c_schema__(), storage.__arrow_c_array__()[1]

    try:
        qv.array(Producer())
    except ValueError as error:
        print("ValueError:", error)
    print("\ndemo finished")


if __name__ == "__main__":
    main()
