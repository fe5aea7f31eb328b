import pickle
import re

import numpy as np
import pyarrow as pa
import pytest

import quiver as qv


def ragged(shapes, **kwargs):
    rows = [None if s is None else np.zeros(s, np.float32) for s in shapes]
    return qv.VariableShapeTensorArray.from_numpy(rows, **kwargs)


# --- The proposal's examples (docs/formats.md, "enforce_shape") -------------


def test_proposal_fixes_the_dimensionality():
    x = np.zeros((2, 5, 7))
    result = qv.enforce_shape(x, [None, None, None])
    assert result[0] is x
    x2, [d1, d2, d3] = result
    assert (d1, d2, d3) == (2, 5, 7)
    assert all(type(d) is int for d in (d1, d2, d3))
    with pytest.raises(
        ValueError,
        match=re.escape("expected 3 axes, got 2; pattern [None, None, None] vs shape (2, 5)"),
    ):
        qv.enforce_shape(np.zeros((2, 5)), [None, None, None])


def test_proposal_symbol_none_and_size():
    b = qv.Bindings()
    qv.enforce_shape(np.zeros(6), ["d1"], bindings=b)
    x = np.zeros((6, 9, 4))
    x2, [d1, d2, d3] = qv.enforce_shape(x, ["d1", None, 4], bindings=b)
    assert x2 is x and (d1, d2, d3) == (6, 9, 4)
    with pytest.raises(
        ValueError,
        match=re.escape("axis 2 (4): expected 4, got 5; pattern [d1, None, 4] vs shape (6, 9, 5)"),
    ):
        qv.enforce_shape(np.zeros((6, 9, 5)), ["d1", None, 4], bindings=b)
    with pytest.raises(ValueError, match=re.escape("axis 0 ('d1'): expected 6, got 7")):
        qv.enforce_shape(np.zeros((7, 9, 4)), ["d1", None, 4], bindings=b)


def test_proposal_ellipsis_in_the_middle():
    x = np.zeros((1, 2, 4, 5, 3))
    x2, [d1, d2, (axes, n_elements), d3] = qv.enforce_shape(x, [1, None, ..., 3])
    assert x2 is x
    assert (d1, d2, axes, n_elements, d3) == (1, 2, (4, 5), 20, 3)
    _, [_, _, (axes, n_elements), _] = qv.enforce_shape(np.zeros((1, 2, 3)), [1, None, ..., 3])
    assert axes == () and n_elements == 1
    with pytest.raises(
        ValueError,
        match=re.escape(
            "expected at least 3 axes, got 2; pattern [1, None, ..., 3] vs shape (1, 3)"
        ),
    ):
        qv.enforce_shape(np.zeros((1, 3)), [1, None, ..., 3])


def test_proposal_flatten_and_restore_leading_axes():
    # Work on a 2-D (n, 3) array whatever the leading axes are, then restore them.
    x_rgb = np.arange(4 * 6 * 3, dtype=np.float64).reshape(4, 6, 3)
    x_rgb, [(axes, n), c] = qv.enforce_shape(x_rgb, [..., 3])
    flat = x_rgb.reshape(n, c)[:, ::-1]
    back = flat.reshape(*axes, c)
    assert back.shape == (4, 6, 3)
    np.testing.assert_array_equal(back, x_rgb[..., ::-1])


# --- Pattern forms ----------------------------------------------------------


def test_string_and_list_forms_agree():
    x = np.zeros((8, 3, 4, 2))
    assert qv.enforce_shape(x, "b ... 2")[1] == [8, ((3, 4), 12), 2]
    assert qv.enforce_shape(x, ["b", ..., 2])[1] == [8, ((3, 4), 12), 2]
    assert qv.enforce_shape(x, ("b", "...", "2"))[1] == [8, ((3, 4), 12), 2]
    assert qv.enforce_shape(x, qv.ShapePattern("b ... 2"))[1] == [8, ((3, 4), 12), 2]
    assert qv.enforce_shape(x, [np.int64(8), "_", None, "*rest"])[1] == [8, 3, 4, ((2,), 2)]
    p = qv.ShapePattern("b  h w 3")
    assert str(p) == "[b, h, w, 3]" and repr(p) == "quiver.ShapePattern('b  h w 3')"
    assert len(p) == 4 and p.ndim == 4 and not p.has_ellipsis
    assert p == qv.ShapePattern(["b", "h", "w", 3]) and hash(p) == hash(qv.ShapePattern("b h w 3"))
    assert qv.ShapePattern(p) == p
    assert qv.ShapePattern([1, None, ..., "_", "b"]).to_list() == [1, None, ..., "_", "b"]
    for q in (p, qv.ShapePattern(["b", None, "*rest", 3])):
        back = pickle.loads(pickle.dumps(q, protocol=5))
        assert back == q and repr(back) == repr(q)


