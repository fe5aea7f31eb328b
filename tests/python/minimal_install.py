"""What `pip install ".[arrow]"` gives a fresh venv, for the tests of what
a newcomer runs first (test_docs.py, test_examples.py).

MINIMAL_INSTALL is Python source to run in front of a script: from then on
every module but the standard library's, NumPy's, pyarrow's and quiver's is
refused (ModuleNotFoundError), and quiver's IPC writers refuse compression
as a source build without codecs does. tests/packaging/test_wheel.sh checks
the README in a real such venv.
"""

MINIMAL_INSTALL = """
import sys
ALLOWED = set(sys.stdlib_module_names) | {"numpy", "pyarrow", "quiver", "_distutils_hack"}
class _Refuse:
    def find_spec(self, name, path=None, target=None):
        top = name.split(".")[0]
        if top not in ALLOWED and not top.startswith("_sysconfigdata"):  # stdlib, per platform
            raise ModuleNotFoundError(f"No module named {name!r} (not in the minimal install)",
                                      name=name)
        return None
sys.meta_path.insert(0, _Refuse())
import quiver.ipc
def _codecless(original):
    def writer(sink, schema, compression=None, compression_level=None, **options):
        if compression is not None:
            raise NotImplementedError(f"this build of quiver has no {compression} codec")
        return original(sink, schema, **options)  # max_batch_rows=, max_batch_bytes=
    return writer
quiver.ipc.new_file = _codecless(quiver.ipc.new_file)
quiver.ipc.new_stream = _codecless(quiver.ipc.new_stream)
quiver.ipc.codecs = lambda: []
del _codecless
"""
