"""quiver.safetensors against the safetensors package, measured in one run
on the same file.

One generated file of about 500 MB (QUIVER_BENCH_SAFETENSORS_MB) shaped
like a model's weights: a few hundred tensors, float32 and float16, from
small biases and norms to large matrices, written by
``safetensors.numpy.save_file``. The file is read once before timing, so
every contender reads it from the page cache. Each figure is the best of
several interleaved runs (bench_timing); ratio = peer time / quiver time
(> 1: quiver is faster).

What each contender does:
- ``qv.safetensors.load``: maps the file, every tensor a read-only NumPy
  view of the mapping (no copy; pages are read when touched).
- ``safetensors.numpy.load_file``: every tensor a writeable NumPy array,
  copied out of the file (the first line says whether they are writeable).
- ``safe_open(framework="numpy")`` + ``get_tensor`` for each name.
- ``qv.safetensors.read_table``: the file as a one-row qv.Table (views).
"touch" rows also read one byte of every 4 KiB page of every tensor, so a
mapping that defers its reads pays for them inside the timing.

  python bench/python/bench_safetensors.py
"""

import os
import platform
import tempfile
import time

import numpy as np
from bench_timing import best_each
from safetensors import safe_open
from safetensors.numpy import load_file, save_file

import quiver as qv

PAGE = 4096


def make_weights(target_bytes, seed=0):
    """Tensors of a transformer-like model: per layer, four attention
    matrices, two MLP matrices, biases and norms; float32 and float16."""
    rng = np.random.default_rng(seed)
    d, layers = 512, 0
    tensors = {"embed.weight": rng.standard_normal((8000, d), dtype=np.float32)}
    total = tensors["embed.weight"].nbytes
    while total < target_bytes:
        dtype = np.float16 if layers % 2 else np.float32
        p = f"layers.{layers}."
        layer = {
            p + "attn.q.weight": (d, d),
            p + "attn.k.weight": (d, d),
            p + "attn.v.weight": (d, d),
            p + "attn.o.weight": (d, d),
            p + "mlp.up.weight": (4 * d, d),
            p + "mlp.down.weight": (d, 4 * d),
            p + "mlp.up.bias": (4 * d,),
            p + "mlp.down.bias": (d,),
            p + "norm1.weight": (d,),
            p + "norm2.weight": (d,),
        }
        for name, shape in layer.items():
            tensors[name] = rng.standard_normal(shape, dtype=np.float32).astype(dtype)
            total += tensors[name].nbytes
        layers += 1
    return tensors


def touch(arrays):
    """One byte of every page of every array: forces a mapping's reads."""
    s = 0
    for a in arrays:
        flat = a.reshape(-1).view(np.uint8)
        s += int(flat[::PAGE].sum())
    return s


def qv_load(path):
    return qv.safetensors.load(path)


def st_load(path):
    return load_file(path)


def st_open_get(path):
    with safe_open(path, framework="numpy") as f:
        return {name: f.get_tensor(name) for name in f.keys()}


def qv_open_get(path):
    with qv.safetensors.open(path) as f:
        return {name: f.get_tensor(name) for name in f.keys()}


def row(label, quiver_s, peer_s, peer):
    print(
        f"| {label} | {quiver_s * 1e3:.3f} | {peer} {peer_s * 1e3:.3f} | {peer_s / quiver_s:.2f} |"
    )


def main():
    mb = int(os.environ.get("QUIVER_BENCH_SAFETENSORS_MB", "500"))
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "model.safetensors")
        weights = make_weights(mb * 1_000_000)
        save_file(weights, path)
        del weights
        size = os.path.getsize(path)
        with open(path, "rb") as f:  # into the page cache
            while f.read(1 << 24):
                pass
        with qv.safetensors.open(path) as f:
            count = len(f)
        # Writeable arrays cannot view a read-only mapping: they are copies.
        copies = all(a.flags.writeable for a in load_file(path).values())
        print(
            f"safetensors bench: {size / 1e6:.0f} MB, {count} tensors, "
            f"{os.cpu_count()} cores, {platform.machine()}, "
            f"{time.strftime('%Y-%m-%d', time.gmtime())}; "
            f"load_file arrays writeable (copies): {copies}"
        )
        print("| what | quiver ms | peer ms | ratio (peer / quiver) |")
        print("|---|---|---|---|")

        q, st, so = best_each(
            lambda: qv_load(path), lambda: st_load(path), lambda: st_open_get(path), repeat=5
        )
        row("every tensor as NumPy: `load`", q, st, "`load_file`")
        row("every tensor as NumPy: `load`", q, so, "`safe_open` + `get_tensor`")
        q, st, so = best_each(
            lambda: touch(qv_load(path).values()),
            lambda: touch(st_load(path).values()),
            lambda: touch(st_open_get(path).values()),
            repeat=5,
        )
        row("every tensor as NumPy, every page touched", q, st, "`load_file`")
        row("every tensor as NumPy, every page touched", q, so, "`safe_open` + `get_tensor`")
        q, so = best_each(lambda: qv_open_get(path), lambda: st_open_get(path), repeat=5)
        row("`open` + `get_tensor` for each name", q, so, "`safe_open` + `get_tensor`")

        # The header alone, a millisecond or so: the best of many single
        # opens (a loop of them would average in the shared machine's load).
        def qv_header():
            with qv.safetensors.open(path) as f:
                return f.keys()

        def st_header():
            with safe_open(path, framework="numpy") as f:
                return f.keys()

        q, so = best_each(qv_header, st_header, repeat=100)
        row("open the header + `keys()`", q, so, "`safe_open`")
        (t,) = best_each(lambda: qv.safetensors.read_table(path), repeat=5)
        print(f"| `read_table` (one-row qv.Table over the mapping) | {t * 1e3:.3f} | | |")


if __name__ == "__main__":
    main()
