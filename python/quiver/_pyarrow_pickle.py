"""Lets pyarrow pickle the canonical ragged tensor type.

pyarrow knows ``arrow.variable_shape_tensor`` in C++ but has no Python class
for it: its types (and so its arrays, tables and schemas) pickle as their
string form, which pyarrow cannot parse back ("No type alias for
extension<arrow.variable_shape_tensor[...]>"). Ragged data then cannot
cross ``multiprocessing``, Ray's object store or any other pickle path.

Once quiver is imported, such a type pickles as the equivalent quiver type
and unpickles through the C Data Interface into the very type pyarrow
itself makes (same canonical JSON metadata). Every other type keeps
pyarrow's own reduction, and a pyarrow that pickles the type by itself is
left alone. Registration happens when pyarrow is imported (or at once if it
already is), so importing quiver does not import pyarrow.
"""

import copyreg
import importlib.util
import sys

EXTENSION_NAME = "arrow.variable_shape_tensor"


def _rebuild_type(quiver_type):
    import pyarrow as pa

    return pa.DataType._import_from_c_capsule(quiver_type.__arrow_c_schema__())


def _reduce_extension_type(pa_type):
    if pa_type.extension_name == EXTENSION_NAME:
        from . import type_from_arrow

        return _rebuild_type, (type_from_arrow(pa_type),)
    return pa_type.__reduce__()


def _pyarrow_pickles_it(pa):
    import pickle

    from . import variable_shape_tensor

    sample = _rebuild_type(variable_shape_tensor("float32", 2, dim_names=["h", "w"]))
    try:
        return pickle.loads(pickle.dumps(sample)) == sample
    except Exception:  # pyarrow's own failure: "No type alias for ..."
        return False


def register(pa):
    """Makes ``pa``'s extension types of this name pickle (idempotent)."""
    cls = pa.lib.BaseExtensionType
    if copyreg.dispatch_table.get(cls) is _reduce_extension_type:
        return
    if not hasattr(pa.DataType, "_import_from_c_capsule") or _pyarrow_pickles_it(pa):
        return
    copyreg.pickle(cls, _reduce_extension_type)


# The import system needs only these methods, not the importlib.abc base
# classes: importing importlib.abc would add to every `import quiver`.
class _Loader:
    """pyarrow's own loader, then register()."""

    def __init__(self, loader):
        self._loader = loader

    def __getattr__(self, name):  # get_resource_reader, is_package, ...: pyarrow's loader's
        return getattr(self._loader, name)

    def create_module(self, spec):
        return self._loader.create_module(spec)

    def exec_module(self, module):
        self._loader.exec_module(module)
        try:
            register(module)
        except Exception:  # a pyarrow too unlike the one this was written for
            pass


class _PyarrowImportHook:
    def find_spec(self, name, path=None, target=None):
        if name != "pyarrow":
            return None
        sys.meta_path.remove(self)
        spec = importlib.util.find_spec(name)
        if spec is not None and spec.loader is not None:
            spec.loader = _Loader(spec.loader)
        return spec


def install():
    pa = sys.modules.get("pyarrow")
    if pa is not None and hasattr(pa, "lib"):
        register(pa)
    elif not any(isinstance(finder, _PyarrowImportHook) for finder in sys.meta_path):
        sys.meta_path.insert(0, _PyarrowImportHook())
