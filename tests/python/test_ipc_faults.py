"""IPC faults: readers keep what they checked, stream readers read as bytes arrive,
and the errors of bad sources and failing sinks say what happened."""

import io
import os
import struct
import threading

import numpy as np
import pyarrow as pa
import pyarrow.ipc as pai
import pytest

import quiver as qv


def table(rows=8, first=0):
    return pa.table({"x": pa.array(range(first, first + rows), pa.int32())})


def file_bytes(batches=2):
    sink = pa.BufferOutputStream()
    with pai.new_file(sink, table().schema) as w:
        for b in range(batches):
            w.write_table(table(first=b * 8))
    return sink.getvalue().to_pybytes()


def headerless_message(kind):
    """A Message flatbuffer whose header union tag is `kind` (Tensor = 4,
    SparseTensor = 5) with no header table, framed as on the wire."""
    # root offset, vtable (size 8, table size 8, version at 4, header_type
    # at 6), table (vtable offset, version V5, header_type).
    flatbuffer = (
        struct.pack("<I", 12)
        + struct.pack("<HHHH", 8, 12, 4, 6)
        + struct.pack("<i", 8)
        + struct.pack("<hB", 4, kind)
        + b"\0" * 5
    )
    flatbuffer += b"\0" * (-len(flatbuffer) % 8)
    return struct.pack("<Ii", 0xFFFFFFFF, len(flatbuffer)) + flatbuffer


@pytest.mark.parametrize("kind, read", [(4, qv.ipc.read_tensor), (5, qv.ipc.read_sparse_tensor)])
def test_a_tensor_message_without_its_header_table_is_an_error(kind, read):
    with pytest.raises(ValueError, match="header but carries no header table"):
        read(headerless_message(kind))


def test_a_footer_rewritten_after_open_is_not_read_again():
    data = bytearray(file_bytes(2))
    reader = qv.ipc.open_file(data)
    footer_length = int.from_bytes(data[-10:-6], "little")
    data[-10 - footer_length : -10] = b"\xff" * footer_length
    assert reader.num_record_batches == 2
    assert pa.table(reader[1]).column("x").to_pylist() == list(range(8, 16))


def test_a_footer_block_outside_the_file_is_refused():
    data = bytearray(file_bytes(1))
    assert qv.ipc.open_file(bytes(data))[0].num_rows == 8  # sound before the change
    footer_length = int.from_bytes(data[-10:-6], "little")
    footer = bytes(data[-10 - footer_length : -10])
    # The one record batch block (offset, int32 metadata length, padding,
    # body length): found by its shape, then its metadata length negated.
    for at in range(0, len(footer) - 24, 4):
        offset, metadata = struct.unpack_from("<qi", footer, at)
        body = struct.unpack_from("<q", footer, at + 16)[0]
        if 8 < offset < len(data) and offset % 8 == 0 and 0 < metadata < 4096 and 0 < body < 256:
            start = len(data) - 10 - footer_length + at
            data[start + 8 : start + 12] = struct.pack("<i", -metadata)
            break
    else:
        pytest.fail("no record batch block found in the footer")
    with pytest.raises(ValueError, match="record batch block 0 .* does not lie between"):
        qv.ipc.open_file(bytes(data))


