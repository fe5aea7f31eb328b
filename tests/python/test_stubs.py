"""The .pyi stubs declare exactly what the compiled module exports: every
public class and function, and every public method, property and protocol
method of each class, each with the binding's parameters (names, kinds,
defaults) and as the same kind of member (method, static method, property),
so the stubs cannot drift from the bindings."""

import ast
import importlib
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
    "__len__",
    "__getitem__",
    "__iter__",
    "__next__",
    "__contains__",
    "__eq__",
    "__enter__",
    "__exit__",
    "__array__",
    "__dlpack__",
    "__dlpack_device__",
    "__arrow_c_array__",
    "__arrow_c_schema__",
    "__arrow_c_stream__",
    "__arrow_c_device_array__",
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
        module = getattr(value, "__module__", "")
        if inspect.ismodule(value) or module.startswith(("quiver._shapes", "quiver.huggingface")):
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


# --- Signatures ------------------------------------------------------------------
#
# Beyond the names: each function and method the stubs declare has the
# parameters the binding has (names, kinds, which have defaults and, where
# both sides spell one, the default's value), and is a method, static method
# or property on both sides. nanobind functions carry their signatures as
# text in __nb_signature__ (one entry per overload); Python functions are
# read with inspect. mypy's stubtest is no help here: inspect.signature()
# knows nothing of nanobind functions, so it would check names only.

P = inspect.Parameter
NO_DEFAULT = P.empty
UNKNOWN = object()  # a default the stub writes as `...` or an expression


class Param:
    def __init__(self, name, kind, default=NO_DEFAULT):
        self.name, self.kind, self.default = name, kind, default

    def text(self):
        prefix = {P.VAR_POSITIONAL: "*", P.VAR_KEYWORD: "**"}.get(self.kind, "")
        if self.default is NO_DEFAULT:
            return prefix + self.name
        return f"{self.name}={'...' if self.default is UNKNOWN else repr(self.default)}"


def signature_text(params):
    out, star = [], False
    for i, p in enumerate(params):
        if p.kind == P.KEYWORD_ONLY and not star:
            out.append("*")
        star = star or p.kind in (P.KEYWORD_ONLY, P.VAR_POSITIONAL)
        out.append(p.text())
        last_positional = p.kind == P.POSITIONAL_ONLY and (
            i + 1 == len(params) or params[i + 1].kind != P.POSITIONAL_ONLY
        )
        if last_positional:
            out.append("/")
    return "(" + ", ".join(out) + ")"


def split_top(text, sep):
    """`text` split at `sep` outside brackets and quotes."""
    parts, depth, quote, current = [], 0, None, ""
    for ch in text:
        if quote:
            quote = None if ch == quote else quote
        elif ch in "'\"":
            quote = ch
        elif ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth -= 1
        elif ch == sep and depth == 0:
            parts.append(current)
            current = ""
            continue
        current += ch
    parts.append(current)
    return [p.strip() for p in parts]


def nanobind_params(signature, defaults):
    """The parameters of one nanobind signature text, e.g.
    'def f(self, a: int = \\0, *, b: object | None = \\1) -> object'."""
    start = signature.index("(")
    depth = 0
    for end in range(start, len(signature)):
        depth += signature[end] in "([{"
        depth -= signature[end] in ")]}"
        if depth == 0:
            break
    params, kind = [], P.POSITIONAL_OR_KEYWORD
    for entry in split_top(signature[start + 1 : end], ","):
        if not entry:
            continue
        if entry == "/":
            for p in params:
                p.kind = P.POSITIONAL_ONLY
            continue
        if entry == "*":
            kind = P.KEYWORD_ONLY
            continue
        if entry.startswith("**"):
            params.append(Param(entry[2:].split(":")[0].strip(), P.VAR_KEYWORD))
            continue
        if entry.startswith("*"):
            params.append(Param(entry[1:].split(":")[0].strip(), P.VAR_POSITIONAL))
            kind = P.KEYWORD_ONLY
            continue
        name_and_type, *default = split_top(entry, "=")
        value = NO_DEFAULT
        if default:
            text = default[0]
            if text.startswith("\\") and text[1:].isdigit():
                value = defaults[int(text[1:])]
            else:
                try:
                    value = ast.literal_eval(text)
                except (ValueError, SyntaxError):
                    value = UNKNOWN
        params.append(Param(name_and_type.split(":")[0].strip(), kind, value))
    return params


def python_params(function):
    return [
        Param(p.name, p.kind, p.default) for p in inspect.signature(function).parameters.values()
    ]


