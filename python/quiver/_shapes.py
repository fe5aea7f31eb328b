"""The check_shapes decorator: enforce_shape on arguments and results."""

import functools

from ._quiver import Bindings, ShapePattern

__all__ = ["check_shapes"]


def check_shapes(returns=None, **patterns):
    """Checks the named arguments and the return value of each call.

    ``@check_shapes(images="b h w 3", labels="b", returns="b k")``: every
    pattern is checked against one fresh :class:`Bindings` per call, so a
    symbol (``b``) must have the same size in every argument and in the
    result. Arguments left out of a call (their default applies) and
    arguments passed as ``None`` are not checked. Errors are ValueError
    naming the argument ("argument 'labels': axis 0 ('b'): ...").
    """
    compiled = {name: ShapePattern(p) for name, p in patterns.items()}
    compiled_returns = None if returns is None else ShapePattern(returns)

    def decorate(fn):
        import inspect  # here, not at the top: it would add ~15 ms to `import quiver`

        signature = inspect.signature(fn)
        for name in compiled:
            parameter = signature.parameters.get(name)
            if parameter is None or parameter.kind in (
                parameter.VAR_POSITIONAL,
                parameter.VAR_KEYWORD,
            ):
                raise TypeError(
                    f"check_shapes: {fn.__qualname__} has no parameter {name!r} to check"
                )
        labels = {name: f"argument {name!r}" for name in compiled}

        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            bound = signature.bind(*args, **kwargs)
            bindings = Bindings()
            arguments = bound.arguments
            for name, pattern in compiled.items():
                value = arguments.get(name)
                if value is not None:
                    pattern.enforce(value, bindings=bindings, name=labels[name])
            result = fn(*args, **kwargs)
            if compiled_returns is not None:
                compiled_returns.enforce(result, bindings=bindings, name="return value")
            return result

        wrapper.__quiver_shapes__ = dict(
            compiled, **({} if compiled_returns is None else {"returns": compiled_returns})
        )
        return wrapper

    return decorate
