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