def stub_params(node):
    """The parameters of a stub `def` (positional-only by `/` or by the
    older __name convention)."""
    args = node.args

    def default_of(expr):
        if expr is None:
            return NO_DEFAULT
        if isinstance(expr, ast.Constant) and expr.value is Ellipsis:
            return UNKNOWN
        try:
            return ast.literal_eval(expr)
        except ValueError:
            return UNKNOWN  # `...` or an expression

    positional = args.posonlyargs + args.args
    defaults = [None] * (len(positional) - len(args.defaults)) + list(args.defaults)
    params = []
    for i, (arg, default) in enumerate(zip(positional, defaults)):
        old_style = arg.arg.startswith("__") and not arg.arg.endswith("__")
        kind = (
            P.POSITIONAL_ONLY if i < len(args.posonlyargs) or old_style else P.POSITIONAL_OR_KEYWORD
        )
        params.append(
            Param(arg.arg.lstrip("_") if old_style else arg.arg, kind, default_of(default))
        )
    if args.vararg:
        params.append(Param(args.vararg.arg, P.VAR_POSITIONAL))
    for arg, default in zip(args.kwonlyargs, args.kw_defaults):
        params.append(Param(arg.arg, P.KEYWORD_ONLY, default_of(default)))
    if args.kwarg:
        params.append(Param(args.kwarg.arg, P.VAR_KEYWORD))
    return params


def same_params(stub, runtime, dunder):
    """Whether a caller sees the same parameters. Names of positional-only
    and variadic parameters do not matter to callers; nor do the names of
    a protocol method's positional parameters (Python, NumPy and Arrow pass
    those by position)."""
    if len(stub) != len(runtime):
        return False
    for s, r in zip(stub, runtime):
        positional = {P.POSITIONAL_ONLY, P.POSITIONAL_OR_KEYWORD}
        if dunder and s.kind in positional and r.kind in positional:
            continue
        if s.kind != r.kind:
            return False
        if s.kind == P.POSITIONAL_OR_KEYWORD or s.kind == P.KEYWORD_ONLY:
            if s.name != r.name:
                return False
        if (s.default is NO_DEFAULT) != (r.default is NO_DEFAULT):
            return False
        if UNKNOWN not in (s.default, r.default) and s.default is not NO_DEFAULT:
            if type(s.default) is not type(r.default) or s.default != r.default:
                return False
    return True


def decorators(node):
    return {
        d.id if isinstance(d, ast.Name) else getattr(d, "attr", "") for d in node.decorator_list
    }


def stub_definitions(tree):
    """{qualified name: (kind, [parameter lists, one per overload])} for
    every function and class member the stubs define with `def`."""
    out = {}

    def add(name, node, in_class):
        marks = decorators(node)
        kind = (
            "property"
            if "property" in marks
            else "static"
            if "staticmethod" in marks
            else "method"
            if in_class
            else "function"
        )
        _, variants = out.setdefault(name, (kind, []))
        variants.append(stub_params(node))

    for node in tree.body:
        if isinstance(node, ast.FunctionDef):
            add(node.name, node, False)
        elif isinstance(node, ast.ClassDef):
            for item in node.body:
                if isinstance(item, ast.FunctionDef) and checked(item.name):
                    add(f"{node.name}.{item.name}", item, True)
    return out


def runtime_definition(owner, name):
    """(kind, [parameter lists]) of a runtime function or class member;
    kind "unreadable" when it has no signature to read."""
    value = inspect.getattr_static(owner, name)
    in_class = inspect.isclass(owner)
    if isinstance(value, property):
        return "property", []
    if isinstance(value, staticmethod):
        return "static", [python_params(value.__func__)]
    signatures = getattr(value, "__nb_signature__", None)
    if signatures is not None:
        if not in_class:
            kind = "function"
        else:  # nanobind: a bound method is an nb_method, a static one a plain nb_func
            kind = "method" if type(value).__name__ == "nb_method" else "static"
        return kind, [nanobind_params(text, defaults) for text, _doc, defaults in signatures]
    # Python functions, and C functions with a __text_signature__ (the
    # vectorcall __dlpack__).
    if inspect.isfunction(value) or inspect.isbuiltin(value) or inspect.ismethoddescriptor(value):
        return ("method" if in_class else "function"), [python_params(value)]
    return "unreadable", []


def compare_signatures(stubs, resolve):
    """Problems between stub definitions and what `resolve(qualified name)`
    returns for the runtime (None: not found, checked by the name tests)."""
    problems = []
    for name, (kind, variants) in sorted(stubs.items()):
        runtime = resolve(name)
        if runtime is None:
            continue
        runtime_kind, overloads = runtime
        if runtime_kind == "unreadable":
            problems.append(f"{name}: the module's {name} has no signature to check")
            continue
        if kind != runtime_kind:
            problems.append(f"{name}: a {kind} in the stubs, a {runtime_kind} in the module")
            continue
        if kind == "property":
            continue
        dunder = name.rsplit(".", 1)[-1].startswith("__")
        for params in variants:
            if not any(same_params(params, r, dunder) for r in overloads):
                problems.append(
                    f"{name}: stub {signature_text(params)} matches no binding signature "
                    f"({', '.join(signature_text(r) for r in overloads)})"
                )
        for params in overloads:
            if not any(same_params(s, params, dunder) for s in variants):
                problems.append(f"{name}: binding {signature_text(params)} is not in the stubs")
    return problems