def test_ellipsis_start_middle_end_and_zero_axes():
    x = np.zeros((2, 3, 4, 5))
    assert qv.enforce_shape(x, "... c")[1] == [((2, 3, 4), 24), 5]
    assert qv.enforce_shape(x, "b ... c")[1] == [2, ((3, 4), 12), 5]
    assert qv.enforce_shape(x, "b ...")[1] == [2, ((3, 4, 5), 60)]
    assert qv.enforce_shape(np.zeros((2, 5)), "b ... c")[1] == [2, ((), 1), 5]
    assert qv.enforce_shape(np.float64(3.0), "...")[1] == [((), 1)]
    assert qv.enforce_shape(np.zeros(()), "")[1] == []


def test_skip_and_repeated_symbols():
    assert qv.enforce_shape(np.zeros((7, 5, 3)), "_ n 3")[1] == [7, 5, 3]
    assert qv.enforce_shape(np.zeros((4, 4)), "n n")[1] == [4, 4]
    with pytest.raises(
        ValueError,
        match=re.escape(
            "axis 1 ('n'): expected 3, got 4; pattern [n, n] vs shape (3, 4); symbol 'n' is 3 from "
            "axis 0 of shape (3, 4) but 4 from axis 1 of shape (3, 4)"
        ),
    ):
        qv.enforce_shape(np.zeros((3, 4)), "n n")


def test_named_ellipsis_agrees_across_calls():
    b = qv.Bindings()
    _, dims = qv.enforce_shape(np.zeros((8, 3, 4, 2)), "b *rest 2", bindings=b)
    assert dims == [8, ((3, 4), 12), 2]
    assert b["rest"] == (3, 4) and dict(b) == {"b": 8, "rest": (3, 4)}
    qv.enforce_shape(np.zeros((3, 4)), "*rest", bindings=b)
    with pytest.raises(
        ValueError,
        match=re.escape(
            "axes 0 to 1 ('*rest'): expected (3, 4), got (3, 5); pattern [*rest] vs shape (3, 5); "
            "symbol '*rest' is (3, 4) from axes 1 to 2 of shape (8, 3, 4, 2) but (3, 5) from "
            "axes 0 to 1 of shape (3, 5)"
        ),
    ):
        qv.enforce_shape(np.zeros((3, 5)), "*rest", bindings=b)


def test_bindings_mapping():
    b = qv.Bindings()
    assert len(b) == 0 and dict(b) == {} and "b" not in b
    qv.enforce_shape(np.zeros((8, 32, 32, 3)), "b h w 3", bindings=b)
    assert len(b) == 3 and "b" in b and 3 not in b
    assert b["b"] == 8 and list(b) == ["b", "h", "w"] and sorted(b.keys()) == ["b", "h", "w"]
    assert b.items() == [("b", 8), ("h", 32), ("w", 32)] and b.values() == [8, 32, 32]
    assert b.origin("b") == "axis 0 of shape (8, 32, 32, 3)"
    assert repr(b) == "quiver.Bindings({'b': 8, 'h': 32, 'w': 32})"
    with pytest.raises(KeyError):
        b["missing"]
    b.clear()
    assert len(b) == 0


def test_shared_bindings_across_two_arrays():
    b = qv.Bindings()
    images, labels = np.zeros((8, 32, 32, 3)), np.zeros(8, np.int64)
    qv.enforce_shape(images, "b h w 3", bindings=b)
    assert qv.enforce_shape(labels, "b", bindings=b)[1] == [8]
    with pytest.raises(
        ValueError,
        match=re.escape(
            "axis 0 ('b'): expected 8, got 4; pattern [b] vs shape (4,); symbol 'b' is 8 from axis "
            "0 "
            "of shape (8, 32, 32, 3) but 4 from axis 0 of shape (4,)"
        ),
    ):
        qv.enforce_shape(np.zeros(4), "b", bindings=b)
    # A failed check binds nothing.
    with pytest.raises(ValueError):
        qv.enforce_shape(np.zeros((5, 4)), "k b", bindings=b)
    assert "k" not in b


