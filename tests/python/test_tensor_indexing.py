"""qv.Tensor indexing: NumPy basic indexing, zero-copy views, dim names, errors."""

import numpy as np
import pytest

import quiver as qv

BASE = np.arange(2 * 3 * 4 * 5, dtype=np.int32).reshape(2, 3, 4, 5)
NAMES = ["N", "C", "H", "W"]

KEYS = [
    0,
    -1,
    1,
    (1, 2),
    (0, -1, 3, -5),
    (1, 2, 3, 4),
    slice(None),
    slice(1, None),
    slice(None, None, -1),
    slice(None, -1),
    slice(-10, 10),
    slice(5, 7),
    slice(1, 1),
    slice(2, 0, -1),
    (slice(None), slice(None, None, 2)),
    (slice(None), slice(None, None, -2)),
    (Ellipsis, 0),
    (Ellipsis, -1),
    (0, Ellipsis),
    (0, Ellipsis, 4),
    (Ellipsis,),
    Ellipsis,
    (),
    (Ellipsis, slice(None, None, -1)),
    (slice(None, None, -1), Ellipsis, slice(1, 4, 2)),
    (1, slice(None), slice(3, None, -1), 2),
    (slice(None), 2, slice(None, None, 3)),
    None,
    (None, 0),
    (Ellipsis, None),
    (0, None, slice(None), None, Ellipsis),
    (slice(None, None, 10),),
    (slice(None, None, -100),),
    (slice(-100, 100, 3),),
    (np.int64(1), np.int32(-2)),
    (slice(np.int8(1), None),),
]


def view_of(array, names=None):
    return qv.Tensor.from_numpy(array, dim_names=names)


@pytest.mark.parametrize("key", KEYS, ids=repr)
@pytest.mark.parametrize("layout", ["c", "transposed", "reversed"])
def test_indexing_matches_numpy(key, layout):
    nd = {"c": BASE, "transposed": BASE.transpose(3, 1, 0, 2), "reversed": BASE[::-1, :, ::-1]}[
        layout
    ]
    t = view_of(nd)
    try:
        expected = nd[key]
    except IndexError:  # out of range for this layout's shape: an IndexError here too
        with pytest.raises(IndexError, match="out of bounds for axis"):
            t[key]
        return
    got = t[key]
    assert isinstance(got, qv.Tensor)
    out = np.asarray(got)
    assert out.shape == np.shape(expected) and got.shape == out.shape
    np.testing.assert_array_equal(out, expected)
    # NumPy's strides, on the axes where they matter (size-1 axes may have any).
    expected_strides = np.asarray(expected).strides
    assert [s for s, n in zip(got.strides, out.shape) if n > 1] == [
        s for s, n in zip(expected_strides, out.shape) if n > 1
    ]
    if out.size > 0:
        assert np.shares_memory(out, nd)  # a view, no copy
    # The view indexes again like NumPy (a view of a view).
    if out.ndim > 0:
        np.testing.assert_array_equal(np.asarray(got[::-1]), np.asarray(expected)[::-1])


def test_dim_names_follow_the_axes():
    t = view_of(BASE, NAMES)
    assert t[0].dim_names == ["C", "H", "W"]
    assert t[:, ::2].dim_names == NAMES
    assert t[..., 0].dim_names == ["N", "C", "H"]
    assert t[0, ..., 1].dim_names == ["C", "H"]
    assert t[None, 1].dim_names == ["", "C", "H", "W"]
    assert t[1, 2, 3, 4].dim_names is None and t[1, 2, 3, 4].ndim == 0
    assert view_of(BASE)[0].dim_names is None


def test_results_are_tensors_that_keep_their_memory_alive():
    nd = np.arange(12.0).reshape(3, 4)
    t = view_of(nd)
    v = t[::-1, 1::2]
    assert v.strides == (-32, 16) and v.shape == (3, 2)
    del t, nd
    np.testing.assert_array_equal(np.asarray(v), [[9, 11], [5, 7], [1, 3]])
    assert v.tolist() == [[9.0, 11.0], [5.0, 7.0], [1.0, 3.0]]
    scalar = v[0, 1]
    assert scalar.shape == () and scalar.tolist() == 11.0 and float(np.asarray(scalar)) == 11.0
    assert v.to_contiguous().is_contiguous and v.to_contiguous() == v
    # Negative strides export through DLPack and to NumPy alike.
    np.testing.assert_array_equal(np.from_dlpack(v), np.asarray(v))
    assert not v.is_contiguous


def test_bool8_and_float16_views():
    flags = np.array([[True, False], [False, True]])
    np.testing.assert_array_equal(np.asarray(view_of(flags)[:, ::-1]), flags[:, ::-1])
    half = np.arange(6, dtype=np.float16).reshape(2, 3)
    np.testing.assert_array_equal(np.asarray(view_of(half)[-1, ::2]), half[-1, ::2])


def test_out_of_range_integers_name_the_axis():
    t = view_of(BASE)
    with pytest.raises(IndexError, match="index 2 is out of bounds for axis 0 with size 2"):
        t[2]
    with pytest.raises(IndexError, match="index -6 is out of bounds for axis 3 with size 5"):
        t[..., -6]
    with pytest.raises(IndexError, match="index 4 is out of bounds for axis 2 with size 4"):
        t[0, 0, 4]
    with pytest.raises(IndexError):  # does not fit an index-sized integer
        t[10**30]
    with pytest.raises(IndexError, match="tensor is 4-dimensional, but 5 were indexed"):
        t[0, 0, 0, 0, 0]
    with pytest.raises(IndexError, match="single ellipsis"):
        t[..., 0, ...]
    with pytest.raises(ValueError, match="slice step cannot be zero"):
        t[::0]
    with pytest.raises(IndexError, match="out of bounds for axis 0 with size 0"):
        view_of(np.zeros((0, 3)))[0]


@pytest.mark.parametrize(
    "key",
    [
        [0, 1],
        np.array([0, 1]),
        np.array([True, False]),
        True,
        False,
        np.True_,
        (0, [1, 2]),
        "a",
        1.0,
        (slice(None), 0.5),
        np.array(True),
    ],
)
def test_advanced_indexing_is_refused_with_a_hint(key):
    t = view_of(BASE)
    with pytest.raises(TypeError, match=r"basic indexing.*numpy\.asarray\(t\)\[key\]"):
        t[key]


def test_zero_d_and_empty_tensors():
    t = view_of(np.array(5.0))
    assert t[()].shape == () and t[...].shape == ()
    assert t[None].shape == (1,) and np.asarray(t[None]).tolist() == [5.0]
    with pytest.raises(IndexError, match="0-dimensional, but 1 were indexed"):
        t[0]
    empty = view_of(np.zeros((0, 4), np.int16))
    assert empty[:, 1].shape == (0,) and empty[::-1, ::2].shape == (0, 2)
    assert empty[5:].shape == (0, 4)