def resolver(module):
    def resolve(name):
        owner, _, member = name.rpartition(".")
        target = getattr(module, owner, None) if owner else module
        if target is None or not hasattr(target, member):
            return None
        return runtime_definition(target, member)

    return resolve


# Each stub file and the module it describes.
STUBBED_MODULES = {
    "_quiver.pyi": "quiver._quiver",
    "ipc.pyi": "quiver.ipc",
    "data.pyi": "quiver.data",
}


def test_every_stub_file_is_checked():
    stub_files = {p.name for root in STUB_SOURCES if root.exists() for p in root.glob("*.pyi")}
    assert stub_files <= set(STUBBED_MODULES), (
        f"unchecked stub files: {stub_files - set(STUBBED_MODULES)}"
    )


@pytest.mark.parametrize("stub_file", sorted(STUBBED_MODULES))
def test_signatures_match_the_stubs(stub_file):
    module = importlib.import_module(STUBBED_MODULES[stub_file])
    problems = compare_signatures(stub_definitions(stub_tree(stub_file)), resolver(module))
    assert not problems, "\n".join(problems)


def test_the_signature_check_sees_drift():
    stubs = stub_definitions(
        ast.parse(
            "class T:\n"
            "    def to_numpy(self, allow_nulls: bool = False, *, out: Any = None) -> Any: ...\n"
            "    def rename(self, names: Any) -> Any: ...\n"
            "    def keyword(self, *, copy: bool = True) -> Any: ...\n"
            "    @staticmethod\n"
            "    def make(x: Any) -> T: ...\n"
            "    @property\n"
            "    def shape(self) -> Any: ...\n"
            "    def __getitem__(self, key: int) -> Any: ...\n"
            "    def same(self, other: Any, /) -> bool: ...\n"
            "    def device(self, requested_schema: Any = None, **kwargs: Any) -> Any: ...\n"
            "def f(a: int, b: int = ...) -> None: ...\n"
        )
    )
    runtime = {
        "T.to_numpy": (
            "method",
            [
                nanobind_params(
                    "def to_numpy(self, allow_nulls: bool = \\0, *, out: object | None = \\1) -> "
                    "object",
                    (True, None),
                )
            ],
        ),
        "T.rename": (
            "method",
            [nanobind_params("def rename(self, columns: object) -> object", None)],
        ),
        "T.keyword": (
            "method",
            [nanobind_params("def keyword(self, copy: bool = \\0) -> object", (True,))],
        ),
        "T.make": ("method", [nanobind_params("def make(self, x: object) -> T", None)]),
        "T.shape": ("method", [nanobind_params("def shape(self) -> tuple", None)]),
        "T.__getitem__": (
            "method",
            [
                nanobind_params("def __getitem__(self, i: int) -> object", None),
                nanobind_params("def __getitem__(self, arg: slice, /) -> object", None),
            ],
        ),
        "T.same": ("method", [nanobind_params("def same(self, arg: T, /) -> bool", None)]),
        "T.device": (
            "method",
            [
                nanobind_params(
                    "def device(self, requested_schema: object | None = \\0, **kwargs) -> object",
                    (None,),
                )
            ],
        ),
        "f": ("function", [nanobind_params("def f(a: int, b: int = \\0) -> None", (3,))]),
    }
    assert compare_signatures(stubs, runtime.get) == [
        "T.keyword: stub (self, *, copy=True) matches no binding signature ((self, copy=True))",
        "T.keyword: binding (self, copy=True) is not in the stubs",
        "T.make: a static in the stubs, a method in the module",
        "T.rename: stub (self, names) matches no binding signature ((self, columns))",
        "T.rename: binding (self, columns) is not in the stubs",
        "T.shape: a property in the stubs, a method in the module",
        "T.to_numpy: stub (self, allow_nulls=False, *, out=None) matches no binding signature "
        "((self, allow_nulls=True, *, out=None))",
        "T.to_numpy: binding (self, allow_nulls=True, *, out=None) is not in the stubs",
    ]
    # Parsing: brackets, quotes and `=` inside annotations, positional-only
    # markers and variadics.
    params = nanobind_params(
        "def g(arg0: numpy.ndarray[dtype=int64, shape=(*)], arg1: dict[str, int], /, "
        "x: str = 'a,b', *args, y: int = 4, **kwargs) -> None",
        None,
    )
    assert signature_text(params) == "(arg0, arg1, /, x='a,b', *args, y=4, **kwargs)"
