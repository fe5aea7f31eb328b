import ctypes
import os
import sys

import numpy as np
import pytest

NUMERIC_DTYPES = [
    "int8",
    "int16",
    "int32",
    "int64",
    "uint8",
    "uint16",
    "uint32",
    "uint64",
    "float16",
    "float32",
    "float64",
]

PERMUTATIONS_3D = [[0, 1, 2], [2, 0, 1], [1, 2, 0], [0, 2, 1], [1, 0, 2], [2, 1, 0]]


class CapsuleProducer:
    """Hands out fixed (schema, array) capsules, as a foreign producer would."""

    def __init__(self, schema_capsule, array_capsule):
        self.capsules = (schema_capsule, array_capsule)

    def __arrow_c_array__(self, requested_schema=None):
        return self.capsules


def capsule_pointer(capsule, name):
    get = ctypes.pythonapi.PyCapsule_GetPointer
    get.restype = ctypes.c_void_p
    get.argtypes = [ctypes.py_object, ctypes.c_char_p]
    return get(capsule, name)


def sample(dtype, shape, seed=0):
    rng = np.random.default_rng(seed)
    if np.dtype(dtype) == np.bool_:
        return rng.integers(0, 2, size=shape).astype(bool)
    if np.dtype(dtype).kind == "f":
        return rng.standard_normal(shape).astype(dtype)
    info = np.iinfo(dtype)
    return rng.integers(info.min, info.max, size=shape, dtype=dtype, endpoint=True)


@pytest.fixture
def producer():
    return CapsuleProducer


@pytest.fixture(scope="module")
def nginx(tmp_path_factory):
    """nginx on 127.0.0.1 serving the remote samples (remote_samples.py) with
    range requests: .url, .port, .root (the served folder, where a test may
    add files), .names ({(codec, kind): name}) and .blob (blob.bin's bytes)."""
    import remote_servers as servers
    from remote_samples import write_samples

    missing = servers.nginx_missing()
    if missing:
        pytest.skip(missing)
    root = tmp_path_factory.mktemp("www")
    blob, names = write_samples(root)
    with servers.Nginx(root, tmp_path_factory.mktemp("nginx")) as server:
        server.blob = blob
        server.names = names
        server.root = root
        yield server


@pytest.fixture(scope="module")
def s3(tmp_path_factory):
    """moto's S3 server on 127.0.0.1 holding the remote samples under their
    names (remote_samples.py) and data/notes.txt (not Arrow): .bucket,
    .environment(), .names, .root (the local copies)."""
    import remote_servers as servers
    from remote_samples import write_samples

    missing = servers.moto_missing()
    if missing:
        pytest.skip(missing)
    root = tmp_path_factory.mktemp("s3")
    _, names = write_samples(root)
    with servers.MotoS3() as server:
        for name in names.values():
            server.put(name, (root / name).read_bytes())
        server.put("data/notes.txt", b"not arrow")
        server.names = names
        server.root = root
        yield server


@pytest.fixture(scope="module")
def ray():
    """A local Ray (2 CPUs) for one test module, its workers importing
    quiver from where this process does; skipped where Ray is not
    installed."""
    ray = pytest.importorskip(
        "ray", reason="Ray is an optional extra: pip install 'quiver-tensors[ray]'"
    )
    pytest.importorskip("ray.data")
    paths = os.pathsep.join(p for p in sys.path if p)
    ray.init(
        num_cpus=2,
        include_dashboard=False,
        log_to_driver=False,
        runtime_env={"env_vars": {"PYTHONPATH": paths}},
    )
    yield ray
    ray.shutdown()