# --- Inputs -----------------------------------------------------------------


def test_quiver_tensors_and_columns():
    nd = np.zeros((4, 2, 3), np.float32)
    t = qv.Tensor.from_numpy(nd)
    assert qv.enforce_shape(t, "n 2 3")[0] is t
    col = qv.FixedShapeTensorArray.from_numpy(nd)
    result = qv.enforce_shape(col, "rows h w")
    assert result[0] is col and result[1] == [4, 2, 3]
    with pytest.raises(
        ValueError,
        match=re.escape("axis 2 (4): expected 4, got 3; pattern [rows, h, 4] vs shape (4, 2, 3)"),
    ):
        qv.enforce_shape(col, "rows h 4")


def test_pyarrow_and_jax_and_torch_shapes():
    t = pa.Tensor.from_numpy(np.zeros((2, 3)))
    assert qv.enforce_shape(t, "a b")[1] == [2, 3]
    jnp = pytest.importorskip("jax.numpy")
    assert qv.enforce_shape(jnp.zeros((2, 3)), "a 3")[1] == [2, 3]


def test_torch_shapes():
    torch = pytest.importorskip("torch")
    x = torch.zeros(2, 3)
    assert qv.enforce_shape(x, "a 3") == (x, [2, 3])


class Shaped:
    def __init__(self, shape):
        self.shape = shape


def test_hostile_shapes_and_patterns():
    assert qv.enforce_shape(Shaped([2, np.int32(3)]), "a b")[1] == [2, 3]
    with pytest.raises(TypeError, match="needs an array with a .shape, not int"):
        qv.enforce_shape(3, "a")
    with pytest.raises(TypeError, match=re.escape(".shape of Shaped is not a sequence of ints: 5")):
        qv.enforce_shape(Shaped(5), "a")
    with pytest.raises(TypeError, match=re.escape(".shape entry 1 of Shaped is not an int: None")):
        qv.enforce_shape(Shaped((2, None)), "a b")
    with pytest.raises(TypeError, match="is not an int: 2.0"):
        qv.enforce_shape(Shaped((2.0,)), "a")
    with pytest.raises(TypeError, match="is not an int: True"):
        qv.enforce_shape(Shaped((True,)), "a")
    with pytest.raises(ValueError, match="is negative: -1"):
        qv.enforce_shape(Shaped((-1,)), "a")
    with pytest.raises(ValueError, match="does not fit int64"):
        qv.enforce_shape(Shaped((2**70,)), "a")
    with pytest.raises(ValueError, match="the product of axes 0 to 1"):
        qv.enforce_shape(Shaped((2**62, 2**62)), "...")
    with pytest.raises(
        TypeError,
        match="pattern must be a str, a list or tuple of entries, or a "
        "quiver.ShapePattern, not int",
    ):
        qv.enforce_shape(np.zeros(3), 3)
    with pytest.raises(
        TypeError, match="pattern entry 1 must be an int, None, ..., or a str, not float"
    ):
        qv.enforce_shape(np.zeros((3, 3)), ["a", 1.5])
    with pytest.raises(TypeError, match="bindings must be a quiver.Bindings or None, not dict"):
        qv.enforce_shape(np.zeros(3), "a", bindings={})
    long_pattern = " ".join(f"d{i}" for i in range(300))
    assert (
        len(qv.enforce_shape(np.zeros((1,) * 32).reshape((1,) * 32), " ".join(["_"] * 32))[1]) == 32
    )
    assert len(qv.enforce_shape(Shaped((1,) * 300), long_pattern)[1]) == 300
    assert qv.enforce_shape(np.zeros((2, 3)), "hoehe w_2")[1] == [2, 3]


def test_names_and_the_ellipsis_are_ascii():
    with pytest.raises(
        ValueError, match="'\u2026' \\(U\\+2026, one ellipsis character\\) is not '...'"
    ):
        qv.enforce_shape(np.zeros((2, 3)), "b \u2026")
    with pytest.raises(ValueError, match="'\u00f6' \\(U\\+00F6\\) is not one"):
        qv.enforce_shape(np.zeros((2, 3)), "h\u00f6he w")
    with pytest.raises(
        ValueError, match="U\\+0663"
    ):  # an Arabic-Indic digit 3 does not start a name
        qv.enforce_shape(np.zeros(3), ["\u0663"])