@pytest.mark.parametrize("memory_map", [True, False])
def test_a_file_that_shrinks_under_the_reader_is_an_oserror(tmp_path, memory_map):
    path = tmp_path / "shrinks.arrow"
    data = file_bytes(3)
    path.write_bytes(data)
    reader = qv.ipc.open_file(path, memory_map=memory_map)
    reader[0]
    os.truncate(path, len(data) // 2)
    with pytest.raises(
        OSError,
        match=f"shrinks.arrow' shrank to {len(data) // 2} bytes after it was "
        f"opened with {len(data)} bytes",
    ):
        reader[2]


def test_open_stream_returns_each_batch_before_the_producer_closes():
    read_fd, write_fd = os.pipe()
    first_seen = threading.Event()
    outcome = {}

    def produce():
        with os.fdopen(write_fd, "wb") as out:
            writer = qv.ipc.new_stream(out, table().schema)
            writer.write(table(first=0))
            outcome["seen"] = first_seen.wait(20)  # a reader waiting for EOF never gets here
            writer.write(table(first=8))
            writer.close()

    producer = threading.Thread(target=produce)
    producer.start()
    with os.fdopen(read_fd, "rb") as source:
        reader = qv.ipc.open_stream(source)
        first = next(reader)
        first_seen.set()
        rest = list(reader)
    producer.join()
    assert outcome["seen"], "the first batch came only after the producer closed the pipe"
    assert pa.table(first).column("x").to_pylist() == list(range(8))
    assert [pa.table(b).column("x").to_pylist() for b in rest] == [list(range(8, 16))]


def test_open_stream_of_a_fifo_path_reads_as_bytes_arrive(tmp_path):
    # A FIFO's size is 0: it used to be mapped as an empty file. A path
    # that is not a regular file is read message by message instead.
    fifo = tmp_path / "batches.fifo"
    os.mkfifo(fifo)
    first_seen = threading.Event()
    outcome = {}

    def produce():
        with open(fifo, "wb") as out:
            writer = qv.ipc.new_stream(out, table().schema)
            writer.write(table(first=0))
            outcome["seen"] = first_seen.wait(20)
            writer.write(table(first=8))
            writer.close()

    producer = threading.Thread(target=produce)
    producer.start()
    reader = qv.ipc.open_stream(str(fifo))  # waits for the writer to open it
    first = next(reader)
    first_seen.set()
    rest = list(reader)
    producer.join()
    assert outcome["seen"], "the first batch came only after the producer closed the FIFO"
    assert pa.table(first).column("x").to_pylist() == list(range(8))
    assert [pa.table(b).column("x").to_pylist() for b in rest] == [list(range(8, 16))]


def test_open_stream_of_dev_stdin_reads_a_piped_stream(tmp_path):
    sink = pa.BufferOutputStream()
    with pai.new_stream(sink, pa.table(table(first=0)).schema) as writer:
        writer.write_table(pa.table(table(first=0)))
    code = (
        "import pyarrow as pa, quiver as qv; "
        "print(pa.table(qv.ipc.open_stream('/dev/stdin').read_all()).column('x').to_pylist())"
    )
    import subprocess
    import sys

    done = subprocess.run(
        [sys.executable, "-c", code],
        input=sink.getvalue().to_pybytes(),
        capture_output=True,
        timeout=60,
        env={**os.environ},
    )
    assert done.returncode == 0, done.stderr.decode()
    assert done.stdout.decode().strip() == str(list(range(8)))


def test_a_stream_cut_inside_a_message_says_so(tmp_path):
    sink = pa.BufferOutputStream()
    with pai.new_stream(sink, table().schema) as w:
        w.write_table(table())
    data = sink.getvalue().to_pybytes()
    schema_end = 8 + int.from_bytes(data[4:8], "little")
    path = tmp_path / "cut.arrows"
    path.write_bytes(data[: len(data) - 20])
    with open(path, "rb") as source:
        reader = qv.ipc.open_stream(source)
        with pytest.raises(
            ValueError,
            match=f"the stream ends inside the message at byte {schema_end}: it claims a body of",
        ):
            next(reader)


def test_text_mode_file_objects_are_named_as_such(tmp_path):
    path = tmp_path / "t.arrow"
    path.write_bytes(file_bytes(1))
    with open(path, "r", encoding="latin-1") as text:
        with pytest.raises(TypeError, match="text mode.*'rb'"):
            qv.ipc.open_stream(text)
        with pytest.raises(TypeError, match="text mode.*'rb'"):
            qv.ipc.open_file(text)

    class StrReader:
        def read(self, n=-1):
            return "not bytes"

    with pytest.raises(TypeError, match="returned str, not bytes"):
        qv.ipc.open_stream(StrReader())


def test_batch_index_errors_count_batches():
    reader = qv.ipc.open_file(file_bytes(1))
    with pytest.raises(IndexError, match="index 1 is out of range for 1 batches"):
        reader[1]


def test_a_failing_file_object_names_the_call_and_offset():
    class Full:
        written = 0

        def write(self, b):
            if self.written + len(b) > 100:
                raise OSError(28, "No space left on device")
            self.written += len(b)

    with pytest.raises(
        OSError, match=r"write\(\) of \d+ bytes at byte \d+ of the file object .* failed"
    ):
        qv.ipc.write_file(pa.table({"x": np.arange(1000)}), Full())


def test_a_failed_write_leaves_the_previous_file_whole(tmp_path):
    path = tmp_path / "t.arrow"
    qv.ipc.write_file(table(8), path)
    before = path.read_bytes()
    with pytest.raises(RuntimeError, match="stop"):
        with qv.ipc.new_file(path, table().schema) as writer:
            writer.write(table(8, first=100))
            raise RuntimeError("stop")
    assert path.read_bytes() == before
    assert [p.name for p in tmp_path.iterdir()] == ["t.arrow"]  # no temporary left
    qv.ipc.write_file(table(4, first=7), path)
    assert pa.ipc.open_file(str(path)).read_all().column("x").to_pylist() == [7, 8, 9, 10]


def test_a_sink_failing_after_n_bytes_never_yields_a_readable_partial_output():
    def write(sink):
        writer = qv.ipc.new_file(sink, table().schema)
        writer.write(table(32))
        writer.write(table(32, first=32))
        writer.close()

    class FailsAfter:
        def __init__(self, limit):
            self.limit = limit
            self.data = bytearray()

        def write(self, b):
            if len(self.data) + len(b) > self.limit:
                raise OSError(28, "No space left on device")
            self.data += b

    whole = io.BytesIO()
    write(whole)
    complete = whole.getvalue()
    for fail_at in range(len(complete)):  # every byte of the file
        sink = FailsAfter(fail_at)
        with pytest.raises(OSError, match=r"at byte \d+ of the file object"):
            write(sink)
        # What reached the sink is a prefix of the complete file, never
        # more, and no reader takes it for a file.
        assert bytes(sink.data) == complete[: len(sink.data)]
        with pytest.raises((ValueError, OSError)):
            qv.ipc.open_file(bytes(sink.data))


def test_a_writer_stops_after_a_failed_write():
    class Flaky:
        fail = False
        data = bytearray()

        def write(self, b):
            if self.fail:
                raise OSError(32, "Broken pipe")
            self.data += b

    sink = Flaky()
    writer = qv.ipc.new_stream(sink, table().schema)
    sink.fail = True
    with pytest.raises(OSError, match="Broken pipe"):
        writer.write(table(8))
    sink.fail = False
    with pytest.raises(OSError, match="stopped after a failed write"):
        writer.write(table(8))
    with pytest.raises(OSError, match="stopped after a failed write"):
        writer.close()


KILLED_WRITER = r"""
import os, signal, sys
import numpy as np
import quiver as qv
path = sys.argv[1]
big = qv.FixedShapeTensorArray.from_numpy(np.ones((64, 256, 256), np.float32))
import pyarrow as pa
t = pa.table({"t": pa.array(big)})
writer = qv.ipc.new_file(path, t.schema)
for i in range(4):
    writer.write(t)
os.kill(os.getpid(), signal.SIGKILL)
"""


@pytest.mark.parametrize("previous", [False, True])
def test_a_process_killed_mid_write_leaves_no_partial_file(tmp_path, previous):
    import subprocess
    import sys

    path = tmp_path / "killed.arrow"
    if previous:
        qv.ipc.write_file(table(8), path)
    before = path.read_bytes() if previous else None
    env = dict(os.environ)
    proc = subprocess.run(
        [sys.executable, "-c", KILLED_WRITER, str(path)], env=env, capture_output=True
    )
    assert proc.returncode == -9, proc.stderr.decode()
    if previous:
        assert path.read_bytes() == before
    else:
        assert not path.exists()


def test_a_field_name_that_is_not_utf8_is_escaped_in_the_real_error():
    deep = pa.int8()
    for _ in range(70):
        deep = pa.list_(deep)
    sink = pa.BufferOutputStream()
    with pai.new_stream(sink, pa.schema([("ZZZZ", deep)])):
        pass
    data = sink.getvalue().to_pybytes()
    assert data.count(b"ZZZZ") == 1
    data = data.replace(b"ZZZZ", b"\xff\xfeZZ")
    with pytest.raises(ValueError, match=r"\\xff\\xfeZZ.*nests more than 64 levels deep"):
        qv.ipc.open_stream(data)


def test_codec_names_in_any_case_and_levels_in_their_range(tmp_path):
    t = table(64)
    for name in ["ZSTD", "Zstd", "LZ4", "lz4_FRAME"]:
        qv.ipc.write_file(t, tmp_path / "c.arrow", compression=name)
        assert pa.ipc.open_file(str(tmp_path / "c.arrow")).read_all().equals(t)
    with pytest.raises(
        ValueError, match="compression level 100 is outside ZSTD's range -131072 to 22"
    ):
        qv.ipc.write_file(t, tmp_path / "c.arrow", compression="zstd", compression_level=100)
    with pytest.raises(
        ValueError, match="compression level 13 is outside LZ4_FRAME's range 0 to 12"
    ):
        qv.ipc.new_stream(io.BytesIO(), t.schema, compression="lz4", compression_level=13)
    with pytest.raises(
        ValueError, match=r"compression_level=1099511627776 is outside every codec's range"
    ):
        qv.ipc.write_file(t, tmp_path / "c.arrow", compression="zstd", compression_level=2**40)
    with pytest.raises(TypeError, match="compression_level must be an int, got float"):
        qv.ipc.write_file(t, tmp_path / "c.arrow", compression="zstd", compression_level=3.0)
    with pytest.raises(ValueError, match="compression='gzip' is not one of"):
        qv.ipc.write_file(t, tmp_path / "c.arrow", compression="gzip")
    qv.ipc.write_file(t, tmp_path / "c.arrow", compression="zstd", compression_level=-5)
    assert pa.ipc.open_file(str(tmp_path / "c.arrow")).read_all().equals(t)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["c.arrow"]  # refused writes left nothing


def test_path_sinks_keep_fifos_modes_and_symlinks(tmp_path):
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    got = {}
    reader = threading.Thread(
        target=lambda: got.update(
            rows=sum(b.num_rows for b in qv.ipc.open_stream(open(fifo, "rb")))
        )
    )
    reader.start()
    with qv.ipc.new_stream(fifo, table().schema) as writer:
        writer.write(table(8))
    reader.join(20)
    assert got.get("rows") == 8 and fifo.is_fifo()
    private = tmp_path / "private.arrow"
    private.write_bytes(b"old")
    os.chmod(private, 0o600)
    qv.ipc.write_file(table(4), private)
    assert (os.stat(private).st_mode & 0o777) == 0o600
    target = tmp_path / "target.arrow"
    qv.ipc.write_file(table(4), target)
    link = tmp_path / "link.arrow"
    link.symlink_to(target)
    qv.ipc.write_file(table(6), link)
    assert link.is_symlink() and pa.ipc.open_file(str(target)).read_all().num_rows == 6
    with pytest.raises(OSError, match="is a directory"):
        qv.ipc.write_file(table(4), tmp_path)


def test_a_raw_file_object_that_takes_part_of_each_write_gets_everything():
    class Trickle(io.RawIOBase):
        def __init__(self):
            self.data = bytearray()

        def writable(self):
            return True

        def write(self, b):
            chunk = bytes(b[:4096])
            self.data += chunk
            return len(chunk)

    sink = Trickle()
    qv.ipc.write_file(pa.table({"x": np.arange(100_000)}), sink)
    assert pa.ipc.open_file(pa.py_buffer(bytes(sink.data))).read_all().num_rows == 100_000


def test_misbehaving_stream_reads_are_oserrors_and_the_reader_stays_failed():
    sink = pa.BufferOutputStream()
    with pai.new_stream(sink, table().schema) as w:
        w.write_table(table())
        w.write_table(table())
    data = sink.getvalue().to_pybytes()

    class FloatCount(io.RawIOBase):
        def __init__(self):
            self.inner = io.BytesIO(data)

        def readinto(self, b):
            n = self.inner.readinto(b)
            return float(n) if self.inner.tell() > 300 else n

    reader = qv.ipc.open_stream(FloatCount())
    with pytest.raises(OSError, match="not a count of the bytes it read"):
        list(reader)
    with pytest.raises(OSError, match="not a count of the bytes it read"):
        reader.read_next_batch()

    class Greedy:
        def __init__(self):
            self.inner = io.BytesIO(data)

        def read(self, n=-1):
            return self.inner.read(n + 16)

    with pytest.raises(OSError, match="more than it was asked for"):
        list(qv.ipc.open_stream(Greedy()))


def test_a_failed_close_is_repeated_by_every_later_close(tmp_path):
    class FailsAtFooter:
        def __init__(self):
            self.data = bytearray()
            self.fail = False

        def write(self, b):
            if self.fail:
                raise OSError(28, "No space left on device")
            self.data += b

    sink = FailsAtFooter()
    writer = qv.ipc.new_file(sink, table().schema)
    writer.write(table(8))
    sink.fail = True
    for _ in range(2):
        with pytest.raises(OSError, match="No space left on device"):
            writer.close()


def test_closing_while_another_thread_writes_neither_crashes_nor_corrupts(tmp_path):
    big = pa.table({"x": np.arange(2_000_000)})
    for i in range(5):
        path = tmp_path / f"w{i}.arrow"
        writer = qv.ipc.new_file(path, big.schema)
        errors = []

        def write():
            try:
                for _ in range(3):
                    writer.write(big)
            except ValueError as e:
                errors.append(e)  # closed by the other thread first

        thread = threading.Thread(target=write)
        thread.start()
        writer.close()
        thread.join()
        rows = pa.ipc.open_file(str(path)).read_all().num_rows
        assert rows % 2_000_000 == 0 and rows // 2_000_000 + (1 if errors else 0) <= 3


class _Interrupting(io.RawIOBase):
    """Serves `data`, then raises KeyboardInterrupt on call number `calls`."""

    def __init__(self, data, calls):
        self.buffer = io.BytesIO(data)
        self.calls = calls

    def readable(self):
        return True

    def readinto(self, view):
        if self.calls == 0:
            raise KeyboardInterrupt
        self.calls -= 1
        return self.buffer.readinto(view)


@pytest.mark.parametrize("calls", [0, 1, 2, 3])
def test_ctrl_c_inside_a_file_object_read_interrupts(calls):
    # KeyboardInterrupt from readinto() reaches the caller as itself, not
    # as an OSError (or a stream error), whichever message it cut.
    table = pa.table({"x": [1, 2, 3]})
    sink = pa.BufferOutputStream()
    with pai.new_stream(sink, table.schema) as writer:
        writer.write_table(table)
    source = _Interrupting(sink.getvalue().to_pybytes(), calls)
    with pytest.raises(KeyboardInterrupt):
        qv.ipc.open_stream(source).read_all()
    # The next error on this thread is its own again.
    with pytest.raises(ValueError, match="text file"):
        qv.ipc.open_stream(b"not a stream")


def test_ctrl_c_inside_a_file_object_write_interrupts():
    class Interrupting(io.RawIOBase):
        def writable(self):
            return True

        def write(self, data):
            raise KeyboardInterrupt

    table = qv.table({"x": [1]})
    with pytest.raises(KeyboardInterrupt):
        with qv.ipc.new_stream(Interrupting(), table.schema) as writer:
            writer.write(table)
    with pytest.raises(SystemExit):

        class Exiting(Interrupting):
            def write(self, data):
                raise SystemExit(3)

        qv.ipc.write_file(table, Exiting())


def test_an_interrupt_a_writer_drops_does_not_resurface_later():
    # Leaving a `with` block by an exception closes a file object's writer
    # and ignores what that close says; Ctrl-C inside that close's write
    # must not turn the thread's next, unrelated error into a
    # KeyboardInterrupt.
    class InterruptingLater(io.RawIOBase):
        armed = False

        def writable(self):
            return True

        def write(self, data):
            if self.armed:
                raise KeyboardInterrupt("stale")
            return len(data)

    table = qv.table({"x": [1, 2, 3]})
    sink = InterruptingLater()
    with pytest.raises(RuntimeError, match="body failed"):
        with qv.ipc.new_stream(sink, table.schema) as writer:
            writer.write(table)
            sink.armed = True
            raise RuntimeError("body failed")
    with pytest.raises(ValueError, match="text file"):
        qv.ipc.open_stream(b"not a stream")


def test_a_dictionary_changed_under_the_reader_is_an_error_not_a_crash():
    # open_stream(bytearray) reads the caller's memory in place: a base
    # dictionary checked with batch 0 and then overwritten must not be
    # trusted when batch 1's delta is appended to it (a heap overflow read
    # before).
    values = pa.array(["a", "bb"])
    first = pa.record_batch(
        {"d": pa.DictionaryArray.from_arrays(pa.array([0, 1], pa.int32()), values)}
    )
    second = pa.record_batch(
        {
            "d": pa.DictionaryArray.from_arrays(
                pa.array([2, 0], pa.int32()), pa.array(["a", "bb", "ccc"])
            )
        }
    )
    sink = pa.BufferOutputStream()
    options = pai.IpcWriteOptions(emit_dictionary_deltas=True)
    with pai.new_stream(sink, first.schema, options=options) as writer:
        writer.write_batch(first)
        writer.write_batch(second)
    data = bytearray(sink.getvalue().to_pybytes())
    reader = qv.ipc.open_stream(data)
    assert pa.table(reader.read_next_batch()).column("d").to_pylist() == ["a", "bb"]
    at = bytes(data).find(struct.pack("<3i", 0, 1, 3))  # the base dictionary's offsets
    assert at > 0
    data[at + 8 : at + 12] = struct.pack("<i", 1 << 20)
    with pytest.raises(ValueError, match="offsets changed after they were checked"):
        reader.read_next_batch()
