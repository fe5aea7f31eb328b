"""The docs run as written: README.md and every docs/*.md.

Python: each file's ```python blocks run as one script, in order, in a
fresh temporary folder, each block at its own line number (a traceback
points into the markdown). So each file carries its imports and its
sample data.

C++: each ```cpp block compiles (syntax and types, -fsyntax-only) against
the public headers (include/, the folder `cmake --install` copies; or
$QUIVER_INCLUDE_DIR). A block is a translation unit as it stands; a block
without #include lines gets `#include <quiver/quiver.h>`, the one header
that includes every public one.

Markers, an HTML comment on the line right before a block:
  <!-- skip-test: needs torch, polars -->
      the block runs only where every module named can be imported (it is
      skipped, not failed, where one is missing; where all are present it
      runs like any other); the name `cuda` stands for a CUDA device
      (as torch.cuda.is_available() says), and `codec:zstd` /
      `codec:lz4` for an IPC codec this build of quiver has
      (quiver.ipc.codecs(): a source build may lack one). A block needing
      more than `pip install ".[arrow]"` gives (NumPy, pyarrow) carries one,
      so that every unmarked block runs on that minimal install
      (tests/packaging/test_wheel.sh runs the README's there);
  <!-- cpp-fragment: const quiver::Tensor& tensor, ... -->
      a C++ block of statements: compiled as the body of
      `quiver::Status DocFragment(<the parameters>)`, its #include lines
      moved to file scope, so it may use QUIVER_RETURN_NOT_OK and
      QUIVER_ASSIGN_OR_RETURN and the names the parameters give it.
"""

import importlib.util
import os
import pathlib
import re
import shutil
import subprocess
import sys

import pytest

from minimal_install import MINIMAL_INSTALL

ROOT = pathlib.Path(__file__).resolve().parents[2]
DOCS = [ROOT / "README.md"] + sorted((ROOT / "docs").glob("*.md"))
INCLUDE = pathlib.Path(os.environ.get("QUIVER_INCLUDE_DIR", ROOT / "include"))

FENCE = re.compile(r"^```(\w+)\n(.*?)^```", re.S | re.M)
MARKER = re.compile(r"<!--\s*(skip-test|cpp-fragment):\s*(.*?)\s*-->\s*$")
NEEDS = re.compile(r"needs\s+(.+)$")


class Block:
    def __init__(self, doc, language, code, line, markers):
        self.doc, self.language, self.code, self.line = doc, language, code, line
        self.markers = markers

    def missing_modules(self):
        spec = self.markers.get("skip-test")
        if spec is None:
            return []
        match = NEEDS.match(spec)
        assert match, f"{self.where}: skip-test marker must read 'needs module, ...', got {spec!r}"
        names = [n.strip() for n in match.group(1).split(",") if n.strip()]
        return [n for n in names if not available(n)]

    @property
    def where(self):
        return f"{doc_id(self.doc)}:{self.line}"


def available(name):
    """Whether what a skip-test marker's name stands for is here."""
    if name == "cuda":
        return has_cuda_device()
    if name.startswith("codec:"):
        import quiver

        return name[len("codec:") :] in quiver.ipc.codecs()
    return importlib.util.find_spec(name.split(".")[0]) is not None


def has_cuda_device():
    if importlib.util.find_spec("torch") is None:
        return False
    import torch

    return torch.cuda.is_available()


def blocks(doc, language):
    text = doc.read_text()
    found = []
    for match in FENCE.finditer(text):
        if match.group(1) != language:
            continue
        line = text.count("\n", 0, match.start()) + 1  # the fence's line
        markers = {}
        previous = text[: match.start()].rstrip("\n").rsplit("\n", 1)[-1]
        marker = MARKER.search(previous)
        if marker:
            markers[marker.group(1)] = marker.group(2)
        found.append(Block(doc, language, match.group(2), line + 1, markers))
    return found


def doc_id(doc):
    return str(doc.relative_to(ROOT)) if ROOT in doc.parents else doc.name


def script_for(doc):
    """The file's python blocks, each at its own line; skipped blocks blank."""
    lines, skipped = [], []
    for block in blocks(doc, "python"):
        missing = block.missing_modules()
        if missing:
            skipped.append(f"{block.where} (needs {', '.join(missing)})")
            continue
        lines.extend([""] * (block.line - 1 - len(lines)))
        lines.extend(block.code.rstrip("\n").split("\n"))
    return "\n".join(lines) + "\n", skipped


def run_script(doc, script, folder):
    """Runs `script` (a doc's blocks) in `folder`, without the caller's
    PYTHONPATH, as a file named so that no doc imports it as a module."""
    path = folder / f"doc_script_{doc.stem}.py"
    path.write_text(script)
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    return subprocess.run(
        [sys.executable, str(path)],
        cwd=folder,
        capture_output=True,
        text=True,
        timeout=300,
        env=env,
    )


@pytest.mark.parametrize("doc", [d for d in DOCS if blocks(d, "python")], ids=doc_id)
def test_python_blocks_run(doc, tmp_path):
    script, skipped = script_for(doc)
    run = run_script(doc, script, tmp_path)
    assert run.returncode == 0, (
        f"{doc_id(doc)}'s python blocks fail (line numbers are the markdown's):\n"
        f"{run.stderr[-4000:]}"
    )
    if skipped:  # shown with pytest -rP
        print(f"{doc_id(doc)}: blocks skipped for want of their modules: " + "; ".join(skipped))