def test_pattern_errors_name_token_and_position():
    with pytest.raises(
        ValueError,
        match=re.escape(
            "pattern entry 2 '...' at character 6: a pattern has at most one ellipsis (entry 1 is "
            "one already)"
        ),
    ):
        qv.ShapePattern("b ... ... c")
    with pytest.raises(
        ValueError,
        match=re.escape("pattern entry 2 '*r' at character 6: a pattern has at most one"),
    ):
        qv.enforce_shape(np.zeros(3), "b ... *r")
    with pytest.raises(
        ValueError,
        match=re.escape(
            "pattern entry 1 'h!' at character 2: not a size, a name, '_', '...' or '*name'"
        ),
    ):
        qv.ShapePattern("b h! w")
    with pytest.raises(
        ValueError, match=re.escape("pattern entry 2 '...': a pattern has at most one ellipsis")
    ):
        qv.ShapePattern(["b", ..., ...])
    with pytest.raises(ValueError, match="pattern entry 0 .-3. at character 0: sizes must be >= 0"):
        qv.ShapePattern("-3")
    with pytest.raises(ValueError, match=re.escape("pattern entry 0 (-3): sizes must be >= 0")):
        qv.ShapePattern([-3])
    with pytest.raises(ValueError, match="pattern entry 0 'a b': expected one entry, not 2"):
        qv.ShapePattern(["a b"])
    with pytest.raises(ValueError, match="'n' is used both as a symbol and as a named ellipsis"):
        qv.ShapePattern("n *n")


def test_error_messages_name_axis_entry_and_shapes():
    with pytest.raises(ValueError) as info:
        qv.enforce_shape(np.zeros((8, 32, 32, 4)), "b h w 3")
    assert (
        str(info.value)
        == "axis 3 (3): expected 3, got 4; pattern [b, h, w, 3] vs shape (8, 32, 32, 4)"
    )
    b = qv.Bindings()
    qv.enforce_shape(np.zeros(3), "c", bindings=b)
    with pytest.raises(ValueError) as info:
        qv.enforce_shape(np.zeros((8, 32, 32, 4)), "b h w c", bindings=b)
    assert str(info.value) == (
        "axis 3 ('c'): expected 3, got 4; pattern [b, h, w, c] vs shape (8, 32, 32, 4); symbol 'c' "
        "is 3 from axis 0 of shape (3,) but 4 from axis 3 of shape (8, 32, 32, 4)"
    )
    with pytest.raises(ValueError) as info:
        qv.enforce_shape(np.zeros((8, 32)), "b h w 3")
    assert str(info.value) == "expected 4 axes, got 2; pattern [b, h, w, 3] vs shape (8, 32)"
    qv.enforce_shape(np.zeros(5), "n", bindings=b)
    with pytest.raises(
        ValueError,
        match=re.escape(
            "axis 0 ('*n'): 'n' is bound as a symbol from axis 0 of shape (5,); pattern [*n] vs "
            "shape (2,)"
        ),
    ):
        qv.enforce_shape(np.zeros(2), "*n", bindings=b)


# --- Ragged columns -----------------------------------------------------------


def test_ragged_column_binds_per_row_sizes():
    col = ragged([(3, 4, 6), (3, 8, 8), None, (3, 2, 5)])
    b = qv.Bindings()
    result = qv.enforce_shape(col, "n 3 h w", bindings=b)
    assert result[0] is col
    n, c, h, w = result[1]
    assert (n, c) == (4, 3)
    assert isinstance(h, np.ndarray) and h.dtype == np.int32
    np.testing.assert_array_equal(h, [4, 8, -1, 2])
    np.testing.assert_array_equal(b["w"], [6, 8, -1, 5])
    assert b["n"] == 4
    # A second ragged column agrees row by row; null rows are skipped.
    masks = ragged([(4, 6), (8, 8), (1, 1), (2, 5)])
    qv.enforce_shape(masks, "n h w", bindings=b)
    with pytest.raises(ValueError) as info:
        qv.check_shapes(images="n 3 h w", masks="n h w")(lambda images, masks: None)(
            col, ragged([(4, 6), (8, 8), (1, 1), (2, 7)])
        )
    assert str(info.value) == (
        "argument 'masks': row 3: axis 2 ('w'): expected 5, got 7; pattern [n, h, w] vs shape (4, "
        "2, 7); "
        "symbol 'w' is 5 from argument 'images' axis 3 but 7 from argument 'masks' axis 2"
    )
    with pytest.raises(
        ValueError,
        match=re.escape(
            "row 1: axis 2 (4): expected 4, got 8; pattern [n, 3, 4, w] vs shape (4, 3, 8, 8)"
        ),
    ):
        qv.enforce_shape(col, "n 3 4 w")
    with pytest.raises(
        ValueError,
        match="symbol 'h' has per-row sizes for 4 rows from axis 2 of a "
        "variable-shape column of 4 rows but 2 rows",
    ):
        qv.enforce_shape(ragged([(4, 6), (8, 9)]), "m h w", bindings=b)


