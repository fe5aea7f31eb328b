"""Unpickling entry points: plain Python functions (pickle stores them by
name) that rebuild quiver objects through the compiled core, which
validates everything it is given like any import."""

from . import _quiver


def _rebuild_type(state):
    return _quiver._rebuild_type(state)


def _rebuild_array(type_state, array_state):
    return _quiver._rebuild_array(type_state, array_state)


def _rebuild_tensor(type_state, shape, strides, dim_names, buffer, byte_offset):
    return _quiver._rebuild_tensor(type_state, shape, strides, dim_names, buffer, byte_offset)


def _rebuild_sparse_tensor(state):
    return _quiver._rebuild_sparse_tensor(state)


def _rebuild_field(state):
    return _quiver._rebuild_field(state)


def _rebuild_schema(state):
    return _quiver._rebuild_schema(state)


def _rebuild_record_batch(schema_state, batch_state):
    return _quiver._rebuild_record_batch(schema_state, batch_state)


def _rebuild_table(schema_state, batch_states):
    return _quiver._rebuild_table(schema_state, batch_states)


def _rebuild_chunked_array(type_state, chunk_states):
    return _quiver._rebuild_chunked_array(type_state, chunk_states)


# quiver's compiled functions and methods (qv.table, qv.Table.select) pickle
# by name, as Python's own functions do: a closure that uses them can go to
# another process (Ray tasks, multiprocessing), where the name is looked up
# again. nanobind's function objects have no pickling of their own.
def _function_by_name(module, qualname):
    import importlib

    obj = importlib.import_module(module)
    for part in qualname.split("."):
        obj = getattr(obj, part)
    return obj


def _reduce_function(function):
    qualname = getattr(function, "__qualname__", None) or function.__name__
    return _function_by_name, (function.__module__, qualname)


def register_function_pickling():
    import copyreg

    for function in (_quiver.table, _quiver.Table.select):
        copyreg.pickle(type(function), _reduce_function)


def _unpickle_dataset(sources, columns, memory_map, cache_bytes, remote=None):
    return _quiver.dataset(
        sources, columns=columns, memory_map=memory_map, cache_bytes=cache_bytes, remote=remote
    )
