"""Tables and record batches as pandas DataFrames (Table.to_pandas).

Tensor columns become object columns holding one NumPy array per row (a
read-only view of quiver's buffers, None for a null row): pandas has no
tensor dtype, and pyarrow's own conversion flattens the rows. Every other
column is converted by pyarrow, as pyarrow.Table.to_pandas would."""

from ._optional import import_optional

TENSOR_TYPES = ("arrow.fixed_shape_tensor", "arrow.variable_shape_tensor")


def _is_tensor(column_type):
    return getattr(column_type, "extension_name", None) in TENSOR_TYPES


def to_pandas(table):
    pd = import_optional("pandas")
    pa = import_optional("pyarrow")
    series = []
    for i, name in enumerate(table.column_names):
        column = table.column(i)  # by position: names may repeat
        if _is_tensor(column.type):
            values = list(column)  # row views: no copy of the values
            series.append(pd.Series(values, dtype=object, name=name))
        else:
            series.append(
                pa.chunked_array(column).to_pandas().rename(name)
                if hasattr(column, "chunks")
                else pa.array(column).to_pandas().rename(name)
            )
    if not series:
        return pd.DataFrame(index=pd.RangeIndex(table.num_rows))
    frame = pd.concat(series, axis=1)
    frame.columns = list(table.column_names)  # keeps repeated names
    return frame
