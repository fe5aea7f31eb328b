"""Hostile foreign data imported from Python: deep schemas, draft shapes
outside the array, lying tensor metadata below the top level. Each was a
crash or a wrong answer once; each must be an error."""

import ctypes

import pyarrow as pa
import pytest

import quiver as qv


class ArrowSchema(ctypes.Structure):
    pass


RELEASE = ctypes.CFUNCTYPE(None, ctypes.POINTER(ArrowSchema))
ArrowSchema._fields_ = [
    ("format", ctypes.c_char_p),
    ("name", ctypes.c_char_p),
    ("metadata", ctypes.c_char_p),
    ("flags", ctypes.c_int64),
    ("n_children", ctypes.c_int64),
    ("children", ctypes.POINTER(ctypes.POINTER(ArrowSchema))),
    ("dictionary", ctypes.POINTER(ArrowSchema)),
    ("release", RELEASE),
    ("private_data", ctypes.c_void_p),
]

PyCapsule_New = ctypes.pythonapi.PyCapsule_New
PyCapsule_New.restype = ctypes.py_object
PyCapsule_New.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_void_p]


class DeepSchema:
    """A chain of `depth` "+l" ArrowSchema structs over an int8 leaf, built
    with ctypes (no library would build one this deep for us)."""

    def __init__(self, depth):
        self.releases = 0
        self.nodes = (ArrowSchema * (depth + 1))()
        self.pointers = (ctypes.POINTER(ArrowSchema) * (depth + 1))()

        def release(schema):
            self.releases += 1
            schema.contents.release = RELEASE()

        self.release = RELEASE(release)
        for i in range(depth + 1):
            node = self.nodes[i]
            node.format = b"c" if i == depth else b"+l"
            node.name = b"item"
            node.release = self.release
            self.pointers[i] = ctypes.pointer(node)
            if i < depth:
                node.n_children = 1
                node.children = ctypes.cast(
                    ctypes.byref(self.pointers, (i + 1) * ctypes.sizeof(ctypes.c_void_p)),
                    ctypes.POINTER(ctypes.POINTER(ArrowSchema)),
                )

    def __arrow_c_schema__(self):
        return PyCapsule_New(ctypes.addressof(self.nodes[0]), b"arrow_schema", None)


@pytest.mark.parametrize("depth", [65, 50_000])
def test_deep_schema_is_an_error_not_a_stack_overflow(depth):
    deep = DeepSchema(depth)
    with pytest.raises(ValueError, match="ArrowSchema nests more than 64 levels deep"):
        qv.type_from_arrow(deep)
    assert deep.releases == 1  # the base struct, exactly once


def test_schema_at_the_depth_limit_imports():
    deep = DeepSchema(64)
    assert "list<item: list<item:" in str(qv.type_from_arrow(deep))
    assert deep.releases == 1


def test_deep_pyarrow_type_is_refused():
    t = pa.int8()
    for _ in range(100):
        t = pa.list_(t)
    with pytest.raises(ValueError, match="more than 64 levels"):
        qv.type_from_arrow(t)


def draft_column(valid=None):
    """Draft-form storage (uint32 shapes); row 0 holds 2^32 - 1."""
    data = pa.array([[], [1.0, 2.0, 3.0]], pa.list_(pa.float32()))
    shape = pa.array([[4294967295, 0], [1, 3]], pa.list_(pa.uint32(), 2))
    mask = None if valid is None else pa.array([not v for v in valid])
    storage = pa.StructArray.from_arrays([data, shape], names=["data", "shape"], mask=mask)
    field = pa.field(
        "t",
        storage.type,
        metadata={
            "ARROW:extension:name": "arrow.variable_shape_tensor",
            "ARROW:extension:metadata": '{"ragged_dimensions": [0]}',
        },
    )
    return field, storage


class Producer:
    def __init__(self, field, array):
        self.field, self.array = field, array

    def __arrow_c_array__(self, requested_schema=None):
        return self.field.__arrow_c_schema__(), self.array.__arrow_c_array__()[1]


def test_draft_shapes_are_converted_only_where_the_array_looks():
    field, storage = draft_column()
    with pytest.raises(ValueError, match=r"row 0: shape entry 0 \(4294967295\) does not fit int32"):
        qv.array(Producer(field, storage))
    sliced = qv.array(Producer(field, storage.slice(1)))
    assert len(sliced) == 1 and sliced[0].shape == (1, 3)
    field, storage = draft_column(valid=[False, True])
    col = qv.array(Producer(field, storage))
    assert col.to_numpy()[0] is None and col[1].shape == (1, 3)


def tensor_field(name, metadata, list_size=6):
    return pa.field(
        name,
        pa.list_(pa.float32(), list_size),
        metadata={
            "ARROW:extension:name": "arrow.fixed_shape_tensor",
            "ARROW:extension:metadata": metadata,
        },
    )


def test_nested_tensor_metadata_is_validated():
    # A struct field typed arrow.fixed_shape_tensor with shape [5, 5] over a
    # fixed_size_list[6]: refused on import, naming where it sits.
    cells = pa.array([[0.0] * 6], pa.list_(pa.float32(), 6))
    bad = pa.StructArray.from_arrays(
        [pa.array([1]), cells],
        fields=[pa.field("id", pa.int64()), tensor_field("images", '{"shape":[5,5]}')],
    )
    with pytest.raises(
        ValueError,
        match=r"field.child 1 \(images\): .*has 25 elements but the storage list size is 6",
    ):
        qv.array(bad)
    with pytest.raises(ValueError, match="has 25 elements"):
        qv.type_from_arrow(bad.type)
    good = pa.StructArray.from_arrays(
        [pa.array([1]), cells],
        fields=[pa.field("id", pa.int64()), tensor_field("images", '{"shape":[2,3]}')],
    )
    assert len(qv.array(good)) == 1
    in_list = pa.ListArray.from_arrays(
        pa.array([0, 1], pa.int32()), cells, type=pa.list_(tensor_field("cells", '{"shape":[7]}'))
    )
    with pytest.raises(ValueError, match="has 7 elements but the storage list size is 6"):
        qv.array(in_list)
