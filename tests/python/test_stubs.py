"""The .pyi stubs declare exactly what the compiled module exports: every
public class and function, and every public method, property and protocol
method of each class, so the stubs cannot drift from the bindings."""
import ast
import inspect
import pathlib

import pytest

import quiver
import quiver._quiver as core
import quiver.ipc as ipc

PACKAGE = pathlib.Path(quiver.__file__).parent
# The stubs the imported package carries (what a user's type checker sees),
# else the source tree's (an editable or in-tree build).
STUB_SOURCES = [PACKAGE, pathlib.Path(__file__).resolve().parents[2] / "python" / "quiver"]

# Dunder methods that are part of the API (protocols users call through
# builtins, NumPy, DLPack and Arrow). Object basics (__repr__, __hash__,
# pickling and copy hooks) are not checked.
PROTOCOL = {
    "__len__", "__getitem__", "__iter__", "__next__", "__contains__", "__eq__", "__enter__",
    "__exit__", "__array__", "__dlpack__", "__dlpack_device__", "__arrow_c_array__",
    "__arrow_c_schema__", "__arrow_c_stream__", "__arrow_c_device_array__",
    "__arrow_c_device_stream__",
}


def checked(name):
    return not name.startswith("_") or name in PROTOCOL


def stub_tree(name):
    for root in STUB_SOURCES:
        path = root / name
        if path.exists():
            return ast.parse(path.read_text())
    pytest.fail(f"no stub file {name}")


def stub_names(tree):
    """Top-level classes (with their checked members) and functions."""
    classes, functions = {}, set()
    for node in tree.body:
        if isinstance(node, ast.ClassDef):
            members = set()
            for item in node.body:
                if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef)):
                    members.add(item.name)
                elif isinstance(item, ast.AnnAssign) and isinstance(item.target, ast.Name):
                    members.add(item.target.id)
            classes[node.name] = {m for m in members if checked(m)}
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            functions.add(node.name)
    return classes, functions


def runtime_members(cls):
    members = set()
    for name, value in vars(cls).items():
        if value is None:  # __hash__ = None: unhashable, not a method
            continue
        if checked(name):
            members.add(name)
    return members


def runtime_names(module, names):
    classes, functions = {}, set()
    for name in names:
        value = getattr(module, name)
        if inspect.isclass(value):
            classes[name] = runtime_members(value)
        elif inspect.ismodule(value):
            continue
        elif callable(value):
            functions.add(name)
    return classes, functions


def compare(stubs, runtime):
    stub_classes, stub_functions = stubs
    classes, functions = runtime
    problems = []
    for name in sorted(set(classes) - set(stub_classes)):
        problems.append(f"class {name} is not in the stubs")
    for name in sorted(set(stub_classes) - set(classes)):
        problems.append(f"class {name} is in the stubs but not exported")
    for name in sorted(functions - stub_functions):
        problems.append(f"function {name} is not in the stubs")
    for name in sorted(stub_functions - functions):
        problems.append(f"function {name} is in the stubs but not exported")
    for name in sorted(set(classes) & set(stub_classes)):
        for member in sorted(classes[name] - stub_classes[name]):
            problems.append(f"{name}.{member} is not in the stubs")
        for member in sorted(stub_classes[name] - classes[name]):
            problems.append(f"{name}.{member} is in the stubs but not on the class")
    return problems


def test_core_stubs_match_the_compiled_module():
    public = [n for n in dir(core) if not n.startswith("_")]
    problems = compare(stub_names(stub_tree("_quiver.pyi")), runtime_names(core, public))
    assert not problems, "\n".join(problems)


def test_ipc_stubs_match_the_module():
    problems = compare(stub_names(stub_tree("ipc.pyi")), runtime_names(ipc, ipc.__all__))
    assert not problems, "\n".join(problems)


def test_package_exports_are_in_the_stubs():
    # Everything quiver re-exports is declared in one of the stub files
    # (or is a plain Python module / function of the package).
    classes, functions = stub_names(stub_tree("_quiver.pyi"))
    declared = set(classes) | functions
    for name in quiver.__all__:
        value = getattr(quiver, name)
        if inspect.ismodule(value) or getattr(value, "__module__", "").startswith("quiver._shapes"):
            continue
        assert name in declared, f"quiver.{name} is not in _quiver.pyi"


def test_the_check_sees_drift():
    # A stub missing a method, or declaring one the class lacks, is reported.
    stubs = ({"Tensor": {"to_numpy"}}, set())
    runtime = ({"Tensor": {"to_numpy", "shape"}}, {"from_dlpack"})
    assert compare(stubs, runtime) == [
        "function from_dlpack is not in the stubs",
        "Tensor.shape is not in the stubs",
    ]
    assert compare(({"Tensor": {"gone"}}, set()), ({"Tensor": set()}, set())) == [
        "Tensor.gone is in the stubs but not on the class"
    ]