def translation_unit(block):
    code = block.code
    if "cpp-fragment" in block.markers:
        includes = [line for line in code.split("\n") if line.startswith("#include")]
        body = [line for line in code.split("\n") if not line.startswith("#include")]
        code = (
            "\n".join(includes) + "\n#include <quiver/quiver.h>\n"
            f"quiver::Status DocFragment({block.markers['cpp-fragment']}) {{\n"
            + f"#line {block.line}\n"
            + "\n".join(body)
            + "\n  return quiver::Status::OK();\n}\n"
        )
        return code
    prefix = "" if re.search(r"^#include", code, re.M) else "#include <quiver/quiver.h>\n"
    return prefix + f"#line {block.line}\n" + code


CPP_BLOCKS = [b for d in DOCS for b in blocks(d, "cpp")]


@pytest.mark.parametrize("block", CPP_BLOCKS, ids=[b.where for b in CPP_BLOCKS])
def test_cpp_blocks_compile(block, tmp_path):
    compiler = os.environ.get("CXX") or shutil.which("c++") or shutil.which("g++")
    if compiler is None:
        pytest.skip("no C++ compiler")
    source = tmp_path / "block.cc"
    source.write_text(translation_unit(block))
    run = subprocess.run(
        [compiler, "-std=c++20", "-fsyntax-only", f"-I{INCLUDE}", str(source)],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert run.returncode == 0, f"{block.where} does not compile:\n{run.stderr[-4000:]}"


def test_quiver_h_includes_every_public_header():
    headers = sorted(
        p.name for p in (ROOT / "include" / "quiver").glob("*.h") if p.name != "quiver.h"
    )
    assert headers, "no public headers found"
    included = set(
        re.findall(
            r'^#include "quiver/([\w.]+)"', (ROOT / "include/quiver/quiver.h").read_text(), re.M
        )
    )
    missing = [h for h in headers if h not in included]
    assert not missing, f"include/quiver/quiver.h leaves out {missing}"


def test_the_markers_are_read(tmp_path):
    # A skip-test marker on a block whose module is absent skips it; one whose
    # modules are present runs it; a fragment marker reaches the wrapper.
    doc = tmp_path / "doc-marker-check.md"
    doc.write_text(
        "<!-- skip-test: needs no_such_module_here -->\n```python\nraise SystemExit(1)\n```\n"
        "<!-- skip-test: needs os -->\n```python\nx = 1\n```\n"
        "<!-- cpp-fragment: int n -->\n```cpp\nint m = n;\n```\n"
    )
    script, skipped = script_for(doc)
    assert "raise SystemExit" not in script and "x = 1" in script
    assert len(skipped) == 1 and "no_such_module_here" in skipped[0]
    assert script.split("\n").index("x = 1") == 6  # markdown line 7
    unit = translation_unit(blocks(doc, "cpp")[0])
    assert "quiver::Status DocFragment(int n) {" in unit and "int m = n;" in unit


def test_a_codec_marker_needs_that_codec():
    import quiver

    doc_lines = "<!-- skip-test: needs codec:zstd, codec:lz4 -->\n```python\nx = 1\n```\n"
    block = Block(
        ROOT / "README.md", "python", "x = 1\n", 3, {"skip-test": "needs codec:zstd, codec:lz4"}
    )
    assert MARKER.search(doc_lines.split("\n")[0])
    missing = [c for c in ("zstd", "lz4") if c not in quiver.ipc.codecs()]
    assert block.missing_modules() == [f"codec:{c}" for c in missing]


# The pages a newcomer runs first: their unmarked blocks must run there.
FIRST_CONTACT = [ROOT / "README.md", ROOT / "docs" / "ipc.md"]


@pytest.mark.parametrize("doc", FIRST_CONTACT, ids=doc_id)
def test_first_contact_docs_run_on_the_minimal_install(doc, tmp_path):
    lines = []
    for block in blocks(doc, "python"):
        if "skip-test" in block.markers:
            continue  # what a marker names is not promised on the minimal install
        lines.extend([""] * (block.line - 1 - len(lines)))
        lines.extend(block.code.rstrip("\n").split("\n"))
    assert lines and lines[0] == "", f"{doc_id(doc)}: no python block, or one on line 1"
    # The prelude takes line 1 (blank in every script), one statement long,
    # so the markdown's line numbers hold.
    script = "exec(" + repr(MINIMAL_INSTALL) + ")\n" + "\n".join(lines[1:]) + "\n"
    run = run_script(doc, script, tmp_path)
    assert run.returncode == 0, (
        f"{doc_id(doc)}'s unmarked python blocks fail on a NumPy + pyarrow install without "
        f"codecs (line numbers are the markdown's):\n{run.stderr[-4000:]}"
    )


# The README is a getting-started page (its anchors: nanoarrow's 182 lines,
# Arrow's 120); the rest lives in docs/, every page reachable from the index.
README_MAX_LINES = 250


def test_readme_stays_a_getting_started_page():
    lines = (ROOT / "README.md").read_text().count("\n")
    assert lines < README_MAX_LINES, (
        f"README.md has {lines} lines; keep it under {README_MAX_LINES} and move details to docs/"
    )
    assert "(docs/index.md)" in (ROOT / "README.md").read_text(), (
        "README.md must link docs/index.md"
    )


def test_every_docs_page_is_linked_from_the_index():
    index = (ROOT / "docs" / "index.md").read_text()
    linked = set(re.findall(r"\]\(([\w.-]+\.md)(?:#[\w-]*)?\)", index))
    pages = {p.name for p in (ROOT / "docs").glob("*.md") if p.name != "index.md"}
    missing = sorted(pages - linked)
    assert not missing, f"docs/index.md does not link {missing}"
    dangling = sorted(linked - pages - {"index.md"})
    assert not dangling, f"docs/index.md links pages that do not exist: {dangling}"
