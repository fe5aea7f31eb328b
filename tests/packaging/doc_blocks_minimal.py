"""Runs the unmarked ```python blocks of the markdown files given (each
file as one script, in order, in a fresh temporary folder), as
tests/python/test_docs.py does, but with no test tools: it runs in the
venv of tests/packaging/test_wheel.sh that holds only the wheel and its
[arrow] extra (NumPy, pyarrow), where a README reader starts. A block with
a skip-test marker needs more than that install and is left out."""

import pathlib
import re
import subprocess
import sys
import tempfile

FENCE = re.compile(r"^```(\w+)\n(.*?)^```", re.S | re.M)
MARKER = re.compile(r"<!--\s*skip-test:.*?-->\s*$")


def script(doc):
    text = doc.read_text()
    lines, left_out = [], 0
    for match in FENCE.finditer(text):
        if match.group(1) != "python":
            continue
        if MARKER.search(text[: match.start()].rstrip("\n").rsplit("\n", 1)[-1]):
            left_out += 1
            continue
        first = text.count("\n", 0, match.start()) + 2  # the code's first line
        lines.extend([""] * (first - 1 - len(lines)))
        lines.extend(match.group(2).rstrip("\n").split("\n"))
    return "\n".join(lines) + "\n", left_out


def main(docs):
    failed = False
    for doc in map(pathlib.Path, docs):
        code, left_out = script(doc)
        with tempfile.TemporaryDirectory() as tmp:
            path = pathlib.Path(tmp) / f"doc_script_{doc.stem}.py"
            path.write_text(code)
            run = subprocess.run(
                [sys.executable, str(path)], cwd=tmp, capture_output=True, text=True
            )
        if run.returncode != 0:
            failed = True
            print(
                f"{doc.name}: unmarked python blocks fail on the minimal install "
                f"(line numbers are the markdown's):\n{run.stderr[-4000:]}",
                file=sys.stderr,
            )
        else:
            print(
                f"{doc.name}: every unmarked python block runs on the minimal install "
                f"({left_out} marked blocks left out)"
            )
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