def test_ragged_ellipsis_and_square_rows():
    col = ragged([(2, 4, 3), (5, 4, 3)])
    _, [n, (axes, k), c] = qv.enforce_shape(col, "n ... 3")
    assert n == 2 and c == 3
    np.testing.assert_array_equal(axes[0], [2, 5])
    assert axes[1] == 4
    assert k.dtype == np.int64
    np.testing.assert_array_equal(k, [8, 20])
    assert qv.enforce_shape(col, "... 3")[1][0][1] == 28
    qv.enforce_shape(ragged([(2, 2), (5, 5)]), "n k k")
    with pytest.raises(ValueError, match=re.escape("row 1: axis 2 ('k'): expected 4, got 5")):
        qv.enforce_shape(ragged([(2, 2), (4, 5)]), "n k k")


def test_ragged_uniform_shape_recorded():
    col = ragged([(2, 4, 3), (5, 4, 3)])
    assert col.type.uniform_shape is None or col.type.uniform_shape == (None, None, None)
    recorded = qv.ShapePattern("n h 4 3").with_uniform_shape(col)
    assert recorded.type.uniform_shape == (None, 4, 3)
    assert len(recorded) == 2
    assert qv.array(pa.array(recorded)).type.uniform_shape == (None, 4, 3)
    with pytest.raises(ValueError, match="axis 2 \\(5\\): expected 5, got 4"):
        qv.ShapePattern("n h 5 3").with_uniform_shape(col)


def test_ragged_all_null_rows():
    col = ragged([None, (2, 3)])[0:1]
    _, [n, h, c] = qv.enforce_shape(col, "n h 3")
    assert n == 1 and c == 3 and type(c) is int
    np.testing.assert_array_equal(h, [-1])


def ragged_from_shapes(shapes, valid=None):
    """A float32 column over (N, ndim) int32 shapes, with null rows where
    `valid` is False (built through pyarrow, which carries the validity)."""
    col = qv.VariableShapeTensorArray.from_jagged(
        np.zeros(int(np.prod(shapes, axis=1).sum()), np.float32), None, shapes
    )
    if valid is None:
        return col
    storage = pa.array(col).storage
    masked = pa.StructArray.from_arrays(
        [storage.field("data"), storage.field("shape")],
        names=["data", "shape"],
        mask=pa.array(~valid),
    )
    return qv.array(pa.ExtensionArray.from_storage(pa.array(col).type, masked))


def expected_sizes(shapes, valid, axis):
    return np.where(valid, shapes[:, axis], -1).astype(np.int32)


def test_ragged_many_rows_match_a_numpy_reference():
    # Thousands of rows (several of the scan's blocks), null rows, a slice
    # with an offset, rows of size 0, and an axis that varies only late.
    rng = np.random.default_rng(7)
    n = 5000
    shapes = np.empty((n, 3), np.int32)
    shapes[:, 0] = 3
    shapes[:, 1:] = rng.integers(0, 5, size=(n, 2))
    shapes[4321, 0] = 4  # the channel axis varies from its ninth block on
    valid = rng.random(n) > 0.1
    valid[4321] = True
    col = ragged_from_shapes(shapes, valid)
    for start, stop in [(0, n), (1, n), (1031, 4400), (0, 4000)]:
        part, s, v = col[start:stop], shapes[start:stop], valid[start:stop]
        n_rows, c, h, w = qv.enforce_shape(part, "n c h w")[1]
        assert n_rows == stop - start
        if stop > 4321 and start <= 4321:
            np.testing.assert_array_equal(c, expected_sizes(s, v, 0))
        else:
            assert c == 3 and type(c) is int
        np.testing.assert_array_equal(h, expected_sizes(s, v, 1))
        np.testing.assert_array_equal(w, expected_sizes(s, v, 2))
        assert h.dtype == np.int32 and h.flags.writeable and h.flags.c_contiguous
    # A literal size names the first offending row, in a later block.
    with pytest.raises(ValueError, match=re.escape("row 4321: axis 1 (3): expected 3, got 4")):
        qv.enforce_shape(col, "n 3 h w")
    assert qv.enforce_shape(col[:4000], "n 3 h w")[1][1] == 3


