"""quiver.release_unused_memory(): the memory of freed buffers quiver keeps
for reuse (docs/behaviour.md, "Memory")."""

import sys

import numpy as np
import pytest

import quiver as qv

MIB = 1 << 20

pytestmark = pytest.mark.skipif(
    not sys.platform.startswith("linux"), reason="freed blocks are kept on Linux only"
)


def rss_bytes():
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * 4096


def test_a_freed_column_over_512_mib_is_kept_until_released():
    qv.release_unused_memory()
    source = np.ones(520 * MIB, np.uint8)
    column = qv.VariableShapeTensorArray.from_numpy([source])  # one copy of 520 MiB
    del source
    with_column = rss_bytes()
    del column  # its values buffer is kept, not unmapped
    released = qv.release_unused_memory()
    assert released >= 520 * MIB
    # Resident while kept (unless the kernel took it back under pressure
    # already): either way it is gone now.
    assert rss_bytes() < with_column - 400 * MIB
    assert qv.release_unused_memory() == 0


def test_the_kept_block_serves_the_next_build_of_its_size():
    qv.release_unused_memory()
    rows = [np.full(600 * MIB, 7, np.uint8)]
    first = qv.VariableShapeTensorArray.from_numpy(rows)
    address = np.asarray(first[0]).__array_interface__["data"][0]
    del first
    again = qv.VariableShapeTensorArray.from_numpy(rows)
    assert np.asarray(again[0]).__array_interface__["data"][0] == address
    assert np.array_equal(np.asarray(again[0])[-4096:], rows[0][-4096:])
    del again
    assert qv.release_unused_memory() >= 600 * MIB


def test_release_with_nothing_kept_returns_zero():
    qv.release_unused_memory()
    assert qv.release_unused_memory() == 0
