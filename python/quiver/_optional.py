"""The one place quiver imports an optional package (pyarrow, SciPy,
pydata sparse). A missing one raises ModuleNotFoundError naming the
quiver extra that installs it."""

import importlib

DISTRIBUTION = "quiver-tensors"

# Top-level module -> (package to install, quiver extra that brings it).
OPTIONAL = {
    "pyarrow": ("pyarrow", "arrow"),
    "scipy": ("scipy", "sparse"),
    "sparse": ("sparse", "sparse"),
    "pandas": ("pandas", "pandas"),
    "ray": ("ray[data]", "ray"),
    "dask": ("dask[array,bag]", "dask"),
    "distributed": ("distributed", "dask"),
    "datasets": ("datasets", "huggingface"),
    "ml_dtypes": ("ml_dtypes", "ml_dtypes"),
}


def missing_message(module):
    """The error text for an optional module that is not installed."""
    top = module.split(".")[0]
    package, extra = OPTIONAL[top]
    return (
        f"this needs the optional package {package}, which is not installed: "
        f"pip install '{DISTRIBUTION}[{extra}]' (or pip install {package})"
    )


def import_optional(module):
    """Imports ``module`` (one of OPTIONAL's packages or a submodule of one)."""
    top = module.split(".")[0]
    if top not in OPTIONAL:
        raise ValueError(f"{module} is not one of quiver's optional packages {sorted(OPTIONAL)}")
    try:
        return importlib.import_module(module)
    except ModuleNotFoundError as e:
        # Only the package itself missing is ours to explain; a missing
        # dependency of an installed package keeps its own message.
        if e.name is not None and e.name.split(".")[0] != top:
            raise
        raise ModuleNotFoundError(missing_message(module), name=top) from e