def test_ragged_symbol_mismatch_across_columns_names_the_row():
    rng = np.random.default_rng(3)
    shapes = rng.integers(1, 9, size=(3000, 2)).astype(np.int32)
    b = qv.Bindings()
    _, [_, h, _] = qv.enforce_shape(ragged_from_shapes(shapes), "n h w", bindings=b)
    h[:] = 0  # the returned sizes are the caller's: the binding keeps its own
    np.testing.assert_array_equal(b["h"], shapes[:, 0])
    other = shapes.copy()
    other[2047, 0] += 1
    with pytest.raises(ValueError, match=re.escape("row 2047: axis 1 ('h'): expected ")):
        qv.enforce_shape(ragged_from_shapes(other), "n h w", bindings=b)
    qv.enforce_shape(ragged_from_shapes(shapes), "n h w", bindings=b)
    # A square-rows check compares two varying axes of one column row by row.
    square = np.repeat(shapes[:, :1], 2, axis=1)
    qv.enforce_shape(ragged_from_shapes(square), "n k k")
    square[2999, 1] += 1
    with pytest.raises(ValueError, match=re.escape("row 2999: axis 2 ('k')")):
        qv.enforce_shape(ragged_from_shapes(square), "n k k")


def test_ragged_results_do_not_share_memory():
    col = ragged_from_shapes(np.array([[1, 2], [3, 4], [5, 6]], np.int32))
    first = qv.enforce_shape(col, "n h w")[1]
    second = qv.enforce_shape(col, "n h w")[1]
    first[1][:] = 0
    np.testing.assert_array_equal(second[1], [1, 3, 5])
    np.testing.assert_array_equal(np.asarray(col.shapes())[:, 0], [1, 3, 5])


# --- The decorator ------------------------------------------------------------


def test_check_shapes_decorator():
    @qv.check_shapes(images="b h w 3", labels="b", returns="b k")
    def model(images, labels, k=10):
        return np.zeros((labels.shape[0], k))

    out = model(np.zeros((8, 4, 4, 3)), np.zeros(8))
    assert out.shape == (8, 10)
    model(images=np.zeros((2, 4, 4, 3)), labels=np.zeros(2), k=3)
    with pytest.raises(ValueError) as info:
        model(np.zeros((8, 4, 4, 3)), np.zeros(4))
    assert str(info.value) == (
        "argument 'labels': axis 0 ('b'): expected 8, got 4; pattern [b] vs shape (4,); symbol 'b' "
        "is 8 "
        "from argument 'images' axis 0 but 4 from argument 'labels' axis 0"
    )
    with pytest.raises(
        ValueError, match=re.escape("argument 'images': axis 3 (3): expected 3, got 1")
    ):
        model(np.zeros((8, 4, 4, 1)), np.zeros(8))

    @qv.check_shapes(x="b n", returns="b")
    def bad(x):
        return np.zeros(x.shape[0] + 1)

    with pytest.raises(
        ValueError,
        match=re.escape(
            "return value: axis 0 ('b'): expected 2, got 3; pattern [b] vs shape (3,); symbol 'b' "
            "is 2 "
            "from argument 'x' axis 0 but 3 from return value axis 0"
        ),
    ):
        bad(np.zeros((2, 5)))
    # Each call has its own bindings.
    bad.__wrapped__(np.zeros((1, 1)))
    with pytest.raises(TypeError, match="has no parameter 'y' to check"):
        qv.check_shapes(y="a")(lambda x: x)
    assert model.__name__ == "model"


def test_check_shapes_skips_none_and_defaults():
    @qv.check_shapes(x="n", mask="n")
    def f(x, mask=None):
        return x

    f(np.zeros(3))
    f(np.zeros(3), None)
    with pytest.raises(ValueError, match="argument 'mask'"):
        f(np.zeros(3), np.zeros(4))
